import type { AgentEvent } from "../agent/events.js";
import { oneLine } from "../one-line.js";
import { safeStringify } from "../safe-stringify.js";

/** The progress line for an event on stderr (undefined: nothing worth a line). Nested events are indented. */
export function renderEvent(event: AgentEvent): string | undefined {
  const indent = "  ".repeat(1 + (event.depth ?? 0));
  const step = `${indent}[${event.step}]`;
  switch (event.type) {
    case "call-skill":
      return `${step} → ${event.skillName} ${oneLine(safeStringify(event.arguments))}${event.originalArguments ? ` (corrected from ${oneLine(safeStringify(event.originalArguments))})` : ""}${event.repeated ? " (repeat: not run again)" : ""}`;
    case "call-skills":
      return `${step} → ${event.calls.length} calls: ${event.calls.map((c) => c.skillName).join(", ")}`;
    case "observation":
      return `${step}   = ${oneLine(event.result)}${event.truncated ? " (cut)" : ""}${event.warning ? " (repeated call)" : ""}`;
    case "tool-error":
      return `${step}   ✗ ${event.skillName}${event.guard ? ` [${event.guard}]` : ""}${event.warning ? " (same error again)" : ""}: ${oneLine(event.message)}`;
    case "validation-error":
      return `${step} ✗ invalid reply (${event.errorType ?? event.validatorName}): ${oneLine(event.feedback)}`;
    case "final-answer":
      return `${step} ✓ answered`;
    case "max-iterations":
      return `${indent}stopped: no answer after ${event.iterations} iterations`;
    case "model-error":
      return `${indent}model error: ${oneLine(event.message)}`;
    case "aborted":
      return `${indent}aborted: ${oneLine(event.reason)}`;
    case "final-round":
      return `${indent}[${event.step}] final round (${event.reason === "budget" ? "last step of the budget" : event.reason === "done" ? "the results are in" : "after a repeated call"}): answer only`;
    case "context-trimmed":
      return `${indent}[${event.step}] context: ${event.droppedSteps} oldest step(s) left out${event.promptStyle === "compact" ? ", system prompt in the compact style" : ""} (prompt ${event.promptTokensBefore} → ${event.promptTokensAfter} of ${event.contextSize} tokens)`;
    case "model-call":
      return `${step} ${event.name ?? "ask"}${event.attempt > 1 ? ` (try ${event.attempt})` : ""}: ${oneLine(event.raw)}`;
    case "workflow-error":
      return `${indent}workflow ${event.workflow} failed: ${oneLine(event.message)}`;
    case "workflow-note":
      return `${indent}[${event.step}] ${event.label}: ${oneLine(event.message)}`;
    case "constraint-violated":
      return `${indent}stopped: ${oneLine(event.message)}`;
    case "warning":
      return `${indent}warning: ${oneLine(event.message)}`;
    case "memory-summarized":
      return `${indent}memory: turns up to ${event.covers} summarized (${event.summaryTokens} tokens)`;
    case "decision":
      return undefined;
  }
}
