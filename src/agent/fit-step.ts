import { MEMORY_TRIM_TARGET } from "../defaults.js";
import { fitContext, type ContextFit } from "../memory/fit-context.js";
import type { AgentState } from "./agent-state.js";
import { countSteps } from "./build-messages.js";
import { isOwnEvent } from "./events.js";
import type { PromptBudget } from "./prompt-budget.js";

/**
 * Measure the next prompt and, when prompt + reply would not fit the model's context (or the prompt the memory's
 * token budget), trim the oldest material: a conversation's history first (its old skill results, then its old
 * turns, in large chunks: to MEMORY_TRIM_TARGET of the limit), then the run's oldest steps. A `context-trimmed` event
 * records it. Returns the fit when it trimmed (its reply budget may be lower than the agent's). Throws
 * ContextOverflowError when even the newest step alone is too large (the loop's model error).
 */
export async function fitStep(
  state: AgentState,
  budget: PromptBudget | undefined,
  render: (drop: number) => string,
): Promise<ContextFit | undefined> {
  if (!budget) return undefined;
  const events = state.stream.toArray();
  const previous = events.findLast((e) => e.type === "context-trimmed" && isOwnEvent(e, state.depth));
  const history = state.history?.levels ?? 0;
  const fit = await fitContext({
    render,
    countTokens: (prompt) => budget.counter.count(prompt),
    contextSize: budget.contextSize,
    replyTokens: budget.replyTokens,
    replyOverrun: budget.replyOverrun,
    dropped: previous?.type === "context-trimmed" ? (previous.historyLevel ?? 0) + previous.droppedSteps : 0,
    steps: history + countSteps(events, state.depth),
    ...(budget.tokenBudget !== undefined && { promptBudget: budget.tokenBudget }),
    ...(history > 0 && { trimTarget: { tokens: Math.floor(budget.limit * MEMORY_TRIM_TARGET), levels: history } }),
  });
  if (!fit) return undefined;
  state.stats.contextTrims++;
  state.emit({
    type: "context-trimmed",
    droppedSteps: Math.max(0, fit.droppedSteps - history),
    promptTokensBefore: fit.promptTokensBefore,
    promptTokensAfter: fit.promptTokensAfter,
    contextSize: Number.isFinite(budget.contextSize) ? budget.contextSize : (budget.tokenBudget ?? 0),
    replyTokens: fit.replyTokens,
    ...(history > 0 && { historyLevel: Math.min(fit.droppedSteps, history) }),
    ...(budget.tokenBudget !== undefined && { tokenBudget: budget.tokenBudget }),
    ...(budget.counter.estimated && { estimated: true as const }),
    step: state.iterations + 1,
  });
  return fit;
}
