import { extname } from "node:path";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { EvalSetupError, readEvalFile } from "../errors.js";
import { suiteSchema, type Suite } from "./suite-schema.js";

/** `tasks[3].expected.matches` from a zod issue path. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) out += typeof key === "number" ? `[${key}]` : out === "" ? String(key) : `.${String(key)}`;
  return out || "(root)";
}

/** One line per issue: `path: message`, at most `limit` of them. */
export function formatIssues(error: z.ZodError, limit = 10): string {
  const lines = error.issues.slice(0, limit).map((issue) => `  ${formatIssuePath(issue.path)}: ${issue.message}`);
  if (error.issues.length > limit) lines.push(`  ... and ${error.issues.length - limit} more`);
  return lines.join("\n");
}

/**
 * Validate suite data (already parsed from JSON or YAML). Throws `EvalSetupError("suite_invalid")` whose message lists
 * each bad field by its path, e.g. `tasks[3].expected.matches: not a valid regular expression`.
 */
export function parseSuite(data: unknown, source = "suite"): Suite {
  const result = suiteSchema.safeParse(data);
  if (!result.success)
    throw new EvalSetupError("suite_invalid", `${source} is not a valid suite:\n${formatIssues(result.error)}`);
  return result.data;
}

/** Parse suite text: YAML for `.yaml`/`.yml`, JSON otherwise. Syntax errors name the file and position. */
export function parseSuiteText(text: string, source: string): Suite {
  const yaml = /\.ya?ml$/i.test(extname(source));
  let data: unknown;
  try {
    data = yaml ? parseYaml(text, { prettyErrors: true }) : JSON.parse(text);
  } catch (error) {
    const detail = (error as Error).message.split("\n")[0];
    throw new EvalSetupError("suite_invalid", `${source} is not valid ${yaml ? "YAML" : "JSON"}: ${detail}`, {
      cause: error,
    });
  }
  return parseSuite(data, source);
}

/** Read and validate a suite file (JSON, or YAML by extension). Throws `EvalSetupError` with code `suite_not_found` or `suite_invalid`. */
export function loadSuite(path: string): Suite {
  const text = readEvalFile(path, "suite_not_found", "suite");
  return parseSuiteText(text, path);
}
