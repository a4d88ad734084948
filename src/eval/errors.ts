import { readFileSync } from "node:fs";
import { CodedError } from "../coded-error.js";

/** Why an eval could not start. Stable: the CLI and tests switch on it. */
export type EvalSetupErrorCode =
  | "suite_not_found"
  | "suite_invalid"
  | "bfcl_not_found"
  | "bfcl_invalid"
  | "trace_invalid"
  | "profile_invalid"
  | "model_spec"
  | "unsupported";

/**
 * A setup problem of an eval (a suite file that does not validate, a missing BFCL category, an unknown model spec):
 * thrown before anything runs, with a message that names the file and, for validation errors, the bad field's path.
 */
export class EvalSetupError extends CodedError<EvalSetupErrorCode> {
  override readonly name = "EvalSetupError";
}

/**
 * The text of a file an eval reads (a suite, a report, a profile); a file that cannot be read is an
 * `EvalSetupError(code)` saying why in words: "cannot read <what> <path>: no such file".
 */
export function readEvalFile(path: string, code: EvalSetupErrorCode, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const errno = (error as NodeJS.ErrnoException).code;
    const why =
      errno === "ENOENT" ? "no such file" : errno === "EISDIR" ? "it is a directory" : (error as Error).message;
    throw new EvalSetupError(code, `cannot read ${what} ${path}: ${why}`, { cause: error });
  }
}
