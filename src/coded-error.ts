/**
 * The base of every setup or infrastructure error with a stable `code` that callers (the CLI, tests) switch on.
 * Subclasses set `name` and narrow `Code`; model and skill failures are values, not these:
 * they become events on the run's stream that the model is shown, and `Agent.run` never throws for them.
 */
export class CodedError<Code extends string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A thrown value as plain JSON, to cross a process boundary: the class name and message, and for a
 * {@link CodedError} its `code` (and the `path` some of them carry).
 */
export interface ErrorJson {
  name: string;
  message: string;
  /** Set for a CodedError only (a Node system error's `code` is not kept: it is not a setup error). */
  code?: string;
  path?: string;
}

/** `error` as {@link ErrorJson}; a thrown non-Error becomes an `Error` with its string as message. */
export function errorToJson(error: unknown): ErrorJson {
  if (!(error instanceof Error)) return { name: "Error", message: String(error) };
  const json: ErrorJson = { name: error.name, message: error.message };
  if (error instanceof CodedError) {
    json.code = error.code;
    const path = (error as { path?: unknown }).path;
    if (typeof path === "string") json.path = path;
  }
  return json;
}

/**
 * The error {@link errorToJson} described, rebuilt: a `CodedError` (named as the original class, with its code and
 * path) when it had a code, a plain `Error` of the same name otherwise.
 */
export function errorFromJson(json: ErrorJson): Error {
  const error: Error & { path?: string } =
    json.code === undefined ? new Error(json.message) : new CodedError(json.code, json.message);
  error.name = json.name;
  if (json.path !== undefined) error.path = json.path;
  return error;
}
