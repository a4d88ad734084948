import type { SkillCall } from "../../actions/action.js";
import type { AgentState } from "../../agent/agent-state.js";
import { collectCalls } from "../runner/collect-calls.js";

/** The part of a run BFCL scores: the calls of the model's turn, or why the turn never ended. */
export type BfclTurn = { finished: true; calls: SkillCall[] } | { finished: false; reason: string };

/**
 * What a BFCL question scores of an agent run. BFCL asks the model once and scores the function calls of that first
 * turn; in the agent loop a turn takes several steps (call, see the result, call again) and ends with the final
 * answer. So the calls scored are those made before the run's first final answer.
 *
 * A run that never answers:
 * - stopped by the budget (`max_iterations`): its turn was cut short, not finished. It fails. Scoring the calls made
 *   so far would let a larger budget lower a question's success: the same run, given one more step, may repeat a call
 *   ("expected 1 call(s), got 2").
 * - stopped on its own (retries exhausted: it could not write a valid reply any more): its turn is over, and it is
 *   judged on the calls it made, as BFCL judges the calls of a reply whatever text follows them. A larger budget
 *   changes nothing about such a run.
 * A model error or an abort ends no turn either (the runner fails or drops those runs).
 *
 * So, for a model that starts a run under a larger budget exactly as under a smaller one (the failure profiles, a
 * GGUF at temperature 0), a larger budget never lowers a question's success.
 */
export function bfclTurn(state: AgentState): BfclTurn {
  const events = state.stream.toArray();
  const answerAt = events.findIndex((e) => e.type === "final-answer" && (e.depth ?? 0) === state.depth);
  if (answerAt >= 0) return { finished: true, calls: collectCalls(events.slice(0, answerAt)) };
  if (state.stopReason === "retries_exhausted") return { finished: true, calls: collectCalls(events) };
  const why =
    state.stopReason === "max_iterations"
      ? `no final answer within ${state.iterations} iteration(s)`
      : `no final answer (${state.stopReason ?? "no stop reason"})`;
  return { finished: false, reason: `${why}: the turn never ended, so its calls are not scored` };
}
