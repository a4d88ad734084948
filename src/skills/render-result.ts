import { renderPrompt } from "../prompt/prompt-texts.js";

/**
 * JSON text of any value, however hostile: BigInt as its digits, cycles as "[Circular]", functions as
 * "[Function name]", Errors as {name, message}, symbols as their description, Maps and Sets as objects and arrays,
 * getters that throw as "[Unreadable: ...]". Never throws.
 */
export function safeStringify(value: unknown, space?: number): string {
  const seen = new WeakSet<object>();
  const replace = (_key: string, v: unknown): unknown => {
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "function") return `[Function ${v.name || "anonymous"}]`;
    if (typeof v === "symbol") return v.toString();
    if (v instanceof Error) return { name: v.name, message: v.message };
    if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), x]));
    if (v instanceof Set) return [...v];
    if (typeof v === "object" && v !== null) {
      if (seen.has(v)) return "[Circular]";
      seen.add(v);
    }
    return v;
  };
  try {
    return JSON.stringify(value, replace, space) ?? String(value);
  } catch (error) {
    return `[Unreadable: ${describeThrown(error)}]`;
  }
}

/** A thrown value's message, read safely (a hostile `message` getter or `toString` does not escape). */
export function describeThrown(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message || error.name);
    if (typeof error === "string") return error;
    return safeStringify(error);
  } catch {
    return "unreadable error";
  }
}

/** Cut text to `maxChars`, with a note for the model saying how much was shown. */
export function capText(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  const note = renderPrompt("result-truncated", { shown: maxChars, total: text.length });
  return { text: `${text.slice(0, maxChars)}\n${note}`, truncated: true };
}

/** What a skill returned, as the text the model sees: strings as they are, anything else as JSON, then capped. */
export function renderResult(value: unknown, maxChars: number): { text: string; truncated: boolean } {
  const text = typeof value === "string" ? value : value === undefined ? "(no result)" : safeStringify(value);
  return capText(text, maxChars);
}
