import { safeStringify } from "../safe-stringify.js";
import { oneLine } from "../one-line.js";
import type { AgentEvent } from "./events.js";

/** One line on an event, for logs, the CLI and `max-iterations`' lastActionSummary. */
export function summarizeEvent(event: AgentEvent): string {
  switch (event.type) {
    case "call-skill":
      return `call-skill ${event.skillName} ${oneLine(safeStringify(event.arguments))}${event.repeated ? " (repeat: earlier result shown)" : ""}`;
    case "call-skills":
      return `call-skills ${event.calls.map((c) => c.skillName).join(", ")}`;
    case "observation":
      return `observation from ${event.skillName}: ${oneLine(event.result)}`;
    case "tool-error":
      return `tool-error in ${event.skillName}: ${oneLine(event.message)}`;
    case "validation-error":
      return `validation-error (${event.errorType ?? event.validatorName}): ${oneLine(event.feedback)}`;
    case "final-answer":
      return `final-answer: ${oneLine(event.answer)}`;
    case "model-error":
      return `model-error: ${oneLine(event.message)}`;
    case "max-iterations":
      return `max-iterations after ${event.iterations}`;
    case "aborted":
      return `aborted: ${oneLine(event.reason)}`;
    case "final-round":
      return `final-round (${event.reason}): only a final answer allowed`;
    case "context-trimmed":
      return `context-trimmed: ${event.droppedSteps} oldest step(s) left out${event.promptStyle === "compact" ? ", system prompt compact" : ""}, prompt ${event.promptTokensBefore} -> ${event.promptTokensAfter} of ${event.contextSize} tokens`;
    case "model-call":
      return `model-call${event.name ? ` ${event.name}` : ""}: ${oneLine(event.raw)}`;
    case "workflow-error":
      return `workflow-error in ${event.workflow}: ${oneLine(event.message)}`;
    case "workflow-note":
      return `workflow-note ${event.label}: ${oneLine(event.message)}`;
    case "constraint-violated":
      return `constraint-violated (${event.constraint}): ${oneLine(event.message)}`;
    case "warning":
      return `warning (${event.code}): ${oneLine(event.message)}`;
    case "memory-summarized":
      return `memory-summarized: turns 1-${event.covers} now a summary of ${event.summaryTokens} tokens`;
    case "decision":
      return `decision: ${event.branches.map((b) => `${b.at} ${b.chosen}`).join(", ")}`;
  }
}
