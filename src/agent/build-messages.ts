import { MAX_REPLY_CHARS_IN_PROMPT } from "../defaults.js";
import type { ChatMessage } from "../prompt/chat-format.js";
import { renderPrompt } from "../prompt/prompt-texts.js";
import type { AgentEvent, ObservationEvent, ToolErrorEvent } from "./events.js";

/** A reply shown back to the model, capped so a runaway generation cannot fill the context. */
function replyText(raw: string): string {
  return raw.length <= MAX_REPLY_CHARS_IN_PROMPT ? raw : `${raw.slice(0, MAX_REPLY_CHARS_IN_PROMPT)} …[cut]`;
}

/** What the model sees after a skill ran or failed. */
export function observationText(event: ObservationEvent | ToolErrorEvent): string {
  if (event.type === "tool-error") {
    return renderPrompt("tool-error", { skill_name: event.skillName, message: event.message, available_skills: event.availableSkills.join(", ") || "none" });
  }
  const text = renderPrompt("observation", { skill_name: event.skillName, result: event.result });
  return event.warning ? `${text}\n${event.warning}` : text;
}

/**
 * The conversation of a run so far: the system prompt, the query, then for each step the model's reply as it wrote
 * it and, as the next user turn, what came of it (results, errors, feedback). Built only from the events, in order,
 * so the rendered prompt of step k+1 begins with the prompt of step k. Events forwarded from nested agents (a depth
 * other than `depth`, the depth of the agent whose conversation this is) are not part of it.
 */
export function buildMessages(system: string, query: string, events: readonly AgentEvent[], depth = 0): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: "system", content: system }, { role: "user", content: query }];
  let feedback: string[] = [];
  const flush = () => {
    if (feedback.length) messages.push({ role: "user", content: feedback.join("\n\n") });
    feedback = [];
  };
  for (const event of events) {
    if ((event.depth ?? 0) !== depth) continue;
    switch (event.type) {
      case "call-skill":
        if (event.callIndex !== undefined) break; // part of a call-skills reply, already shown
      // falls through
      case "call-skills":
      case "final-answer":
        flush();
        messages.push({ role: "model", content: replyText(event.raw) });
        break;
      case "validation-error":
        flush();
        messages.push({ role: "model", content: replyText(event.raw) });
        feedback.push(event.feedback);
        break;
      case "observation":
      case "tool-error":
        feedback.push(observationText(event));
        break;
      default:
        break;
    }
  }
  flush();
  return messages;
}
