import { promptText, renderPrompt } from "../prompt-texts.js";
import { safeStringify } from "../safe-stringify.js";

/** Cut text to `maxChars`, with a note for the model saying how much was shown. */
export function capText(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  const note = renderPrompt("result-truncated", { shown: maxChars, total: text.length });
  return { text: `${text.slice(0, maxChars)}\n${note}`, truncated: true };
}

/** What a skill returned, as the text the model sees: strings as they are, anything else as JSON, then capped. */
export function renderResult(value: unknown, maxChars: number): { text: string; truncated: boolean } {
  const text = typeof value === "string" ? value : value === undefined ? promptText("no-result") : safeStringify(value);
  return capText(text, maxChars);
}
