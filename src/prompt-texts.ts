import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The folder holding the model-facing text (`prompts/` at the package root; same path from src/ and dist/). */
export const PROMPTS_DIR = fileURLToPath(new URL("../prompts/", import.meta.url));

const cache = new Map<string, string>();

/** The text of `prompts/<name>.md`, read once per process, without its final newline. */
export function promptText(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(`${PROMPTS_DIR}${name}.md`, "utf8").replace(/\r\n/g, "\n").replace(/\n$/, "");
    cache.set(name, text);
  }
  return text;
}

/**
 * `prompts/<name>.md` with each `{{key}}` replaced by `values[key]`. Values are inserted literally (no `$` patterns,
 * no second pass), so untrusted text cannot inject placeholders. An unknown placeholder throws: a typo in a prompt
 * file must not reach the model.
 */
export function renderPrompt(name: string, values: Record<string, string | number> = {}): string {
  return promptText(name).replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    if (!Object.hasOwn(values, key)) throw new Error(`prompts/${name}.md uses {{${key}}}, which was not given`);
    return String(values[key]);
  });
}
