import type { Aggregate, EvalReport } from "./eval-report.js";
import { serversSection } from "./render-servers.js";
import { workflowComparisonSection } from "./render-workflow-comparison.js";

const pct = (rate: number) => `${(rate * 100).toFixed(1)}%`;
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const num = (n: number | null) => (n === null ? "–" : String(n));

function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(" | ")} |`,
    `| ${header.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ].join("\n");
}

function countsText(counts: Record<string, number>): string {
  const entries = Object.entries(counts);
  return entries.length ? entries.map(([k, v]) => `${k} ${v}`).join(", ") : "–";
}

/** The aggregate table (one row per model × budget), shared by report.md and the terminal. */
export function aggregateRows(aggregates: readonly Aggregate[]): { header: string[]; rows: string[][] } {
  return {
    header: [
      "model",
      "budget",
      "success",
      "mean iters",
      "validation errors",
      "tool errors",
      "empty",
      "repeated",
      "prompt tok",
      "gen tok",
    ],
    rows: aggregates.map((a) => [
      a.model,
      String(a.budget),
      `${pct(a.successRate)} (${a.successes}/${a.runs})`,
      String(a.meanIterations),
      String(a.validationErrors),
      String(a.toolErrors),
      String(a.emptyAnswers),
      String(a.repeatedCalls),
      num(a.promptTokens),
      num(a.generatedTokens),
    ]),
  };
}

/**
 * How the runs decided and moved on (issues 39 and 40): calls made against calls wanted, runs that called where no
 * call was wanted or answered where one was, runs that repeated a call, steps.
 */
export function decisionRows(aggregates: readonly Aggregate[]): { header: string[]; rows: string[][] } {
  return {
    header: [
      "model",
      "budget",
      "calls / run",
      "expected calls / run",
      "right call count",
      "called, none wanted",
      "answered, call wanted",
      "runs with a repeat",
      "median steps",
    ],
    rows: aggregates.map((a) => [
      a.model,
      String(a.budget),
      a.runs ? (a.skillCalls / a.runs).toFixed(2) : "–",
      a.runs && a.expectedCalls !== undefined ? (a.expectedCalls / a.runs).toFixed(2) : "–",
      String(a.rightCallCount ?? "–"),
      String(a.callsWhenNoneWanted ?? "–"),
      String(a.answersWhenCallWanted ?? "–"),
      String(a.runsWithRepeats ?? "–"),
      String(a.medianIterations ?? "–"),
    ]),
  };
}

/** What was run: source, tasks, grammar, models, budgets, seeds; for BFCL, the category's counts. */
function headerSection(report: EvalReport): string[] {
  const out = [
    `# ${report.title}`,
    "",
    `Source: \`${report.source}\` · ${report.tasks} tasks${report.sampledFrom !== undefined ? ` (the first ${report.tasks} of ${report.sampledFrom})` : ""} · grammar ${!report.grammar ? "off" : "on"} · models: ${report.models.join(", ")} · budgets: ${report.budgets.join(", ")} · seeds: ${report.seeds.join(", ")}${report.interrupted ? " · **interrupted: partial results**" : ""}`,
    "",
  ];
  if (report.bfcl) {
    const b = report.bfcl;
    out.push(
      `BFCL category \`${b.category}\` (${b.checkKind} rule): ${b.questions} questions, ${b.scored} scored, ${b.inconsistencies.length} dataset inconsistencies, ${b.unconvertible.length} not convertible.`,
      "",
    );
  }
  return out;
}

/** Success rate per model and budget. */
function convergenceSection(report: EvalReport): string[] {
  const rows = report.convergence.map((s) => [
    s.model,
    ...report.budgets.map((b) => {
      const p = s.points.find((q) => q.budget === b);
      return p ? pct(p.successRate) : "–";
    }),
  ]);
  return [
    "## Convergence",
    "",
    "Success rate by iteration budget (see convergence.svg).",
    "",
    table(["model", ...report.budgets.map((b) => `budget ${b}`)], rows),
    "",
  ];
}

/** The aggregate table, then stop reasons, validation errors by type and times per model × budget. */
function aggregatesSection(report: EvalReport): string[] {
  const { header, rows } = aggregateRows(report.aggregates);
  const details = report.aggregates.map((a) => [
    a.model,
    String(a.budget),
    countsText(a.stopReasons),
    countsText(a.validationErrorsByType),
    num(a.meanIterationsToSuccess),
    String(Math.round(a.wallMs)),
  ]);
  return [
    "## Aggregates",
    "",
    table(header, rows),
    "",
    table(
      ["model", "budget", "stop reasons", "validation errors by type", "mean iters to success", "wall ms"],
      details,
    ),
    "",
    "Calls and steps:",
    "",
    table(decisionRows(report.aggregates).header, decisionRows(report.aggregates).rows),
    "",
  ];
}

/** Success rate per category, model and budget (none when the tasks have no categories). */
function categorySection(report: EvalReport): string[] {
  if (!report.categories.length) return [];
  const keys = [...new Set(report.categories.map((c) => `${c.category}\u0000${c.model}`))];
  const rows = keys.map((key) => {
    const [category, model] = key.split("\u0000");
    return [
      category,
      model,
      ...report.budgets.map((b) => {
        const c = report.categories.find((x) => x.category === category && x.model === model && x.budget === b);
        return c ? pct(c.successRate) : "–";
      }),
    ];
  });
  return ["## By category", "", table(["category", "model", ...report.budgets.map((b) => `budget ${b}`)], rows), ""];
}

/** A suite's successes out of seeds, per model, task and budget (BFCL reports have none). */
function perTaskSection(report: EvalReport): string[] {
  if (report.kind !== "suite") return [];
  const out = ["## Per task", "", "Successful runs out of seeds, per budget.", ""];
  const taskIds = [...new Set(report.runs.map((r) => r.taskId))];
  // one pass over the runs: [successes, runs] per model, task and budget (a filter per cell was quadratic)
  const cells = new Map<string, [number, number]>();
  for (const r of report.runs) {
    const key = `${r.model}\u0000${r.taskId}\u0000${r.budget}`;
    const counts = cells.get(key) ?? [0, 0];
    counts[0] += r.success ? 1 : 0;
    counts[1] += 1;
    cells.set(key, counts);
  }
  for (const model of report.models) {
    const rows = taskIds.map((id) => [
      id,
      ...report.budgets.map((b) => {
        const [successes, runs] = cells.get(`${model}\u0000${id}\u0000${b}`) ?? [0, 0];
        return `${successes}/${runs}`;
      }),
    ]);
    out.push(`### ${model}`, "", table(["task", ...report.budgets.map((b) => `budget ${b}`)], rows), "");
  }
  return out;
}

/** The failed runs at the largest budget, with why (none when every run succeeded). */
function failuresSection(report: EvalReport): string[] {
  const failed = report.runs.filter((r) => !r.success);
  if (!failed.length) return [];
  const maxBudget = Math.max(...report.budgets);
  const rows = failed
    .filter((r) => r.budget === maxBudget)
    .map((r) => [r.model, r.taskId, String(r.seed), r.stopReason, String(r.iterations), r.failures.join("; ")]);
  return [`## Failures at budget ${maxBudget}`, "", table(["model", "task", "seed", "stop", "iters", "why"], rows), ""];
}

/** A BFCL run's questions left out: dataset inconsistencies and functions that do not convert. */
function bfclSection(report: EvalReport): string[] {
  if (!report.bfcl) return [];
  const { inconsistencies, unconvertible } = report.bfcl;
  const out = [
    "## Dataset inconsistencies (not scored)",
    "",
    inconsistencies.length
      ? table(
          ["id", "why"],
          inconsistencies.map((q) => [q.id, q.reason]),
        )
      : "None.",
    "",
  ];
  if (unconvertible.length)
    out.push(
      "## Functions that do not convert (not scored)",
      "",
      table(
        ["id", "why"],
        unconvertible.map((q) => [q.id, q.reason]),
      ),
      "",
    );
  return out;
}

/** report.md: what was run, the aggregate and convergence tables, per-category and per-task results, and the failures. */
export function renderMarkdown(report: EvalReport): string {
  const out = [
    ...headerSection(report),
    ...convergenceSection(report),
    ...aggregatesSection(report),
    ...workflowComparisonSection(report),
    ...serversSection(report),
    ...categorySection(report),
    ...perTaskSection(report),
    ...failuresSection(report),
    ...bfclSection(report),
  ];
  return `${out.join("\n")}\n`;
}
