import { GROUNDING_MAX_RESULTS, GROUNDING_MAX_SOURCE_CHARS } from "../defaults.js";
import type { FailedValue, GroundingLever, GroundingMode, GroundingOptions } from "../model/model-handle.js";
import { PROMPTS_DIR, promptText } from "../prompt-texts.js";
import { readdirSync } from "node:fs";
import { isOwnEvent, type AgentEvent, type CallSkillEvent, type ToolErrorEvent } from "./events.js";
import type { AgentState } from "./agent-state.js";

/** The prompts/ files whose text the runtime shows the model as notes, feedback or placeholders (not instructions). */
const RUNTIME_TEXT_FOLDERS = ["", "feedback/", "tool-errors/", "references/"];

let runtimeTexts: string[] | undefined;

/**
 * The fixed pieces of every model-facing note, feedback and placeholder text in prompts/ (each file split at its
 * `{{placeholders}}`, pieces of 8 characters or more): what a small model copies into a value instead of the
 * question or the result (issue 26). Read once per process.
 */
export function runtimeNoteTexts(): readonly string[] {
  if (runtimeTexts) return runtimeTexts;
  const pieces = new Set<string>();
  for (const folder of RUNTIME_TEXT_FOLDERS) {
    for (const file of readdirSync(`${PROMPTS_DIR}${folder}`)) {
      if (!file.endsWith(".md")) continue;
      for (const piece of promptText(`${folder}${file.slice(0, -3)}`).split(/\{\{\w+\}\}/)) {
        const trimmed = piece.trim();
        if (trimmed.length >= 8) pieces.add(trimmed);
      }
    }
  }
  return (runtimeTexts = [...pieces]);
}

/** The run's newest skill results (its own depth), newest first, at most GROUNDING_MAX_RESULTS. */
function latestResults(events: readonly AgentEvent[], depth: number): string[] {
  const results: string[] = [];
  for (let i = events.length - 1; i >= 0 && results.length < GROUNDING_MAX_RESULTS; i--) {
    const event = events[i];
    if (isOwnEvent(event, depth) && event.type === "observation") results.push(event.result);
  }
  return results;
}

/** Per run: how many of its events were read for notes, and the distinct notes found (see runNotes). */
const notesRead = new WeakMap<
  AgentState,
  {
    events: number;
    notes: Set<string>;
    refused: Set<string>;
    failed: Map<string, FailedValue>;
    /** The newest call-skill event, whose tool-error may follow. */
    call?: CallSkillEvent;
  }
>();

/** The string arguments of `call` that a tool error's message quotes (`no entry for "widgets"`). */
function quotedArguments(call: CallSkillEvent | undefined, error: ToolErrorEvent): FailedValue[] {
  if (call?.skillName !== error.skillName || call.callIndex !== error.callIndex) return [];
  return Object.entries(call.arguments ?? {})
    .filter(([, value]) => typeof value === "string" && value.trim() !== "")
    .filter(([, value]) => error.message.includes(JSON.stringify(value)))
    .map(([key, value]): FailedValue => ({ skill: error.skillName, key, value: value as string }));
}

/** The final answer of a refused reply's raw JSON, where it parses as one. */
function refusedAnswer(raw: string): string | undefined {
  try {
    const answer = (JSON.parse(raw) as { final_answer?: unknown }).final_answer;
    return typeof answer === "string" && answer.trim() !== "" ? answer : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What the runtime told the model in this run (tool errors, validation feedback, warnings): texts not to copy. Read
 * incrementally, each event once per run (a 10,000-step run spent most of its time rescanning every event each step),
 * and each distinct text once.
 */
function runNotes(
  events: readonly AgentEvent[],
  state: AgentState,
): { notes: string[]; refused: string[]; failed: FailedValue[] } {
  let read = notesRead.get(state);
  if (!read) notesRead.set(state, (read = { events: 0, notes: new Set(), refused: new Set(), failed: new Map() }));
  for (; read.events < events.length; read.events++) {
    const event = events[read.events];
    if (!isOwnEvent(event, state.depth)) continue;
    if (event.type === "call-skill") read.call = event;
    else if (event.type === "tool-error") {
      read.notes.add(event.message);
      if (event.warning) read.notes.add(event.warning);
      for (const failed of quotedArguments(read.call, event))
        read.failed.set(`${failed.skill}\u0000${failed.key}\u0000${failed.value}`, failed);
    } else if (event.type === "validation-error") {
      read.notes.add(event.feedback);
      const answer = event.errorType === "copied_prompt_text" ? refusedAnswer(event.raw) : undefined;
      if (answer !== undefined) read.refused.add(answer);
    } else if (event.type === "observation" && event.warning) read.notes.add(event.warning);
  }
  return { notes: [...read.notes], refused: [...read.refused], failed: [...read.failed.values()] };
}

/** The user's earlier turns of the conversation (`Agent.invoke`), newest first. */
function userTurns(state: AgentState): string[] {
  const messages = state.history?.messages(0) ?? [];
  return messages
    .filter((m) => m.role === "user")
    .map((m) => m.content)
    .reverse();
}

/** Keep texts, in order, until GROUNDING_MAX_SOURCE_CHARS (the first one always, cut to the limit). */
function capped(texts: string[]): string[] {
  const kept: string[] = [];
  let total = 0;
  for (const text of texts) {
    if (text.trim() === "") continue;
    if (total + text.length > GROUNDING_MAX_SOURCE_CHARS) {
      if (kept.length === 0) kept.push(text.slice(0, GROUNDING_MAX_SOURCE_CHARS));
      break;
    }
    kept.push(text);
    total += text.length;
  }
  return kept;
}

/**
 * The grounding of one step's generate call (see GroundingOptions): for a step that may call, the question (or the
 * question's item the step's call takes), the conversation's user turns and the run's newest results (a later call may
 * carry an earlier result on; in a chain the newest result comes first); for a final round, the newest results first,
 * then the question. A step whose `calls` list takes several items carries them all (GroundingOptions.items). The
 * avoid list is the system prompt (instructions, skill descriptions and schemas), the runtime's notes in prompts/, and
 * what the runtime told the model in this run; the answers it refused as the prompt's text are `refused`, the values
 * of its calls that failed with an error that quotes them `failed`.
 * Undefined when `mode` is `off`.
 */
export function stepGrounding(
  mode: GroundingMode,
  state: AgentState,
  step: {
    finalRound: boolean;
    systemPrompt: string;
    levers?: readonly GroundingLever[];
    /** The question's items the step's calls take, in turn (see StepDecision.items): the first in the question's place. */
    items?: readonly string[];
    /** The newest result holds what the next call needs (a chain): it comes first. */
    chain?: boolean;
    /** In a chain, the newest result as the next call should read it (see StepDecision.chainSource). */
    chainSource?: string;
    /** The call's text with its arithmetic as the calculator writes it (see StepDecision.reading): copied too. */
    reading?: string;
    /** The values the run's earlier calls wrote (see GroundingOptions.taken). */
    taken?: readonly string[];
  },
): GroundingOptions | undefined {
  if (mode === "off") return undefined;
  const events = state.stream.toArray();
  const results = latestResults(events, state.depth);
  const question = step.items?.[0] ?? state.query;
  const { notes, refused, failed } = runNotes(events, state);
  // a call that takes an item of the question reads that item, not the results of the calls before (a BFCL result's
  // "The call was recorded." became the next item's value); a chain reads the newest result first
  const source = step.finalRound
    ? [...results, state.query]
    : step.chain
      ? [step.chainSource ?? results[0] ?? "", question, ...userTurns(state), ...results.slice(1)]
      : step.items?.length
        ? [question, ...(step.reading ? [step.reading] : []), ...userTurns(state)]
        : [question, ...(step.reading ? [step.reading] : []), ...userTurns(state), ...results];
  return {
    mode,
    ...(step.levers && { levers: step.levers }),
    source: capped(source),
    ...(step.items && step.items.length > 1 && { items: step.items }),
    ...(step.taken && step.taken.length > 0 && !step.finalRound && { taken: step.taken }),
    avoid: [step.systemPrompt, ...runtimeNoteTexts(), ...notes],
    ...(refused.length > 0 && { refused }),
    ...(failed.length > 0 && !step.finalRound && { failed }),
    question: state.query,
  };
}
