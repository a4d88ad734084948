#!/usr/bin/env bash
# The loop against a workflow on the same tasks (issue 15): evals/workflows.json (arithmetic, conversion and no-tool
# tasks of evals/basic.json, each naming examples/workflows/router.ts) with --compare-loop, on both real test models,
# budgets 4 and 8 (budget 4 played back from the budget-8 run: temperature 0), on a fixed sample (the first LIMIT
# tasks, categories interleaved).
#
#   npm run fetch-test-models && npm run build && bash scripts/run-workflow-comparison.sh [OUT_DIR]
#
# Env: LIMIT (default 9), THREADS (default 1), MODELS (default both keys). A model whose report.json is already in
# OUT_DIR is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/results/workflows}"
. scripts/lib/test-models.sh
dir="$(test_models_dir)"
for key in ${MODELS:-$(test_model_keys)}; do
  model="$(test_model_path "$key")"
  dest="$out/$key"
  [ -f "$dest/report.json" ] && { echo ">> $key: done already" >&2; continue; }
  mkdir -p "$dest"
  cmd=(node dist/cli/main.js eval evals/workflows.json --compare-loop --model "$model" --budgets 4,8
    --limit "${LIMIT:-9}" --threads "${THREADS:-1}" --out "$dest")
  echo "${cmd[*]}" | sed "s#$dir/#<test-models>/#" > "$dest/command.txt"
  echo ">> $key" >&2
  "${cmd[@]}" > "$dest/summary.txt" 2> "$dest/progress.log"
done
