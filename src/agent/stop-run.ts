import type { RefusedReply } from "../actions/action.js";
import type { AgentState } from "./agent-state.js";
import { isOwnEvent } from "./events.js";
import { summarizeEvent } from "./summarize-event.js";

/**
 * End a run at its iteration budget, as the loop and workflows both do: stop reason `max_iterations`, then a
 * `max-iterations` event with the last thing the run's own agent did and a deep copy of the state.
 */
export function stopAtMaxIterations(state: AgentState): void {
  const last = state.stream
    .toArray()
    .filter((e) => isOwnEvent(e, state.depth))
    .at(-1);
  state.finish("max_iterations");
  const partialState = state.snapshot();
  state.emit({
    type: "max-iterations",
    iterations: state.iterations,
    lastActionSummary: last ? summarizeEvent(last) : "no action",
    partialState,
  });
}

/** Count a refused reply against the run's retry budget and into its stats (by type; empty answers apart). */
export function countValidationError(state: AgentState, reply: RefusedReply): void {
  state.retries++;
  state.stats.validationErrors++;
  const key = reply.errorType ?? reply.validatorName;
  state.stats.validationErrorsByType[key] = (state.stats.validationErrorsByType[key] ?? 0) + 1;
  if (reply.validatorName === "non_empty_final_answer") state.stats.emptyAnswers++;
}
