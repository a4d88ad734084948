import type { ChatFormat } from "../prompt/chat-format.js";
import { renderPrompt } from "../prompt-texts.js";
import { oneLine } from "../one-line.js";
import { safeStringify } from "../safe-stringify.js";
import type { ConversationTurn } from "./conversation.js";

/** Longest summary kept, in characters (a runaway reply is cut). */
const MAX_SUMMARY_CHARS = 2_000;

/** The turns as plain lines for the summarizing prompt: each message, the calls made, the answer. */
function turnLines(turns: readonly ConversationTurn[]): string {
  return turns
    .map((turn) => {
      const calls = turn.calls.map(
        (c) =>
          `${c.skill} ${oneLine(safeStringify(c.arguments))} -> ${oneLine(c.result ?? `failed: ${c.error ?? ""}`)}`,
      );
      return [
        `User: ${turn.user}`,
        ...(calls.length ? [`(skills used: ${calls.join("; ")})`] : []),
        `You: ${turn.answer ?? "(no answer)"}`,
      ].join("\n");
    })
    .join("\n\n");
}

/**
 * The prompt that asks the model to summarize the oldest turns of a conversation (and the summary that stood for
 * the turns before them) for its own memory: `prompts/memory-summarize.md`, as one user turn of the model's chat
 * format, ready for a plain (unconstrained) generation.
 */
export function summaryPrompt(
  format: ChatFormat,
  turns: readonly ConversationTurn[],
  previous: string | undefined,
): string {
  const content = renderPrompt("memory-summarize", {
    previous: previous ? renderPrompt("memory-summary", { summary: previous }) + "\n\n" : "",
    turns: turnLines(turns),
  });
  return format.render([{ role: "user", content }]);
}

/** The summary as kept: trimmed, on at most MAX_SUMMARY_CHARS characters; empty text throws (no summary written). */
export function cleanSummary(text: string): string {
  const summary = text
    .trim()
    .replace(/^summary:\s*/i, "")
    .slice(0, MAX_SUMMARY_CHARS)
    .trim();
  if (summary === "") throw new Error("the model wrote an empty summary");
  return summary;
}
