/**
 * The summary table of the real-model evaluations: every report.json under a folder (default docs/results/eval, as
 * scripts/run-real-evals.sh lays it out: <model>/<suite>-grammar-<on|off>/report.json) as one Markdown table of
 * model × suite × grammar → success rate per budget, then the medians per task of the largest budget's runs (the
 * real ones: smaller budgets are played back from them): model calls, generated tokens and seconds. Links are
 * relative to DIR's parent (docs/results/README.md holds the table).
 *
 *   npx tsx scripts/results-table.ts [DIR] > table.md
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { EvalReport } from "../src/eval/report/eval-report.js";

function reportsUnder(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...reportsUnder(path));
    else if (name === "report.json") found.push(path);
  }
  return found;
}

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const pct = (rate: number, n: number, runs: number) => `${(rate * 100).toFixed(0)}% (${n}/${runs})`;
const fixed = (value: number | undefined, digits: number) => (value === undefined ? "–" : value.toFixed(digits));

/** One table row per report. */
export function resultsTable(dir: string): string {
  const budgets = new Set<number>();
  const paths = reportsUnder(dir);
  // the committed folders keep report.md only (their report.json is in git history: docs/results/README.md says
  // how to restore it); an empty table must never replace the README's
  if (paths.length === 0)
    throw new Error(`${dir}: no report.json below it (restore the reports first; see docs/results/README.md)`);
  const reports = paths.map((path) => ({
    path,
    report: JSON.parse(readFileSync(path, "utf8")) as EvalReport,
  }));
  for (const { report } of reports) report.budgets.forEach((b) => budgets.add(b));
  const columns = [...budgets].sort((a, b) => a - b);
  const header = [
    "model",
    "suite",
    "grammar",
    "tasks",
    ...columns.map((b) => `budget ${b}`),
    "median calls",
    "median gen tokens",
    "median s / task",
    "report",
  ];
  const rows = reports.map(({ path, report }) => {
    const model = report.models[0];
    const suite = report.bfcl ? `BFCL ${report.bfcl.category}` : report.title;
    const largest = Math.max(...report.budgets);
    const real = report.runs.filter((r) => r.budget === largest);
    const cells = columns.map((b) => {
      const a = report.aggregates.find((x) => x.budget === b);
      return a ? pct(a.successRate, a.successes, a.runs) : "–";
    });
    const ran = report.interrupted ? new Set(real.map((r) => r.taskId)).size : report.tasks;
    const of = report.sampledFrom ?? report.tasks;
    const tasks = `${ran === of ? ran : `${ran} of ${of}`}${report.interrupted ? " (interrupted)" : ""}`;
    return [
      model,
      suite,
      !report.grammar ? "off" : "on",
      tasks,
      ...cells,
      fixed(median(real.map((r) => r.iterations)), 1),
      fixed(median(real.flatMap((r) => (r.generatedTokens === null ? [] : [r.generatedTokens]))), 0),
      fixed(median(real.map((r) => r.wallMs / 1000)), 1),
      `[report](${relative(join(dir, ".."), path).replace(/report\.json$/, "report.md")})`,
    ];
  });
  return (
    [
      `| ${header.join(" | ")} |`,
      `| ${header.map(() => "---").join(" | ")} |`,
      ...rows.map((r) => `| ${r.join(" | ")} |`),
    ].join("\n") + "\n"
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(resultsTable(resolve(process.argv[2] ?? "docs/results/eval")));
}
