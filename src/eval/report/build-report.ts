import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { aggregateAll, categoryRates, convergence } from "./aggregate.js";
import { compareWorkflows } from "./compare-workflows.js";
import type { EvalReport } from "./eval-report.js";
import { renderConvergenceSvg } from "./render-convergence-svg.js";
import { renderMarkdown } from "./render-markdown.js";

/** What {@link buildReport} needs. */
export type ReportInput = Pick<
  EvalReport,
  | "kind"
  | "title"
  | "source"
  | "models"
  | "budgets"
  | "seeds"
  | "tasks"
  | "sampledFrom"
  | "grammar"
  | "loop"
  | "runs"
  | "interrupted"
  | "bfcl"
  | "servers"
  | "resumedRuns"
> & {
  startedAt: Date;
  wallMs: number;
};

/** Assemble report.json's content: aggregates per model × budget, the convergence series, categories, and every run. */
export function buildReport(input: ReportInput): EvalReport {
  // loop runs made only to compare with a workflow (--compare-loop) are compared apart, not aggregated
  const specified = input.runs.filter((r) => r.baselineOf === undefined);
  const aggregates = aggregateAll(specified, input.models, input.budgets);
  const workflowComparison = compareWorkflows(input.runs, input.models, input.budgets);
  return {
    schemaVersion: 1,
    kind: input.kind,
    title: input.title,
    source: input.source,
    models: input.models,
    budgets: input.budgets,
    seeds: input.seeds,
    tasks: input.tasks,
    sampledFrom: input.sampledFrom,
    grammar: input.grammar,
    loop: input.loop,
    interrupted: input.interrupted,
    aggregates,
    convergence: convergence(aggregates, input.models),
    categories: categoryRates(specified, input.models, input.budgets),
    bfcl: input.bfcl,
    workflowComparison,
    ...(input.servers && input.servers.length > 0 && { servers: input.servers }),
    ...(input.resumedRuns ? { resumedRuns: input.resumedRuns } : {}),
    runs: input.runs,
    timing: { startedAt: input.startedAt.toISOString(), wallMs: Math.round(input.wallMs) },
  };
}

/** Write report.json, report.md and convergence.svg into `dir` (created if needed); returns the three paths. */
export function writeReport(report: EvalReport, dir: string): { json: string; markdown: string; svg: string } {
  mkdirSync(dir, { recursive: true });
  const paths = { json: join(dir, "report.json"), markdown: join(dir, "report.md"), svg: join(dir, "convergence.svg") };
  writeFileSync(paths.json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(paths.markdown, renderMarkdown(report));
  writeFileSync(
    paths.svg,
    renderConvergenceSvg(report.convergence, { title: `${report.title}: success rate by iteration budget` }),
  );
  return paths;
}
