import { fileURLToPath } from "node:url";
import { existsSync, readdirSync } from "node:fs";
import { parseJsonLines } from "../../json-lines.js";
import { join } from "node:path";
import { z } from "zod";
import { MAX_BFCL_FILE_BYTES } from "../defaults.js";
import { EvalSetupError, readEvalFile } from "../errors.js";
import { formatIssuePath } from "../schema-issues.js";

const messageSchema = z.object({ role: z.string(), content: z.string() });

/** A function as BFCL declares it; `parameters` is Python-flavoured JSON Schema. */
export const bfclFunctionSchema = z.object({
  name: z.string().min(1),
  description: z.string().default(""),
  parameters: z.record(z.string(), z.unknown()),
});
export type BfclFunction = z.infer<typeof bfclFunctionSchema>;

const questionLineSchema = z.object({
  id: z.string().min(1),
  /** Turns of messages; single-turn categories hold one turn. A flat list of messages is read as one turn. */
  question: z.union([z.array(z.array(messageSchema)), z.array(messageSchema)]),
  function: z.array(bfclFunctionSchema),
});

/** Allowed values per parameter, for each expected call: `[{"fn": {"param": [v1, v2, ""]}}]`. */
export const groundTruthSchema = z.array(
  z
    .record(z.string(), z.record(z.string(), z.array(z.unknown())))
    .refine((c) => Object.keys(c).length === 1, { error: "each expected call names exactly one function" }),
);
export type BfclGroundTruth = z.infer<typeof groundTruthSchema>;

const answerLineSchema = z.object({ id: z.string().min(1), ground_truth: groundTruthSchema });

/** One BFCL question, ready to run. */
export interface BfclQuestion {
  id: string;
  messages: { role: string; content: string }[];
  functions: BfclFunction[];
}

/** A category file and, when there is one, its ground truth. */
export interface BfclCategory {
  name: string;
  questionsPath: string;
  answersPath?: string;
  questions: BfclQuestion[];
  /** By question id; undefined when the category has no possible_answer file. */
  answers?: Map<string, BfclGroundTruth>;
}

/** A BFCL data file's lines, each checked against `schema`; read bounded (a regular file, MAX_BFCL_FILE_BYTES). */
function readJsonLines<T>(path: string, schema: z.ZodType<T>): T[] {
  const fail = (message: string) => new EvalSetupError("bfcl_invalid", `${path} ${message}`);
  return parseJsonLines(
    readEvalFile(path, "bfcl_invalid", "BFCL data", MAX_BFCL_FILE_BYTES),
    (value, line) => {
      const parsed = schema.safeParse(value);
      if (parsed.success) return parsed.data;
      const issue = parsed.error.issues[0];
      throw fail(`line ${line}: ${formatIssuePath(issue.path)}: ${issue.message}`);
    },
    fail,
  );
}

/**
 * The BFCL v4 data the package carries (five categories with their ground truth, Apache-2.0, origin and license in
 * `evals/bfcl/`): what `eval --bfcl` reads when no folder is given. Same path from src/ and dist/.
 */
export const BUNDLED_BFCL_DIR = fileURLToPath(new URL("../../../evals/bfcl/", import.meta.url));

/** The file name of a category: `simple_python` → `BFCL_v4_simple_python.json` (a full file name is kept as is). */
function bfclFileName(category: string): string {
  return category.endsWith(".json") ? category : `BFCL_v4_${category}.json`;
}

/**
 * Read `DIR/BFCL_v4_<name>.json` and, when present, `DIR/possible_answer/BFCL_v4_<name>.json` (JSON Lines, the
 * format of evals/bfcl/README.md). Throws `EvalSetupError` with `bfcl_not_found` (naming the file looked for)
 * or `bfcl_invalid` (naming the file, line and field).
 */
export function loadBfclCategory(dir: string, category: string): BfclCategory {
  const file = bfclFileName(category);
  const questionsPath = join(dir, file);
  if (!existsSync(questionsPath)) {
    const known = bfclCategories(dir);
    const listed =
      known.length > 0
        ? `; categories in ${dir}: ${known.join(", ")}`
        : existsSync(dir)
          ? `; ${dir} holds no BFCL_v4_<category>.json file`
          : `; there is no folder ${dir}`;
    throw new EvalSetupError("bfcl_not_found", `no BFCL category file ${questionsPath}${listed}`);
  }
  const questions = readJsonLines(questionsPath, questionLineSchema).map((q) => ({
    id: q.id,
    messages:
      q.question.length > 0 && Array.isArray(q.question[0])
        ? (q.question as { role: string; content: string }[][]).flat()
        : (q.question as { role: string; content: string }[]),
    functions: q.function,
  }));
  const answersPath = join(dir, "possible_answer", file);
  if (!existsSync(answersPath)) return { name: category.replace(/^BFCL_v4_|\.json$/g, ""), questionsPath, questions };
  const answers = new Map(readJsonLines(answersPath, answerLineSchema).map((a) => [a.id, a.ground_truth]));
  return { name: category.replace(/^BFCL_v4_|\.json$/g, ""), questionsPath, answersPath, questions, answers };
}

/** The categories a BFCL folder holds (`BFCL_v4_<name>.json` files), sorted; none when the folder cannot be read. */
function bfclCategories(dir: string): string[] {
  try {
    return readdirSync(dir)
      .map((name) => /^BFCL_v4_(.+)\.json$/.exec(name)?.[1])
      .filter((name): name is string => name !== undefined)
      .sort();
  } catch {
    return [];
  }
}

/** How a category is scored, from its name, as BFCL does: `parallel` before `multiple`; irrelevance means no call. */
export type BfclCheckKind = "simple" | "multiple" | "parallel" | "irrelevance" | "relevance";

export function bfclCheckKind(category: string): BfclCheckKind {
  if (category.includes("irrelevance")) return "irrelevance";
  if (category.includes("relevance")) return "relevance";
  if (category.includes("parallel")) return "parallel";
  if (category.includes("multiple")) return "multiple";
  return "simple";
}
