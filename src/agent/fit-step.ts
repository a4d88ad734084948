import { MEMORY_TRIM_TARGET } from "../defaults.js";
import { ContextOverflowError, fitContext, type ContextFit, type FitInput } from "../memory/fit-context.js";
import type { AgentState } from "./agent-state.js";
import { countSteps } from "./build-messages.js";
import { isOwnEvent } from "./events.js";
import type { PromptBudget } from "./prompt-budget.js";

/** The run's next prompt at trim level `drop`, with its system prompt in the compact style when `compact`. */
export type RenderStepPrompt = (drop: number, compact: boolean) => string;

/**
 * Measure the next prompt and, when prompt + reply would not fit the model's context (or the prompt the memory's
 * token budget), trim the oldest material: a conversation's history first (its old skill results, then its old
 * turns, in large chunks: to MEMORY_TRIM_TARGET of the limit), then the run's oldest steps. When even every earlier
 * step left out leaves too little room for a reply and `condense` says the agent has a compact system prompt to fall
 * back on, the run condenses its system prompt to the compact style, for this step and every later one (fitted again
 * from the trim level it had). A `context-trimmed` event records it (`promptStyle: "compact"` once condensed). Returns
 * the fit when it trimmed (its reply budget may be lower than the agent's). Throws ContextOverflowError when even the
 * newest step alone, under the shortest system prompt there is, is too large (the loop's model error).
 */
export async function fitStep(
  state: AgentState,
  budget: PromptBudget | undefined,
  render: RenderStepPrompt,
  options: { condense?: boolean } = {},
): Promise<ContextFit | undefined> {
  if (!budget) return undefined;
  const events = state.stream.toArray();
  const previous = events.findLast((e) => e.type === "context-trimmed" && isOwnEvent(e, state.depth));
  const trimmed = previous?.type === "context-trimmed" ? previous : undefined;
  const compact = trimmed?.promptStyle === "compact";
  const history = state.history?.levels ?? 0;
  const input: FitInput = {
    render: (drop) => render(drop, compact),
    countTokens: (prompt) => budget.counter.count(prompt),
    contextSize: budget.contextSize,
    replyTokens: budget.replyTokens,
    replyOverrun: budget.replyOverrun,
    dropped: trimmed ? (trimmed.historyLevel ?? 0) + trimmed.droppedSteps : 0,
    steps: history + countSteps(events, state.depth),
    ...(budget.tokenBudget !== undefined && { promptBudget: budget.tokenBudget }),
    ...(history > 0 && { trimTarget: { tokens: Math.floor(budget.limit * MEMORY_TRIM_TARGET), levels: history } }),
    ...(compact && { compact: true }),
  };
  let fit: ContextFit | undefined;
  let condensed = compact;
  try {
    fit = await fitContext(input);
  } catch (error) {
    if (compact || !options.condense || !(error instanceof ContextOverflowError)) throw error;
    fit = await condensedFit(input, render, error.promptTokensBefore);
    condensed = true;
  }
  if (!fit) return undefined;
  if (history > 0) fit = await summarizeDropped(state, condensed ? compactInput(input, render) : input, fit, history);
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
    ...(condensed && { promptStyle: "compact" as const }),
    step: state.iterations + 1,
  });
  return fit;
}

/**
 * Under `summarize_oldest` (the run's `summarizeHistory`): the turns of the history that `fit` leaves out and no
 * summary stands for yet are summarized before they leave the prompt, which then shows the summary in their place.
 * The prompt is measured again at the level reached (the summary may take more room than the note it replaces) and,
 * over the budget or the trim target, trimmed further, summarizing again any turn that trim leaves out. A failed
 * summary leaves the turns out without one (its warning says so), as the turn's first prompt does. Returns the fit
 * the prompt now has.
 */
async function summarizeDropped(
  state: AgentState,
  input: FitInput,
  fit: ContextFit,
  history: number,
): Promise<ContextFit> {
  const summarize = state.summarizeHistory;
  if (!summarize || !state.history) return fit;
  let current = fit;
  for (;;) {
    const level = Math.min(current.droppedSteps, history);
    if (state.history.droppedAt(level).length === 0 || !(await summarize(level))) return current;
    // what was dropped stays dropped; from there, fit (to the trim target) the prompt that shows the summary
    const again = await fitContext({ ...input, dropped: current.droppedSteps, trimming: true });
    current = { ...again!, promptTokensBefore: fit.promptTokensBefore };
  }
}

/** `input` with the system prompt in the compact style. */
function compactInput(input: FitInput, render: RenderStepPrompt): FitInput {
  return { ...input, render: (drop) => render(drop, true), compact: true };
}

/**
 * The fit with the system prompt in the compact style, from the trim level the run had (the compact prompt may keep
 * steps the full one had to leave out); `promptTokensBefore` is the full prompt's. Throws ContextOverflowError when
 * even the compact prompt leaves too little room.
 */
async function condensedFit(input: FitInput, render: RenderStepPrompt, fullTokens: number): Promise<ContextFit> {
  const compacted = compactInput(input, render);
  const fit = await fitContext(compacted);
  if (fit) return { ...fit, promptTokensBefore: fullTokens };
  return {
    droppedSteps: input.dropped,
    promptTokensBefore: fullTokens,
    promptTokensAfter: await input.countTokens(compacted.render(input.dropped)),
    replyTokens: input.replyTokens,
  };
}
