import type { Aggregate, EvalReport } from "./eval-report.js";

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

/** report.md: what was run, the aggregate and convergence tables, per-category and per-task results, and the failures. */
export function renderMarkdown(report: EvalReport): string {
  const out: string[] = [];
  out.push(`# ${report.title}`, "");
  out.push(
    `Source: \`${report.source}\` · ${report.tasks} tasks${report.sampledFrom !== undefined ? ` (the first ${report.tasks} of ${report.sampledFrom})` : ""} · grammar ${!report.grammar ? "off" : "on"} · models: ${report.models.join(", ")} · budgets: ${report.budgets.join(", ")} · seeds: ${report.seeds.join(", ")}${report.interrupted ? " · **interrupted: partial results**" : ""}`,
    "",
  );
  if (report.bfcl) {
    const b = report.bfcl;
    out.push(
      `BFCL category \`${b.category}\` (${b.checkKind} rule): ${b.questions} questions, ${b.scored} scored, ${b.inconsistencies.length} dataset inconsistencies, ${b.unconvertible.length} not convertible.`,
      "",
    );
  }
  out.push("## Convergence", "", "Success rate by iteration budget (see convergence.svg).", "");
  out.push(
    table(
      ["model", ...report.budgets.map((b) => `budget ${b}`)],
      report.convergence.map((s) => [
        s.model,
        ...report.budgets.map((b) => {
          const p = s.points.find((q) => q.budget === b);
          return p ? pct(p.successRate) : "–";
        }),
      ]),
    ),
    "",
  );
  out.push("## Aggregates", "");
  const { header, rows } = aggregateRows(report.aggregates);
  out.push(table(header, rows), "");
  out.push(
    table(
      ["model", "budget", "stop reasons", "validation errors by type", "mean iters to success", "wall ms"],
      report.aggregates.map((a) => [
        a.model,
        String(a.budget),
        countsText(a.stopReasons),
        countsText(a.validationErrorsByType),
        num(a.meanIterationsToSuccess),
        String(Math.round(a.wallMs)),
      ]),
    ),
    "",
  );
  if (report.categories.length) {
    out.push("## By category", "");
    const keys = [...new Set(report.categories.map((c) => `${c.category}\u0000${c.model}`))];
    out.push(
      table(
        ["category", "model", ...report.budgets.map((b) => `budget ${b}`)],
        keys.map((key) => {
          const [category, model] = key.split("\u0000");
          return [
            category,
            model,
            ...report.budgets.map((b) => {
              const c = report.categories.find((x) => x.category === category && x.model === model && x.budget === b);
              return c ? pct(c.successRate) : "–";
            }),
          ];
        }),
      ),
      "",
    );
  }
  if (report.kind === "suite") {
    out.push("## Per task", "", "Successful runs out of seeds, per budget.", "");
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
      out.push(`### ${model}`, "");
      out.push(
        table(
          ["task", ...report.budgets.map((b) => `budget ${b}`)],
          taskIds.map((id) => [
            id,
            ...report.budgets.map((b) => {
              const [successes, runs] = cells.get(`${model}\u0000${id}\u0000${b}`) ?? [0, 0];
              return `${successes}/${runs}`;
            }),
          ]),
        ),
        "",
      );
    }
  }
  const failed = report.runs.filter((r) => !r.success);
  if (failed.length) {
    const maxBudget = Math.max(...report.budgets);
    const shown = failed.filter((r) => r.budget === maxBudget);
    out.push(`## Failures at budget ${maxBudget}`, "");
    out.push(
      table(
        ["model", "task", "seed", "stop", "iters", "why"],
        shown.map((r) => [
          r.model,
          r.taskId,
          String(r.seed),
          r.stopReason,
          String(r.iterations),
          r.failures.join("; "),
        ]),
      ),
      "",
    );
  }
  if (report.bfcl) {
    out.push("## Dataset inconsistencies (not scored)", "");
    out.push(
      report.bfcl.inconsistencies.length
        ? table(
            ["id", "why"],
            report.bfcl.inconsistencies.map((q) => [q.id, q.reason]),
          )
        : "None.",
      "",
    );
    if (report.bfcl.unconvertible.length) {
      out.push("## Functions that do not convert (not scored)", "");
      out.push(
        table(
          ["id", "why"],
          report.bfcl.unconvertible.map((q) => [q.id, q.reason]),
        ),
        "",
      );
    }
  }
  return `${out.join("\n")}\n`;
}
