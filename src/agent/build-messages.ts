import { MAX_REPLY_CHARS_IN_PROMPT } from "../defaults.js";
import type { ChatMessage } from "../prompt/chat-format.js";
import { promptText, renderPrompt } from "../prompt/prompt-texts.js";
import type { AgentEvent, ObservationEvent, ToolErrorEvent } from "./events.js";

/** A reply shown back to the model, capped so a runaway generation cannot fill the context. */
function replyText(raw: string): string {
  return raw.length <= MAX_REPLY_CHARS_IN_PROMPT ? raw : `${raw.slice(0, MAX_REPLY_CHARS_IN_PROMPT)} …[cut]`;
}

/** What the model sees after a skill ran or failed. */
export function observationText(event: ObservationEvent | ToolErrorEvent): string {
  const text = event.type === "tool-error"
    ? renderPrompt("tool-error", { skill_name: event.skillName, message: event.message, available_skills: event.availableSkills.join(", ") || "none" })
    : renderPrompt("observation", { skill_name: event.skillName, result: event.result });
  return event.warning ? `${text}\n${event.warning}` : text;
}

/** What the model is told when a final round starts (see FinalRoundEvent). */
export function finalRoundText(): string {
  return promptText("final-round");
}

/** How many of the oldest steps the prompt leaves out: the newest `context-trimmed` event of this conversation says. */
function droppedSteps(events: readonly AgentEvent[], depth: number): number {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event.type === "context-trimmed" && (event.depth ?? 0) === depth) return event.droppedSteps;
  }
  return 0;
}

/**
 * The conversation of a run so far: the system prompt, the query, then for each step the model's reply as it wrote
 * it and, as the next user turn, what came of it (results, errors, feedback, a final-round note). Built only from the
 * events, in order, so the rendered prompt of step k+1 begins with the prompt of step k, except after a
 * `context-trimmed` event: from then on its `droppedSteps` oldest steps are left out (a note after the question says
 * how many; `options.droppedSteps` renders another count, to measure it). Events forwarded from nested agents (a depth other than `depth`, the depth of the agent whose
 * conversation this is) are not part of it.
 */
export function buildMessages(system: string, query: string, events: readonly AgentEvent[], depth = 0, options: { droppedSteps?: number } = {}): ChatMessage[] {
  const drop = options.droppedSteps ?? droppedSteps(events, depth);
  const question = drop > 0 ? `${query}\n\n${renderPrompt("context-trimmed", { count: drop })}` : query;
  const messages: ChatMessage[] = [{ role: "system", content: system }, { role: "user", content: question }];
  let feedback: string[] = [];
  let steps = 0;
  const shown = () => steps === 0 || steps > drop;
  const flush = () => {
    if (feedback.length && shown()) messages.push({ role: "user", content: feedback.join("\n\n") });
    feedback = [];
  };
  const reply = (raw: string) => {
    flush();
    steps++;
    if (shown()) messages.push({ role: "model", content: replyText(raw) });
  };
  for (const event of events) {
    if ((event.depth ?? 0) !== depth) continue;
    switch (event.type) {
      case "call-skill":
        if (event.callIndex !== undefined) break; // part of a call-skills reply, already shown
      // falls through
      case "call-skills":
      case "final-answer":
        reply(event.raw);
        break;
      case "validation-error":
        reply(event.raw);
        feedback.push(event.feedback);
        break;
      case "observation":
      case "tool-error":
        feedback.push(observationText(event));
        break;
      case "final-round":
        feedback.push(finalRoundText());
        break;
      default:
        break;
    }
  }
  flush();
  return messages;
}

/** Model replies (steps) of this conversation so far: what `droppedSteps` counts. */
export function countSteps(events: readonly AgentEvent[], depth = 0): number {
  return events.filter((e) => (e.depth ?? 0) === depth && (e.type === "validation-error" || e.type === "final-answer" || e.type === "call-skills" || (e.type === "call-skill" && e.callIndex === undefined))).length;
}
