/**
 * Issue 26's failure taxonomy, recomputed from eval reports: for each BFCL report, each model and budget, the runs that
 * succeeded and the failed runs by the class of their first failing argument (a degenerate number, the schema's text,
 * the key's own name, a runaway string, another span of the question, ...; scripts/lib/grounding-taxonomy.ts says how
 * each is recognised). The questions come from the file named in the report's `source` (or `--bfcl DIR`). For a suite
 * report (evals/basic.json), the failed runs by their answer: none, the prompt's own text, the question's, another.
 *
 *   npx tsx scripts/grounding-taxonomy.ts docs/results/levers/gemma3-270m/all/bfcl-simple_python-400/report.json [...]
 *   npx tsx scripts/grounding-taxonomy.ts --budget 4 --json DIR/report.json
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { builtinSkills } from "../src/skills/builtin/index.js";
import { PROMPTS_DIR } from "../src/prompt-texts.js";
import {
  ANSWER_CLASSES,
  ANSWER_LABELS,
  classifyAnswer,
  type AnswerRun,
  taxonomy,
  taxonomyTable,
  type TaxonomyQuestion,
  type TaxonomyRow,
} from "./lib/grounding-taxonomy.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    bfcl: { type: "string" },
    suite: { type: "string" },
    budget: { type: "string" },
    json: { type: "boolean" },
  },
});
if (positionals.length === 0) {
  process.stderr.write(
    "usage: grounding-taxonomy.ts [--bfcl DIR] [--suite FILE] [--budget N] [--json] REPORT.json...\n",
  );
  process.exit(2);
}

interface ReportFile {
  kind?: string;
  source?: string;
  runs: AnswerRun[];
}

/** The questions of a BFCL file (JSON Lines), by id: the user turns' text and the functions. */
function readQuestions(path: string): Map<string, TaxonomyQuestion> {
  const questions = new Map<string, TaxonomyQuestion>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const q = JSON.parse(line) as { id: string; question: { role: string; content: string }[][]; function: unknown[] };
    const text = q.question
      .flat()
      .filter((m) => m.role === "user")
      .map((m) => m.content)
      .join("\n");
    questions.set(q.id, { text, functions: q.function });
  }
  return questions;
}

function questionsFor(report: ReportFile, reportPath: string): Map<string, TaxonomyQuestion> {
  if (report.kind !== "bfcl" || !report.source) throw new Error(`${reportPath}: not a BFCL report`);
  const path = values.bfcl ? join(values.bfcl, basename(report.source)) : report.source;
  if (!existsSync(path)) throw new Error(`${reportPath}: ${path} not found (give --bfcl DIR)`);
  return readQuestions(path);
}

/** The runtime's own text a suite answer may copy: every prompt file, the built-in skills' and the suite's descriptions. */
function runtimeText(suite: { skills?: { description?: string }[] }): string {
  const files = readdirSync(PROMPTS_DIR, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md"));
  return [
    ...files.map((f) => readFileSync(join(PROMPTS_DIR, f), "utf8")),
    ...builtinSkills().map((skill) => skill.description),
    ...(suite.skills ?? []).map((skill) => skill.description ?? ""),
  ].join("\n");
}

/** A suite report's failed runs by answer class, one Markdown row per model and budget. */
function answerRows(report: ReportFile, path: string, runs: readonly AnswerRun[]): string[] {
  if (!report.source) throw new Error(`${path}: the report names no suite file`);
  const file = values.suite ?? (existsSync(report.source) ? report.source : join("evals", basename(report.source)));
  const suite = JSON.parse(readFileSync(file, "utf8")) as {
    skills?: { description?: string }[];
    tasks: { id: string; query: string }[];
  };
  const queries = new Map(suite.tasks.map((t) => [t.id, t.query]));
  const prompts = runtimeText(suite);
  const groups = new Map<string, AnswerRun[]>();
  for (const run of runs) {
    const key = `${run.model} · budget ${run.budget}`;
    groups.set(key, [...(groups.get(key) ?? []), run]);
  }
  return [...groups].map(([key, group]) => {
    const counts = ANSWER_CLASSES.map(
      (c) => group.filter((run) => classifyAnswer(run, queries.get(run.taskId) ?? "", prompts) === c).length,
    );
    const ok = group.filter((run) => run.success).length;
    return `| ${dirname(path)} · ${key} | ${((100 * ok) / group.length).toFixed(1)}% (${ok}/${group.length}) | ${counts.join(" | ")} |`;
  });
}

const all: { path: string; row: TaxonomyRow }[] = [];
const suiteRows: string[] = [];
for (const path of positionals) {
  const report = JSON.parse(readFileSync(path, "utf8")) as ReportFile;
  const budget = values.budget === undefined ? undefined : Number(values.budget);
  const runs = report.runs.filter((run) => budget === undefined || run.budget === budget);
  if (report.kind !== "bfcl") suiteRows.push(...answerRows(report, path, runs));
  else for (const row of taxonomy(runs, questionsFor(report, path))) all.push({ path: dirname(path), row });
}
if (values.json) process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
else if (all.length === 0) {
  const head = ["run", "success", ...ANSWER_CLASSES.map((c) => ANSWER_LABELS[c])];
  process.stdout.write(`| ${head.join(" | ")} |\n| ${head.map(() => "---").join(" | ")} |\n${suiteRows.join("\n")}\n`);
} else {
  const label = new Map(all.map(({ path, row }) => [row, `${path} · ${row.model} · budget ${row.budget}`]));
  process.stdout.write(
    `${taxonomyTable(
      all.map((a) => a.row),
      (row) => label.get(row) ?? "",
    )}\n`,
  );
}
