import { resolveOutputSchema } from "../actions/parse-structured.js";
import type { JsonSchema } from "../json-schema.js";
import { TRIM_POLICIES, type MemoryOptions } from "../memory/memory-options.js";
import type { AgentState } from "./agent-state.js";
import { checkConstraints, type AgentConstraints } from "./run-limits.js";

/** The agent's run policies (part of AgentOptions), which these checks read. */
export interface AgentPolicies {
  /** Model calls per run when the run does not say (a definition's loop policy). Default: DEFAULT_MAX_ITERATIONS. */
  maxIterations?: number;
  /** Validation errors tolerated per run when the run does not say. Default: DEFAULT_MAX_RETRIES. */
  maxRetries?: number;
  /**
   * At the end of the iteration budget without an answer: `error` (default) ends the run without one;
   * `warn_and_return` returns the newest answer candidate (a refused final answer, else a skill result) with a
   * `warning` event (the stop reason stays `max_iterations`).
   */
  onMaxIterations?: "error" | "warn_and_return";
  /**
   * The JSON Schema the final answer must match: the grammar constrains `final_answer` to it, the parser checks it
   * (a mismatch is a validation error, fed back and retried), and the run's `reply` is the JSON value.
   */
  outputSchema?: JsonSchema;
  /** Latency, total tokens, forbidden patterns: exceeding one ends the run with `constraint_violated`. */
  constraints?: AgentConstraints;
  /** A conversation's memory (`invoke`): its token budget and trim policy. Default: the model's context. */
  memory?: MemoryOptions;
}

/** Throws (a caller bug) for agent-level budgets, policies, schema, constraints or memory that cannot be used. */
export function checkAgentPolicies(options: AgentPolicies): void {
  if (options.maxIterations !== undefined && !(Number.isInteger(options.maxIterations) && options.maxIterations >= 1))
    throw new RangeError(`Agent: maxIterations must be an integer >= 1 (got ${String(options.maxIterations)})`);
  if (options.maxRetries !== undefined && !(Number.isInteger(options.maxRetries) && options.maxRetries >= 0))
    throw new RangeError(`Agent: maxRetries must be an integer >= 0 (got ${String(options.maxRetries)})`);
  if (options.onMaxIterations !== undefined && !["error", "warn_and_return"].includes(options.onMaxIterations))
    throw new TypeError(
      `Agent: onMaxIterations must be "error" or "warn_and_return" (got ${String(options.onMaxIterations)})`,
    );
  if (options.outputSchema !== undefined) resolveOutputSchema(options.outputSchema);
  checkConstraints(options.constraints);
  const memory = options.memory;
  if (memory?.tokenBudget !== undefined && !(Number.isInteger(memory.tokenBudget) && memory.tokenBudget >= 1))
    throw new RangeError(`Agent: memory.tokenBudget must be an integer >= 1 (got ${String(memory.tokenBudget)})`);
  if (memory?.trimPolicy !== undefined && !TRIM_POLICIES.includes(memory.trimPolicy))
    throw new TypeError(
      `Agent: memory.trimPolicy must be ${TRIM_POLICIES.join(" or ")} (got ${String(memory.trimPolicy)})`,
    );
}

/** What the run's span records as its problem, when it stopped without an answer: its last failure event's text. */
export function lastProblem(state: AgentState): string | undefined {
  if (state.stopReason === "answer") return undefined;
  const last = state.stream
    .toArray()
    .findLast((e) => e.type === "model-error" || e.type === "constraint-violated" || e.type === "max-iterations");
  if (last?.type === "max-iterations") return `no answer after ${last.iterations} iterations`;
  return last && "message" in last ? last.message : undefined;
}
