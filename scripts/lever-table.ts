/**
 * Issue 19's lever table from the reports scripts/run-lever-evals.sh (and scripts/peer-eval.ts) wrote:
 * DIR/<model>/<lever>/<suite>/report.json → one Markdown table per suite: lever × model → success at each budget,
 * and, over the runs of the report's largest budget (the real ones), the median generated tokens per model call, runs
 * ending in a model error, calls repeated and the wall time of those runs.
 *
 *   npx tsx scripts/lever-table.ts docs/results/levers > docs/results/levers-table.md
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { EvalReport } from "../src/eval/report/eval-report.js";
import { median } from "./lib/bench-stats.js";

const dir = process.argv[2] ?? "docs/results/levers";
const subdirs = (path: string) =>
  readdirSync(path)
    .filter((name) => statSync(join(path, name)).isDirectory())
    .sort();

interface Row {
  model: string;
  lever: string;
  suite: string;
  report: EvalReport;
}
const rows: Row[] = [];
for (const model of subdirs(dir)) {
  for (const lever of subdirs(join(dir, model))) {
    for (const suite of subdirs(join(dir, model, lever))) {
      const path = join(dir, model, lever, suite, "report.json");
      try {
        rows.push({ model, lever, suite, report: JSON.parse(readFileSync(path, "utf8")) as EvalReport });
      } catch {
        // not run (yet)
      }
    }
  }
}

const order = [
  "peer",
  "first-call",
  "before",
  "final-round",
  "bounded",
  "compact",
  "all",
  "all-compact",
  "thought-none",
  "thought-last",
  "example",
];
const rank = (lever: string) => (order.indexOf(lever) < 0 ? order.length : order.indexOf(lever));
const out: string[] = [];
for (const suite of [...new Set(rows.map((r) => r.suite))].sort()) {
  const chosen = rows
    .filter((r) => r.suite === suite)
    .sort((a, b) => a.model.localeCompare(b.model) || rank(a.lever) - rank(b.lever));
  const budgets = [...new Set(chosen.flatMap((r) => r.report.budgets))].sort((a, b) => a - b);
  const tasks = chosen[0].report.tasks;
  const from = chosen[0].report.sampledFrom;
  out.push(`### ${suite} (${from ? `first ${tasks} of ${from}` : `all ${tasks}`} tasks)`, "");
  out.push(
    `| model | lever | ${budgets.map((b) => `budget ${b}`).join(" | ")} | gen. tokens / call (median) | model errors | repeated calls | wall s |`,
  );
  out.push(`| --- | --- | ${budgets.map(() => "---").join(" | ")} | --- | --- | --- | --- |`);
  for (const { model, lever, report } of chosen) {
    const rate = (b: number) => {
      const runs = report.runs.filter((r) => r.budget === b);
      if (runs.length === 0) return "–";
      const ok = runs.filter((r) => r.success).length;
      return `${((ok / runs.length) * 100).toFixed(0)}% (${ok}/${runs.length})`;
    };
    // the largest budget's runs are the real ones (smaller budgets are played back from them)
    const largest = report.runs.filter((r) => r.budget === Math.max(...report.budgets));
    const perCall = median(
      largest
        .filter((r) => r.generatedTokens !== null && r.iterations > 0)
        .map((r) => r.generatedTokens! / r.iterations),
    );
    const errors = largest.filter((r) => r.stopReason === "model_error").length;
    const repeated = largest.reduce((n, r) => n + r.repeatedCalls, 0);
    const wall = largest.reduce((n, r) => n + r.wallMs, 0) / 1000;
    out.push(
      `| ${model} | ${lever} | ${budgets.map(rate).join(" | ")} | ${Number.isFinite(perCall) ? perCall.toFixed(0) : "–"} | ${errors} | ${repeated} | ${wall.toFixed(0)} |`,
    );
  }
  out.push("");
}
process.stdout.write(`${out.join("\n")}\n`);
