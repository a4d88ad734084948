import { textTable } from "../../text-table.js";
import type { RunRecord } from "../runner/run-record.js";
import type { EvalReport, RunnerStats } from "./eval-report.js";

const HEADER = [
  "model",
  "budget",
  "workflow",
  "tasks",
  "runner",
  "success",
  "mean steps",
  "mean calls",
  "mean prompt tok",
  "mean gen tok",
  "mean s",
];

const pct = (rate: number) => `${(rate * 100).toFixed(1)}%`;
const num = (n: number | null) => (n === null ? "–" : String(n));

function statsCells(runner: string, s: RunnerStats): string[] {
  return [
    runner,
    `${pct(s.successRate)} (${s.successes}/${s.runs})`,
    String(s.meanSteps),
    String(s.meanSkillCalls),
    num(s.meanPromptTokens),
    num(s.meanGeneratedTokens),
    (s.meanWallMs / 1000).toFixed(2),
  ];
}

/** Two rows per model × budget × workflow: the loop's, then the workflow's. */
function comparisonRows(report: EvalReport): string[][] {
  return (report.workflowComparison ?? []).flatMap((c) => {
    const head = [c.model, String(c.budget), c.workflow, String(c.tasks)];
    return [
      [...head, ...statsCells("loop", c.loop)],
      [...head, ...statsCells("workflow", c.workflowRuns)],
    ];
  });
}

function markdownTable(header: string[], rows: string[][]): string[] {
  const escape = (cell: string) => cell.replace(/\|/g, "\\|").replace(/\n/g, " ");
  return [
    `| ${header.join(" | ")} |`,
    `| ${header.map(() => "---").join(" | ")} |`,
    ...rows.map((row) => `| ${row.map(escape).join(" | ")} |`),
  ];
}

/** One run in a cell: ✓ or ✗, its steps, its generated tokens, its seconds. */
function runCell(run: RunRecord | undefined): string {
  if (!run) return "–";
  const tokens = run.generatedTokens === null ? "" : `, ${run.generatedTokens} tok`;
  return `${run.success ? "✓" : "✗"} ${run.stopReason}, ${run.iterations} steps${tokens}, ${(run.wallMs / 1000).toFixed(1)} s`;
}

/** Per task, at the largest budget and the first seed: the loop's run beside the workflow's. */
function perTaskRows(report: EvalReport): string[][] {
  const budget = Math.max(...report.budgets);
  const seed = report.seeds[0];
  const at = report.runs.filter((r) => r.budget === budget && r.seed === seed);
  return at
    .filter((r) => r.baselineOf !== undefined)
    .map((loop) => {
      const flow = at.find((r) => r.model === loop.model && r.taskId === loop.baselineOf);
      return [loop.model, loop.baselineOf!, flow?.workflow ?? "–", runCell(loop), runCell(flow)];
    });
}

/** report.md's "Loop vs workflow" section (none without `--compare-loop`). */
export function workflowComparisonSection(report: EvalReport): string[] {
  if (!report.workflowComparison?.length) return [];
  return [
    "## Loop vs workflow",
    "",
    "The same tasks run by the agent loop and by the workflow each task names (`--compare-loop`). Steps are model calls (a workflow's nested agents' included); calls are skill calls; tokens and seconds are means per run. The loop runs appear below as `<task>@loop` and are not in the tables above.",
    "",
    ...markdownTable(HEADER, comparisonRows(report)),
    "",
    `Per task (budget ${Math.max(...report.budgets)}, seed ${report.seeds[0]}):`,
    "",
    ...markdownTable(["model", "task", "workflow", "loop", "workflow run"], perTaskRows(report)),
    "",
  ];
}

/** The same comparison under the eval's terminal summary. */
export function renderWorkflowComparisonText(report: EvalReport): string {
  if (!report.workflowComparison?.length) return "";
  return `\nLoop vs workflow (same tasks):\n${textTable(HEADER, comparisonRows(report), { numbersRight: true })}`;
}
