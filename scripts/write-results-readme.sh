#!/usr/bin/env bash
# Regenerate docs/results/README.md's evaluation table from the reports under docs/results/eval.
#   bash scripts/write-results-readme.sh
set -euo pipefail
cd "$(dirname "$0")/.."
readme=docs/results/README.md
table="$(npx tsx scripts/results-table.ts docs/results/eval)"
node -e '
  const fs = require("fs");
  const [path, table] = [process.argv[1], process.argv[2]];
  const text = fs.readFileSync(path, "utf8");
  const start = "<!-- results-table -->", end = "<!-- /results-table -->";
  const a = text.indexOf(start), b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`${path}: no ${start} ... ${end} markers`);
  fs.writeFileSync(path, text.slice(0, a + start.length) + "\n" + table + text.slice(b));
' "$readme" "$table"
