/**
 * The base of every setup or infrastructure error with a stable `code` that callers (the CLI, tests) switch on.
 * Subclasses set `name` and narrow `Code`; model and skill failures are values, not these (see DESIGN.md).
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
