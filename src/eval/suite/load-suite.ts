import { extname } from "node:path";
import { parse as parseYaml } from "yaml";
import { MAX_SUITE_FILE_BYTES } from "../defaults.js";
import { EvalSetupError, readEvalFile } from "../errors.js";
import { formatIssues } from "../schema-issues.js";
import { suiteSchema, type Suite } from "./suite-schema.js";

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

/**
 * Read and validate a suite file (JSON, or YAML by extension): a regular file of at most MAX_SUITE_FILE_BYTES (a FIFO
 * or device is refused without waiting on it). Throws `EvalSetupError` with code `suite_not_found` (not there, not a
 * regular file, too large) or `suite_invalid`.
 */
export function loadSuite(path: string): Suite {
  const text = readEvalFile(path, "suite_not_found", "suite", MAX_SUITE_FILE_BYTES);
  return parseSuiteText(text, path);
}
