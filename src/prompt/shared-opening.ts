import type { ChatFormat } from "./chat-format.js";

/**
 * How many characters of a prompt rendered in `format` with this system text come before anything that depends on
 * the run (the question, a conversation's history): the part a loader's prompt cache can keep across processes. Found
 * by rendering two different questions and taking what they share.
 */
export function sharedOpeningLength(format: ChatFormat, system: string): number {
  const a = format.render([
    { role: "system", content: system },
    { role: "user", content: "A" },
  ]);
  const b = format.render([
    { role: "system", content: system },
    { role: "user", content: "B" },
  ]);
  let n = 0;
  while (n < a.length && a[n] === b[n]) n++;
  return n;
}
