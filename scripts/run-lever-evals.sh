#!/usr/bin/env bash
# Issue 19's lever table: each loop lever alone and together, on evals/basic.json and BFCL simple_python, budgets
# 2, 4 and 8 (4 and 2 played back from the budget-8 run, their last call made for real), for one test model, on a
# fixed sample (the first BASIC_LIMIT / BFCL_LIMIT tasks: a full sweep takes hours on 2 CPU cores).
#
#   npm run build && bash scripts/run-lever-evals.sh smollm2-135m-instruct [OUT_DIR]
#
# Env: LEVERS (default: all below but first-call, in order; first-call runs budget 1 alone), SUITES (basic
# bfcl-simple_python; basic-all is the whole of evals/basic.json, whose first 12 tasks are arithmetic and conversions), BASIC_LIMIT (12), BFCL_LIMIT (20), THREADS (1: run one model per core),
# ROOT (the build whose dist/ runs; default this checkout), OLD_ROOT (a build of the commit before issue 19, for the
# "before" row; skipped when unset), BFCL_DIR (evals/bfcl). A report already in OUT_DIR is kept (resumable).
set -euo pipefail
cd "$(dirname "$0")/.."
key="$1"
out="${2:-docs/results/levers}"
. scripts/lib/test-models.sh
dir="$(test_models_dir)"
model="$(test_model_path "$key")"
bfcl="$(cd "${BFCL_DIR:-evals/bfcl}" && pwd)"
declare -A flags=(
  [before]=""                                                               # the old loop (OLD_ROOT)
  [final-round]="--max-thought-chars 0 --max-answer-chars 0"                # §0 + §4: repeats answered, final rounds
  [bounded]="--no-final-round"                                              # §3: thought <= 200, answer <= 300 chars
  [compact]="--no-final-round --max-thought-chars 0 --max-answer-chars 0 --prompt-style compact"  # §5
  [all]=""                                                                  # every default
  [all-compact]="--prompt-style compact"
  [thought-none]="--thought none"
  [thought-last]="--thought last"
  [example]="--example-trajectory"                                          # §4: one worked example conversation
  [first-call]=""                                                           # budget 1: the first call alone
  [ctx-1024]="--context-size 1024"                                          # §2: a 1,024-token context, fitted
  [ctx-1024-nofit]="--context-size 1024 --no-fit-context"                   # ... and not fitted
)
for lever in ${LEVERS:-before all final-round bounded compact all-compact thought-none thought-last example ctx-1024 ctx-1024-nofit}; do
  root="${ROOT:-$PWD}"
  if [ "$lever" = before ]; then
    [ -n "${OLD_ROOT:-}" ] || { echo ">> before: OLD_ROOT not set, skipped" >&2; continue; }
    root="$OLD_ROOT"
  fi
  for suite in ${SUITES:-basic bfcl-simple_python}; do
    dest="$out/$key/$lever/$suite"
    [ -f "$dest/report.json" ] && { echo ">> $key $lever $suite: done already" >&2; continue; }
    mkdir -p "$dest"
    if [ "$suite" = basic ]; then target=("$root/evals/basic.json" --limit "${BASIC_LIMIT:-12}")
    elif [ "$suite" = basic-all ]; then target=("$root/evals/basic.json")
    else target=(--bfcl "$bfcl" --category simple_python --limit "${BFCL_LIMIT:-20}"); fi
    # shellcheck disable=SC2206
    budgets=2,4,8; [ "$lever" = first-call ] && budgets=1
    cmd=(node "$root/dist/cli/main.js" eval "${target[@]}" --model "$model" --budgets "$budgets" --threads "${THREADS:-1}" ${flags[$lever]} --quiet --out "$dest")
    echo "${cmd[*]}" | sed "s#$dir/#<test-models>/#; s#$root/#./#g; s#$bfcl#evals/bfcl#" > "$dest/command.txt"
    echo ">> $key $lever $suite" >&2
    "${cmd[@]}" > "$dest/summary.txt" 2> "$dest/progress.log" || echo ">> $key $lever $suite failed (see $dest/progress.log)" >&2
  done
done
