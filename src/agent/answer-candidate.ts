import type { AgentState } from "./agent-state.js";
import { isOwnEvent } from "./events.js";

/**
 * The run's newest answer candidate: a final answer it wrote that was refused (by the output schema or a validator),
 * or else a skill's result; blank ones are passed over. Undefined when the run has neither.
 */
function lastAnswerCandidate(state: AgentState): string | undefined {
  const events = state.stream.toArray();
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (!isOwnEvent(event, state.depth)) continue;
    const text =
      event.type === "validation-error" ? event.answer : event.type === "observation" ? event.result : undefined;
    if (text !== undefined && text.trim() !== "") return text;
  }
  return undefined;
}

/**
 * `onMaxIterations: "warn_and_return"`, after the budget ran out: the newest answer candidate becomes the run's
 * answer, with a `warning` event saying so (the stop reason stays `max_iterations`). Without a candidate the warning
 * says that too, and the run has no answer, as with `"error"`.
 */
export function returnAnswerCandidate(state: AgentState): void {
  const candidate = lastAnswerCandidate(state);
  if (candidate === undefined) {
    state.emit({
      type: "warning",
      code: "answer_at_max_iterations",
      message: `no answer after ${state.iterations} iterations, and no answer candidate to return`,
    });
    return;
  }
  state.finish("max_iterations", candidate);
  state.emit({
    type: "warning",
    code: "answer_at_max_iterations",
    message: `no final answer after ${state.iterations} iterations: returning the last answer candidate instead (on_max_iterations: warn_and_return)`,
  });
}
