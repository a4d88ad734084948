/**
 * Parse JSON Lines: one JSON value per non-blank line, each handed to `accept` with its 1-based line number.
 * A line that is not JSON throws `makeError(message)`, naming the line; `accept` may throw its own errors.
 */
export function parseJsonLines<T>(
  text: string,
  accept: (value: unknown, line: number) => T,
  makeError: (message: string) => Error = (message) => new Error(message),
): T[] {
  const out: T[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw makeError(`line ${i + 1}: not JSON (${(error as Error).message})`);
    }
    out.push(accept(value, i + 1));
  });
  return out;
}
