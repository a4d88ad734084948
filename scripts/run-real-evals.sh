#!/usr/bin/env bash
# The real-model evaluation matrix behind docs/results/: both test models × (evals/basic.json and the five BFCL
# categories) × grammar on/off, budgets 4, 8 and 12, on a fixed sample of each suite (the first N tasks: a full sweep
# takes hours on 2 CPU cores). Budgets 4 and 8 are played back from the budget-12 run (temperature 0; see
# src/eval/runner/budget-prefix.ts), so each task costs one real run.
#
#   npm run fetch-test-models && npm run build && bash scripts/run-real-evals.sh [OUT_DIR]
#
# Env: BASIC_LIMIT (default 12), BFCL_LIMIT (default 3), and with the grammar off BASIC_LIMIT_OFF (default 6) and
# BFCL_LIMIT_OFF (default 2); THREADS (default: the CLI's, the cores available); GRAMMARS (default "on off"), MODELS (default both keys). A suite whose report.json is
# already in OUT_DIR is skipped, so an interrupted matrix resumes where it stopped.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/results/eval}"
. scripts/lib/test-models.sh
dir="$(test_models_dir)"
for grammar in ${GRAMMARS:-on off}; do
  flag=(); basic_limit="${BASIC_LIMIT:-12}"; bfcl_limit="${BFCL_LIMIT:-3}"
  if [ "$grammar" = off ]; then flag=(--no-grammar); basic_limit="${BASIC_LIMIT_OFF:-6}"; bfcl_limit="${BFCL_LIMIT_OFF:-2}"; fi
  for key in ${MODELS:-$(test_model_keys)}; do
    model="$(test_model_path "$key")"
    run() {
      local name="$1"; shift
      local dest="$out/$key/$name-grammar-$grammar"
      [ -f "$dest/report.json" ] && { echo ">> $key $name grammar $grammar: done already" >&2; return; }
      mkdir -p "$dest"
      local threads=(); [ -n "${THREADS:-}" ] && threads=(--threads "$THREADS")
      local cmd=(node dist/cli/main.js eval "$@" --model "$model" --budgets 4,8,12 "${flag[@]}" "${threads[@]}" --out "$dest")
      echo "${cmd[*]}" | sed "s#$dir/#<test-models>/#" > "$dest/command.txt"
      echo ">> $key $name grammar $grammar" >&2
      "${cmd[@]}" > "$dest/summary.txt" 2> "$dest/progress.log"
    }
    run basic evals/basic.json --limit "$basic_limit"
    for category in simple_python multiple parallel parallel_multiple irrelevance; do
      run "bfcl-$category" --bfcl evals/bfcl --category "$category" --limit "$bfcl_limit"
    done
  done
done
