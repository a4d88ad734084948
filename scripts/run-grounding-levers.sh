#!/usr/bin/env bash
# Issue 26's lever table: each part of grounding alone and together, off / soft / strict, on a fixed sample of BFCL
# simple_python (every 8th odd-numbered question from simple_python_1: 50, held out from every choice) at budget 4,
# and the answers lever on evals/basic.json at budget 8, for one test model; then the failure classes of every row
# (scripts/grounding-taxonomy.ts). All 400 questions take about 25 minutes a row on 2 CPU cores; the sample, 2-3.
#
#   npm run build && bash scripts/run-grounding-levers.sh gemma3-270m [OUT_DIR]
#
# Env: ROWS (default: every row below, in order), THREADS (2), BFCL_DIR (evals/bfcl). A row whose report is already in
# OUT_DIR is kept (resumable). Run it alone on the machine: two llama.cpp processes at once slow both.
set -euo pipefail
cd "$(dirname "$0")/.."
key="$1"
out="${2:-docs/results/grounding/$key/levers}"
. scripts/lib/test-models.sh
dir="$(test_models_dir)"
model="$(test_model_path "$key")"
bfcl="$(cd "${BFCL_DIR:-evals/bfcl}" && pwd)"
tasks="$(seq -s, -f 'simple_python_%g' 1 8 399)"
declare -A flags=(
  [none]="--grounding off --no-param-details"                               # neither grounding nor the prompt lever
  [prompt]="--grounding off"                                                # item 7 alone: per-parameter detail
  [copy-alone]="--no-param-details --grounding-levers copy"                 # item 2 alone
  [numbers-alone]="--no-param-details --grounding-levers numbers"           # item 3 alone
  [strings-alone]="--no-param-details --grounding-levers strings"           # item 4 alone
  [answers-alone]="--no-param-details --grounding-levers answers"           # item 6's bias alone
  [soft-noprompt]="--no-param-details"                                      # items 2-4 and 6 together
  [soft]=""                                                                 # every default: all of them together
  [no-copy]="--grounding-levers numbers,strings,answers"                    # each left out of the defaults
  [no-numbers]="--grounding-levers copy,strings,answers"
  [no-strings]="--grounding-levers copy,numbers,answers"
  [no-answers]="--grounding-levers copy,numbers,strings"
  [strict]="--grounding strict"                                             # item 5
  [basic-off]="--grounding off"                                             # evals/basic.json, budget 8
  [basic-soft]=""
  [basic-no-answers]="--grounding-levers copy,numbers,strings"
)
order="none prompt copy-alone numbers-alone strings-alone answers-alone soft-noprompt soft no-copy no-numbers no-strings"
order="$order no-answers strict basic-off basic-soft basic-no-answers"
reports=()
for row in ${ROWS:-$order}; do
  dest="$out/$row"
  reports+=("$dest/report.json")
  if [ -f "$dest/report.json" ]; then echo ">> $row: kept" >&2; continue; fi
  mkdir -p "$dest"
  if [[ "$row" == basic-* ]]; then
    set -- evals/basic.json --budgets 8
  else
    set -- --bfcl "$bfcl" --category simple_python --task "$tasks" --budgets 4
  fi
  # shellcheck disable=SC2086
  echo "node dist/cli/main.js eval $* --threads ${THREADS:-2} --model $model ${flags[$row]} --quiet --out $dest" \
    | sed "s#$tasks#<every 8th odd question from simple_python_1>#" >"$dest/command.txt"
  echo "build $(git rev-parse --short HEAD), $(date -u +%FT%TZ)" >>"$dest/command.txt"
  echo ">> $row" >&2
  # shellcheck disable=SC2086
  node dist/cli/main.js eval "$@" --threads "${THREADS:-2}" --model "$model" ${flags[$row]} --quiet --out "$dest" \
    >"$dest/summary.txt"
done
bfcl_reports=()
for r in "${reports[@]}"; do [[ "$r" == */basic-* ]] || bfcl_reports+=("$r"); done
npx tsx scripts/grounding-taxonomy.ts --bfcl "$bfcl" --budget 4 "${bfcl_reports[@]}"
