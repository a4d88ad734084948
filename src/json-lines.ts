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

/**
 * `text` without a torn last line: a last line without its newline that is not JSON (its writer was killed, or the
 * power cut, in the middle of it) is dropped, so a reader takes the whole lines before it. A last line that parses is
 * whole (only its newline is missing) and stays; so does every newline-ended line, whatever it holds.
 */
export function withoutTornTail(text: string): string {
  const start = text.lastIndexOf("\n") + 1;
  const tail = text.slice(start);
  if (tail.trim() === "") return text;
  try {
    JSON.parse(tail);
    return text;
  } catch {
    return text.slice(0, start);
  }
}
