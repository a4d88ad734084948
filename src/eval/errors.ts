import { CodedError } from "../coded-error.js";
import { readRegularText, RegularFileError } from "../regular-file.js";

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
 * The text of a file an eval reads (a suite, a report, a profile), through the bounded reader: a regular file of at
 * most `maxBytes` (a FIFO, device or folder is refused at once, never waited on; the size is checked before a byte is
 * read). A file that cannot be read is an `EvalSetupError(code)` saying why in one line: "cannot read <what> <path>: no
 * such file", "<what> <path> is not a regular file ...", "<what> <path>: N bytes, over the M-byte limit ...".
 */
export function readEvalFile(path: string, code: EvalSetupErrorCode, what: string, maxBytes: number): string {
  try {
    return readRegularText(path, maxBytes, `a ${what} file`);
  } catch (error) {
    const missing = error instanceof RegularFileError && error.code === "not_found";
    const message = missing ? `cannot read ${what} ${path}: no such file` : `${what} ${(error as Error).message}`;
    throw new EvalSetupError(code, message, { cause: error });
  }
}
