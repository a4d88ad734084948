import { safeStringify } from "../skills/render-result.js";
import type { AgentEvent } from "./events.js";

function clip(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** One line on an event, for logs, the CLI and `max-iterations`' lastActionSummary. */
export function summarizeEvent(event: AgentEvent): string {
  switch (event.type) {
    case "call-skill":
      return `call-skill ${event.skillName} ${clip(safeStringify(event.arguments))}${event.repeated ? " (repeat: earlier result shown)" : ""}`;
    case "call-skills":
      return `call-skills ${event.calls.map((c) => c.skillName).join(", ")}`;
    case "observation":
      return `observation from ${event.skillName}: ${clip(event.result)}`;
    case "tool-error":
      return `tool-error in ${event.skillName}: ${clip(event.message)}`;
    case "validation-error":
      return `validation-error (${event.errorType ?? event.validatorName}): ${clip(event.feedback)}`;
    case "final-answer":
      return `final-answer: ${clip(event.answer)}`;
    case "model-error":
      return `model-error: ${clip(event.message)}`;
    case "max-iterations":
      return `max-iterations after ${event.iterations}`;
    case "aborted":
      return `aborted: ${clip(event.reason)}`;
    case "final-round":
      return `final-round (${event.reason}): only a final answer allowed`;
    case "context-trimmed":
      return `context-trimmed: ${event.droppedSteps} oldest step(s) left out, prompt ${event.promptTokensBefore} -> ${event.promptTokensAfter} of ${event.contextSize} tokens`;
  }
}
