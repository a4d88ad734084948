/**
 * Issue 26's failure taxonomy of BFCL runs: for each failed run, the class of its first failing argument (the first of
 * the run's `failures`, as src/eval/bfcl/check-bfcl-calls.ts writes them) judged against the question's own text and
 * the function's schema. Pure: a report's runs and the questions in, counts out (scripts/grounding-taxonomy.ts reads
 * the files). The classifier reads the value the model wrote and the question; never BFCL's possible answers beyond
 * what the failure message already quotes.
 */

/**
 * A number of this many digits or more is degenerate: the longest number of simple_python's ground truth has 12 (`125700000000`), and the runaway
 * values the models write (`1000000000000`, `5000000000000000`, `-9007199254740991`) have 13 to 16.
 */
export const DEGENERATE_DIGITS = 13;

/** The classes, in the order a value is tested against them (the first that fits wins). */
export const TAXONOMY_CLASSES = [
  "degenerate_number",
  "runaway_string",
  "key_name",
  "schema_text",
  "question_span",
  "other_string",
  "question_number",
  "other_number",
  "wrong_type",
  "empty_list",
  "no_call",
  "no_answer",
  "extra_call",
  "missing_param",
  "other",
] as const;

/** One class of {@link TAXONOMY_CLASSES}. */
export type TaxonomyClass = (typeof TAXONOMY_CLASSES)[number];

/** What each class means, for a table's legend. */
export const TAXONOMY_LABELS: Readonly<Record<TaxonomyClass, string>> = Object.freeze({
  degenerate_number: `degenerate number (${DEGENERATE_DIGITS}+ digits)`,
  runaway_string: "runaway string (> 60 chars)",
  key_name: "the key's own name",
  schema_text: "text of the schema / a description",
  question_span: "another span of the question",
  other_string: "another string",
  question_number: "another number of the question",
  other_number: "another number",
  wrong_type: "boolean / list / dict / wrong type",
  empty_list: "empty list",
  no_call: "no call",
  no_answer: "no answer (turn never ended, calls not scored)",
  extra_call: "a second, different call",
  missing_param: "required parameter left out",
  other: "other (wrong function, unexpected parameter, ...)",
});

/** The question and functions a run answered, as the classifier needs them. */
export interface TaxonomyQuestion {
  /** The user turns' text. */
  text: string;
  /** The functions offered (BFCL's: name, description, parameters with descriptions). */
  functions: readonly unknown[];
}

/** The fields of a report's run record the taxonomy reads. */
export interface TaxonomyRun {
  model: string;
  taskId: string;
  budget: number;
  success: boolean;
  failures: readonly string[];
  errorType?: string;
}

/** A value failure, `param: <JSON> is not among [...]` or `param: expected type T, got <JSON>`, taken apart. */
export interface ValueFailure {
  param: string;
  value: unknown;
}

const VALUE_FAILURE = /^([^:]+): (.*) is not among (\[.*\])$/s;
const TYPE_FAILURE = /^([^:]+): expected type \S+, got (.*)$/s;

/** The parameter and the written value of a value or type failure message; undefined for other messages. */
export function parseValueFailure(message: string): ValueFailure | undefined {
  const match = VALUE_FAILURE.exec(message) ?? TYPE_FAILURE.exec(message);
  if (!match) return undefined;
  try {
    return { param: match[1], value: JSON.parse(match[2]) as unknown };
  } catch {
    return undefined;
  }
}

/** Lower case, underscores and runs of spaces as one space, trimmed: how a copied word is recognised. */
function normal(text: string): string {
  return text
    .toLowerCase()
    .replace(/[_\s]+/g, " ")
    .trim();
}

/** Every description, name and enum-free word of the functions' schemas, as one normalised text. */
function schemaText(functions: readonly unknown[]): string {
  const parts: string[] = [];
  const walk = (node: unknown, key?: string): void => {
    if (typeof node === "string") {
      if (key === "description" || key === "name" || key === "type") parts.push(node);
    } else if (Array.isArray(node)) {
      if (key !== "enum" && key !== "required") node.forEach((item) => walk(item));
    } else if (typeof node === "object" && node !== null) {
      for (const [k, v] of Object.entries(node)) walk(v, k);
    }
  };
  walk(functions);
  return normal(parts.join(" \n "));
}

/** The digits of a number as JSON writes it, sign, point and exponent left out. */
function digitCount(value: number): number {
  const [mantissa] = JSON.stringify(value).split(/e/i);
  return mantissa.replace(/\D/g, "").length + (Math.abs(value) >= 1e21 ? 21 : 0);
}

/** The numerals of a text, as numbers (`2,340` → 2340). */
function numerals(text: string): number[] {
  return (text.match(/-?\d[\d,]*(\.\d+)?/g) ?? []).map((n) => Number(n.replace(/,/g, "")));
}

/** The class of a string value. */
function classifyString(value: string, param: string, question: TaxonomyQuestion): TaxonomyClass {
  if (value.length > 60) return "runaway_string";
  const v = normal(value);
  if (v !== "" && v === normal(param)) return "key_name";
  const inQuestion = v !== "" && normal(question.text).includes(v);
  if (v !== "" && !inQuestion && schemaText(question.functions).includes(v)) return "schema_text";
  return inQuestion ? "question_span" : "other_string";
}

/** The class of a value the checker refused, by what was written. */
export function classifyValue(failure: ValueFailure, question: TaxonomyQuestion): TaxonomyClass {
  const { value, param } = failure;
  if (typeof value === "number") {
    if (digitCount(value) >= DEGENERATE_DIGITS) return "degenerate_number";
    return numerals(question.text).includes(value) ? "question_number" : "other_number";
  }
  if (typeof value === "string") return classifyString(value, param, question);
  if (Array.isArray(value) && value.length === 0) return "empty_list";
  return "wrong_type";
}

/** The class of one failed run (its first failure); undefined for a run that succeeded. */
export function classifyRun(run: TaxonomyRun, question: TaxonomyQuestion | undefined): TaxonomyClass | undefined {
  if (run.success) return undefined;
  const first = run.failures[0] ?? "";
  const type = run.errorType ?? "";
  if (type.endsWith(":missing_required") || type.endsWith(":missing_optional")) return "missing_param";
  if (first.endsWith("the turn never ended, so its calls are not scored")) return "no_answer";
  if (type.endsWith(":wrong_count")) return first.endsWith(" got 0") ? "no_call" : "extra_call";
  const failure = parseValueFailure(first);
  if (failure === undefined || question === undefined) return "other";
  return classifyValue(failure, question);
}

/** The taxonomy of one model under one budget: runs, successes and failed runs per class. */
export interface TaxonomyRow {
  model: string;
  budget: number;
  runs: number;
  successes: number;
  counts: Record<TaxonomyClass, number>;
}

function emptyCounts(): Record<TaxonomyClass, number> {
  return Object.fromEntries(TAXONOMY_CLASSES.map((c) => [c, 0])) as Record<TaxonomyClass, number>;
}

/** Count a report's runs per model and budget: successes, and each failed run under its class. */
export function taxonomy(
  runs: readonly TaxonomyRun[],
  questions: ReadonlyMap<string, TaxonomyQuestion>,
): TaxonomyRow[] {
  const rows = new Map<string, TaxonomyRow>();
  for (const run of runs) {
    const key = `${run.model}\u0000${run.budget}`;
    let row = rows.get(key);
    if (!row) {
      row = { model: run.model, budget: run.budget, runs: 0, successes: 0, counts: emptyCounts() };
      rows.set(key, row);
    }
    row.runs += 1;
    const cls = classifyRun(run, questions.get(run.taskId));
    if (cls === undefined) row.successes += 1;
    else row.counts[cls] += 1;
  }
  return [...rows.values()];
}

/** The rows as one Markdown table: a column per class that any row counts. */
export function taxonomyTable(rows: readonly TaxonomyRow[], label: (row: TaxonomyRow) => string): string {
  const used = TAXONOMY_CLASSES.filter((c) => rows.some((row) => row.counts[c] > 0));
  const head = ["run", "success", ...used.map((c) => TAXONOMY_LABELS[c])];
  const lines = [`| ${head.join(" | ")} |`, `| ${head.map(() => "---").join(" | ")} |`];
  for (const row of rows) {
    const rate = row.runs ? ((100 * row.successes) / row.runs).toFixed(1) : "0.0";
    const cells = [label(row), `${rate}% (${row.successes}/${row.runs})`, ...used.map((c) => String(row.counts[c]))];
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

/** The classes of a suite run's answer (evals/basic.json and the like), in the order they are tested. */
export const ANSWER_CLASSES = ["no_answer", "prompt_text", "question_text", "other_answer"] as const;

/** One class of {@link ANSWER_CLASSES}. */
export type AnswerClass = (typeof ANSWER_CLASSES)[number];

/** What each answer class means, for a table's legend. */
export const ANSWER_LABELS: Readonly<Record<AnswerClass, string>> = Object.freeze({
  no_answer: "no answer (budget or retries ran out)",
  prompt_text: "the prompt's own text (placeholder, instruction, description)",
  question_text: "the question's own text",
  other_answer: "another wrong answer",
});

/** The fields of a suite run the answer classes read. */
export interface AnswerRun extends TaxonomyRun {
  answer?: string;
}

/** Lower case, one space between words, no quotes, brackets or end punctuation around it. */
function bare(text: string): string {
  return normal(text).replace(/^[\s"'`<>.,:;!?()[\]{}]+|[\s"'`<>.,:;!?()[\]{}]+$/g, "");
}

/**
 * The class of a failed suite run's answer: none; a piece of the runtime's own text (`promptTexts`: the prompt files,
 * the skills' descriptions) at least 4 characters long; the question's text; anything else. Undefined for a success.
 */
export function classifyAnswer(run: AnswerRun, question: string, promptTexts: string): AnswerClass | undefined {
  if (run.success) return undefined;
  if (run.answer === undefined) return "no_answer";
  const answer = bare(run.answer);
  if (answer.length >= 4 && normal(promptTexts).includes(answer)) return "prompt_text";
  if (answer.length >= 4 && normal(question).includes(answer)) return "question_text";
  return "other_answer";
}
