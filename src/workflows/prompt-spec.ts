/** How a pattern takes the prompt of one of its model calls: text, a function that writes it, or both with a system text. */
export type PromptSpec<Args extends unknown[]> =
  string | ((...args: Args) => string) | { prompt?: string | ((...args: Args) => string); system?: string };

/** A prompt spec as an object: `{ prompt?, system? }` (undefined: the pattern's default prompt, no system text). */
export function promptParts<Args extends unknown[]>(
  spec: PromptSpec<Args> | undefined,
): { prompt?: string | ((...args: Args) => string); system?: string } {
  if (spec === undefined) return {};
  if (typeof spec === "string" || typeof spec === "function") return { prompt: spec };
  if (typeof spec !== "object" || spec === null)
    throw new TypeError("a prompt is text, a function, or { prompt, system }");
  return spec;
}

/**
 * The prompt's text: its function's text for `args`; its text followed by `rest` (what the default would show);
 * else the pattern's default.
 */
export function promptFrom<Args extends unknown[]>(
  parts: { prompt?: string | ((...args: Args) => string) },
  args: Args,
  rest: string,
  fallback: () => string,
): string {
  if (typeof parts.prompt === "function") return parts.prompt(...args);
  if (typeof parts.prompt === "string") return `${parts.prompt}\n\n${rest}`;
  return fallback();
}
