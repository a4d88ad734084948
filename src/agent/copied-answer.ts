import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FinalAnswerAction, RefusedReply } from "../actions/action.js";
import { MIN_COPIED_ANSWER_CHARS } from "../defaults.js";
import { PROMPTS_DIR, promptText, renderPrompt } from "../prompt-texts.js";
import type { AgentState } from "./agent-state.js";
import { isOwnEvent } from "./events.js";

/** The validator name of a final answer that repeats the prompt's own text (a placeholder or an instruction). */
const ANSWER_NOT_PROMPT_TEXT = "answer_not_prompt_text";

/** Lower case, one space between words, no quotes, brackets or end punctuation around it. */
function normalized(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/^[\s"'`<>«»“”‘’.,:;!?()[\]]+|[\s"'`<>«»“”‘’.,:;!?()[\]]+$/g, "");
}

/** The placeholders the action format shows (prompts/action-examples.md) and the ellipses examples use. */
let placeholders: Set<string> | undefined;
function placeholderSet(): Set<string> {
  placeholders ??= new Set(
    [...promptText("action-examples").split("\n"), "...", "…", "{...}", "[...]"].map(normalized).concat([""]),
  );
  return placeholders;
}

/** Every literal piece of every model-facing text (prompts/**.md without its `{{slots}}`), normalized, read once. */
let fragments: string | undefined;
function promptFragments(): string {
  if (fragments !== undefined) return fragments;
  const files = readdirSync(PROMPTS_DIR, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md"));
  const pieces = files.flatMap((file) => readFileSync(join(PROMPTS_DIR, file), "utf8").split(/\{\{[^}]*\}\}|\n/));
  fragments = pieces
    .map(normalized)
    .filter((piece) => piece.length > 0)
    .join("\u0000");
  return fragments;
}

/**
 * What the answer may quote: the question, the conversation's earlier turns and every result (or failure message)
 * the run's own skills returned. Text found there is an answer's material, not the prompt's.
 */
function groundText(state: Readonly<AgentState>): string {
  const parts = [state.query];
  const history = state.history;
  if (history) parts.push(...history.messages(0).map((m) => m.content));
  for (const event of state.stream.toArray()) {
    if (!isOwnEvent(event, state.depth)) continue;
    if (event.type === "observation") parts.push(event.result);
    else if (event.type === "tool-error") parts.push(event.message);
  }
  return parts.map(normalized).join("\u0000");
}

/**
 * The prompt text a final answer repeats, or undefined when it is an answer: the action format's placeholder
 * (`<your answer, in full sentences>`, `...`) or punctuation alone, whatever its length; or, from
 * {@link MIN_COPIED_ANSWER_CHARS} characters on, a piece of the system prompt (instructions, skill descriptions and
 * schemas) or of any model-facing text of the runtime (feedback, nudges, the final round's line) that the question,
 * the conversation and the run's results do not hold. Case, spacing and surrounding quotes are ignored.
 */
export function copiedPromptText(
  answer: string,
  systemPrompt: string,
  state: Readonly<AgentState>,
): string | undefined {
  const text = normalized(answer);
  if (placeholderSet().has(text) || /^[\p{P}\p{S}\s]*$/u.test(text)) return answer.trim();
  if (text.length < MIN_COPIED_ANSWER_CHARS) return undefined;
  const inPrompt = normalized(systemPrompt).includes(text) || promptFragments().includes(text);
  if (!inPrompt || groundText(state).includes(text)) return undefined;
  return answer.trim();
}

/**
 * The validation error for a final answer that repeats the prompt's own text (see {@link copiedPromptText}), fed back
 * like an empty answer; undefined for an answer that does not. Answers under an output schema are JSON: not checked.
 */
export function refuseCopiedAnswer(
  action: FinalAnswerAction,
  systemPrompt: string,
  state: Readonly<AgentState>,
): RefusedReply | undefined {
  if (action.reply !== undefined) return undefined;
  const copied = copiedPromptText(action.answer, systemPrompt, state);
  if (copied === undefined) return undefined;
  const excerpt = copied.length > 80 ? `${copied.slice(0, 80)}…` : copied;
  return {
    type: "validation-error",
    validatorName: ANSWER_NOT_PROMPT_TEXT,
    errorType: "copied_prompt_text",
    feedback: renderPrompt("feedback/copied-answer", { copied: JSON.stringify(excerpt) }),
    raw: action.raw,
  };
}
