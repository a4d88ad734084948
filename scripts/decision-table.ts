/**
 * Issues 39 and 40's tables from the reports scripts/run-decision-levers.sh wrote:
 * DIR/<model>/<row>/<suite>/results.jsonl → Markdown tables, one per model.
 *
 * - "the decision off and on": the rows `off` and `default` on the questions both ran, per suite;
 * - "each part": every row on the questions all of them ran (the lever sample), the rows `off` and `default` cut down to
 *   those questions, so each column compares the same questions;
 * - "one reply or one call a step": `default` against `stepwise` on the parallel categories' common questions;
 * - "every default at a later build": rows named `default@<build>` beside `off` and `default`, on common questions;
 * - for evals/basic.json, its no-tool tasks and its multi-call tasks (the trajectory's call count, never the runs').
 *
 * Columns: success, calls per run, expected calls per run, runs that called where no call was wanted, runs that
 * answered without a call where one was, runs with a repeated call, median steps (time: scripts/bench-decision.ts,
 * which alternates the two in one run; the reports' wall times depend on what else ran).
 *
 *   npx tsx scripts/decision-table.ts docs/results/decision > /tmp/tables.md
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { aggregateRuns } from "../src/eval/report/aggregate.js";
import type { RunRecord } from "../src/eval/runner/run-record.js";

const dir = process.argv[2] ?? "docs/results/decision";
const subdirs = (path: string) =>
  readdirSync(path)
    .filter((name) => statSync(join(path, name)).isDirectory())
    .sort();

/** The finished runs of a report folder (none when it has not run). */
function runsOf(path: string): RunRecord[] {
  let text: string;
  try {
    text = readFileSync(join(path, "results.jsonl"), "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((line) => line.startsWith('{"run"'))
    .map((line) => (JSON.parse(line) as { run: RunRecord }).run);
}

const ROWS = ["off", "fit", "words", "fit-words", "items", "progress", "items-progress", "default", "stepwise"];
const SUITES = [
  "irrelevance",
  "multiple",
  "simple_python",
  "simple_python-400",
  "parallel",
  "parallel_multiple",
  "basic",
];

const header = [
  "row",
  "questions",
  "success",
  "calls / run",
  "expected calls / run",
  "called, none wanted",
  "answered, call wanted",
  "runs with a repeat",
  "median steps",
];
const line = (row: readonly string[]) => `| ${row.join(" | ")} |`;
const pct = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(1)}% (${n}/${of})` : "–");

function cells(row: string, runs: readonly RunRecord[]): string[] {
  const a = aggregateRuns(runs[0]?.model ?? "", runs[0]?.budget ?? 0, runs);
  return [
    row,
    String(a.runs),
    pct(a.successes, a.runs),
    a.runs ? (a.skillCalls / a.runs).toFixed(2) : "–",
    a.runs ? (a.expectedCalls / a.runs).toFixed(2) : "–",
    String(a.callsWhenNoneWanted),
    String(a.answersWhenCallWanted),
    pct(a.runsWithRepeats, a.runs),
    String(a.medianIterations),
  ];
}

/** The runs of each row whose task every row in `rows` ran. */
function common(byRow: Map<string, RunRecord[]>, rows: readonly string[]): Map<string, RunRecord[]> {
  const present = rows.filter((row) => (byRow.get(row)?.length ?? 0) > 0);
  const ids = present
    .map((row) => new Set(byRow.get(row)!.map((r) => r.taskId)))
    .reduce<Set<string> | undefined>((a, s) => (a ? new Set([...a].filter((id) => s.has(id))) : s), undefined);
  return new Map(present.map((row) => [row, byRow.get(row)!.filter((r) => ids?.has(r.taskId))]));
}

function table(title: string, byRow: Map<string, RunRecord[]>): string[] {
  if (byRow.size === 0) return [];
  return [
    `**${title}**`,
    "",
    line(header),
    line(header.map(() => "---")),
    ...[...byRow].map(([row, runs]) => line(cells(row, runs))),
    "",
  ];
}

const out: string[] = [];
for (const model of subdirs(dir)) {
  out.push(`### ${model}`, "");
  const suites = new Map<string, Map<string, RunRecord[]>>();
  for (const row of subdirs(join(dir, model)))
    for (const suite of subdirs(join(dir, model, row))) {
      const runs = runsOf(join(dir, model, row, suite));
      if (runs.length === 0) continue;
      if (!suites.has(suite)) suites.set(suite, new Map());
      suites.get(suite)!.set(row, runs);
    }
  for (const suite of SUITES) {
    const byRow = suites.get(suite);
    if (!byRow) continue;
    out.push(`#### ${suite}`, "");
    out.push(...table("the decision off and on, on the questions both ran", common(byRow, ["off", "default"])));
    const levers = ROWS.filter((row) => row !== "stepwise" && byRow.has(row));
    if (levers.length > 2) out.push(...table("each part, on the questions every row ran", common(byRow, levers)));
    if (byRow.has("stepwise"))
      out.push(...table("one reply with several calls, or one call a step", common(byRow, ["default", "stepwise"])));
    // a later build's defaults (a folder named `default@<build>`) against the first ones, on the questions all ran
    const later = [...byRow.keys()].filter((row) => row.startsWith("default@")).sort();
    if (later.length > 0)
      out.push(...table("every default at a later build", common(byRow, ["off", "default", ...later])));
    if (suite === "basic") {
      const part = (keep: (r: RunRecord) => boolean) =>
        new Map([...byRow].map(([row, runs]) => [row, runs.filter(keep)] as const));
      out.push(
        ...table(
          "its no-tool tasks",
          part((r) => r.expectedCalls === 0),
        ),
      );
      out.push(
        ...table(
          "its multi-call tasks (two or more calls in the trajectory)",
          part((r) => (r.expectedCalls ?? 0) >= 2),
        ),
      );
      const off = new Map(byRow.get("off")?.map((r) => [r.taskId, r.success]));
      for (const [row, runs] of byRow) {
        if (row === "off") continue;
        const lost = runs.filter((r) => off.get(r.taskId) === true && !r.success).map((r) => r.taskId);
        const won = runs.filter((r) => off.get(r.taskId) === false && r.success).map((r) => r.taskId);
        out.push(
          `- ${row} against off: passes ${won.join(", ") || "no task"} newly; fails ${lost.join(", ") || "no task"} that off passed`,
        );
      }
      out.push("");
    }
  }
}
process.stdout.write(out.join("\n"));
