#!/usr/bin/env bash
# Issues 39 and 40's lever table: the decision off, each of its parts alone, the two issues' parts together, and every
# default, on BFCL's five categories (odd-numbered questions only: the weights were chosen on the even ones) at budget
# 4 and on evals/basic.json at budget 8, for one test model. Rows:
#   off          --decision off (the model alone at every branch point: the behaviour before the decision)
#   fit, words   issue 39's parts alone; fit-words: both together
#   items, progress  issue 40's parts alone; items-progress: both together
#   default      every default (all four parts)
#   stepwise     every default, one call a step (--no-parallel-calls) in the parallel categories
# The lever rows run every SAMPLE-th odd question of each category (4); `off` and `default` run the whole odd half of
# the categories in FULL (all five), every SAMPLE-th odd question of the others, and with ALL400=1 also all 400
# simple_python questions (the issue's no-fall check, and time per question).
#
#   npm run build && bash scripts/run-decision-levers.sh gemma3-270m [OUT_DIR]
#   # the sample docs/results/decision.md reports (about 50 minutes for Gemma 3 270M on 2 cores):
#   FULL="irrelevance multiple" SAMPLE=2 ROWS="off default" bash scripts/run-decision-levers.sh gemma3-270m
#   SAMPLE=8 ROWS="fit words fit-words items progress items-progress stepwise" bash scripts/run-decision-levers.sh ...
#
# Env: ROWS (default: every row below, in order), CATEGORIES (the five), THREADS (2), BFCL_DIR (evals/bfcl). A row whose report is already in
# OUT_DIR is kept (resumable). Run it alone on the machine: two llama.cpp processes at once slow both.
set -euo pipefail
cd "$(dirname "$0")/.."
key="$1"
out="${2:-docs/results/decision/$key}"
. scripts/lib/test-models.sh
dir="$(test_models_dir)"
model="$(test_model_path "$key")"
bfcl="$(cd "${BFCL_DIR:-evals/bfcl}" && pwd)"
declare -A flags=(
  [off]="--decision off"
  [fit]="--decision-levers fit"
  [words]="--decision-levers words"
  [fit-words]="--decision-levers fit,words"
  [items]="--decision-levers items"
  [progress]="--decision-levers progress"
  [items-progress]="--decision-levers items,progress"
  [default]=""
  [stepwise]="--no-parallel-calls"
)
categories="${CATEGORIES:-irrelevance multiple simple_python parallel parallel_multiple}"

# the odd-numbered ids of a category's scored questions (its tasks: dataset inconsistencies left out), every
# `step`-th one from `start` (1)
ids() {
  node --input-type=module -e '
    const [, dir, category, step, start] = process.argv;
    const { loadBfclCategory } = await import("./dist/eval/bfcl/bfcl-files.js");
    const { bfclTasks } = await import("./dist/eval/bfcl/bfcl-tasks.js");
    const number = (id) => Number(id.slice(id.lastIndexOf("_") + 1));
    const ids = bfclTasks(loadBfclCategory(dir, category)).tasks.map((t) => t.id);
    console.log(ids.filter((id) => number(id) >= Number(start) && (number(id) - Number(start)) % Number(step) === 0).join(","));
  ' "$bfcl" "$1" "$2" "${3:-1}"
}

run() { # run ROW NAME ARGS...: one eval into OUT/ROW/NAME, kept when its report is there
  local row="$1" name="$2"
  shift 2
  local dest="$out/$row/$name"
  if [ -f "$dest/report.json" ]; then echo ">> $row/$name: kept" >&2; return; fi
  mkdir -p "$dest"
  # shellcheck disable=SC2086
  echo "node dist/cli/main.js eval $* --threads ${THREADS:-2} --model $model ${flags[$row]} --quiet --out $dest" \
    >"$dest/command.txt"
  echo "build $(git rev-parse --short HEAD), $(date -u +%FT%TZ), $(nproc) cores: $(lscpu | sed -n 's/^Model name: *//p')" \
    >>"$dest/command.txt"
  echo ">> $row/$name" >&2
  # shellcheck disable=SC2086
  node dist/cli/main.js eval "$@" --threads "${THREADS:-2}" --model "$model" ${flags[$row]} --quiet --out "$dest" \
    >"$dest/summary.txt"
}

for row in ${ROWS:-off default fit words fit-words items progress items-progress stepwise}; do
  for category in $categories; do
    [ "$row" = stepwise ] && [[ "$category" != parallel* ]] && continue
    step=$((2 * ${SAMPLE:-4}))
    if { [ "$row" = off ] || [ "$row" = default ]; } && [[ " ${FULL:-$categories} " == *" $category "* ]]; then step=2; fi
    [ -f "$out/$row/$category/report.json" ] && { echo ">> $row/$category: kept" >&2; continue; }
    tasks="$(ids "$category" "$step")"
    run "$row" "$category" --bfcl "$bfcl" --category "$category" --task "$tasks" --budgets 4
  done
  [ "$row" = stepwise ] || run "$row" basic evals/basic.json --budgets 8
  if [ "${ALL400:-0}" = 1 ] && { [ "$row" = off ] || [ "$row" = default ]; }; then
    run "$row" simple_python-400 --bfcl "$bfcl" --category simple_python --budgets 4
  fi
done
