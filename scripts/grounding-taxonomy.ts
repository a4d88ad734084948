/**
 * Issue 26's failure taxonomy, recomputed from eval reports: for each BFCL report, each model and budget, the runs that
 * succeeded and the failed runs by the class of their first failing argument (a degenerate 16-digit number, the
 * schema's text, the key's own name, a runaway string, another span of the question, ...; scripts/lib/grounding-taxonomy.ts
 * says how each is recognised). The questions come from the file named in the report's `source` (or `--bfcl DIR`).
 *
 *   npx tsx scripts/grounding-taxonomy.ts docs/results/levers/gemma3-270m/all/bfcl-simple_python-400/report.json [...]
 *   npx tsx scripts/grounding-taxonomy.ts --budget 4 --json DIR/report.json
 */
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parseArgs } from "node:util";
import {
  taxonomy,
  taxonomyTable,
  type TaxonomyQuestion,
  type TaxonomyRow,
  type TaxonomyRun,
} from "./lib/grounding-taxonomy.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { bfcl: { type: "string" }, budget: { type: "string" }, json: { type: "boolean" } },
});
if (positionals.length === 0) {
  process.stderr.write("usage: grounding-taxonomy.ts [--bfcl DIR] [--budget N] [--json] REPORT.json...\n");
  process.exit(2);
}

interface ReportFile {
  kind?: string;
  source?: string;
  runs: TaxonomyRun[];
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

const all: { path: string; row: TaxonomyRow }[] = [];
for (const path of positionals) {
  const report = JSON.parse(readFileSync(path, "utf8")) as ReportFile;
  const budget = values.budget === undefined ? undefined : Number(values.budget);
  const runs = report.runs.filter((run) => budget === undefined || run.budget === budget);
  for (const row of taxonomy(runs, questionsFor(report, path))) all.push({ path: dirname(path), row });
}
if (values.json) process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
else {
  const label = new Map(all.map(({ path, row }) => [row, `${path} · ${row.model} · budget ${row.budget}`]));
  process.stdout.write(
    `${taxonomyTable(
      all.map((a) => a.row),
      (row) => label.get(row) ?? "",
    )}\n`,
  );
}
