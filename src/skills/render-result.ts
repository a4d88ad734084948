import { promptText } from "../prompt-texts.js";
import { safeStringify } from "../safe-stringify.js";

/**
 * What a skill returned, as text: strings as they are, undefined as the no-result note, anything else as JSON. Not
 * capped: the agent caps it where it enters the prompt (agent/build-messages.ts, capResult).
 */
export function renderResult(value: unknown): string {
  return typeof value === "string" ? value : value === undefined ? promptText("no-result") : safeStringify(value);
}
