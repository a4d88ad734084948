import type { CallSkillAction, CallSkillsAction } from "../actions/action.js";
import type { Registry } from "../skills/registry.js";
import { executeCall } from "../skills/execute-call.js";
import type { AgentState } from "./agent-state.js";

/** Agent options that shape how skills run. */
export interface DispatchOptions {
  /** Per-skill timeout, ms. Default 30,000 (a skill's own `timeoutMs` wins). */
  skillTimeoutMs?: number;
  /** Results enter the prompt capped at this many characters. Default 4,000. */
  maxResultChars?: number;
  /** Nesting depth of this agent (set by agentAsSkill). Default 0. */
  depth?: number;
}

/** What dispatch needs from the loop. */
export interface DispatchContext {
  registry: Registry;
  signal?: AbortSignal;
  options: DispatchOptions;
}

/**
 * Run the calls of an action and put what came of them on the stream: `call-skill`, then `observation` or
 * `tool-error`. Returns "aborted" when the run's signal stopped it.
 */
export async function dispatchAction(action: CallSkillAction | CallSkillsAction, state: AgentState, ctx: DispatchContext): Promise<"done" | "aborted"> {
  if (action.type === "call-skills") throw new Error("parallel calls are not implemented yet");
  state.emit(action);
  state.stats.skillCalls++;
  const outcome = await executeCall(action, {
    registry: ctx.registry,
    signal: ctx.signal,
    state: { query: state.query, iterations: state.iterations },
    timeoutMs: ctx.options.skillTimeoutMs,
    maxResultChars: ctx.options.maxResultChars,
  });
  if (!outcome.ok && outcome.aborted) return "aborted";
  if (outcome.ok) {
    state.emit({ type: "observation", skillName: action.skillName, result: outcome.text, ...(outcome.truncated && { truncated: true }) });
  } else {
    state.stats.toolErrors++;
    state.emit({ type: "tool-error", skillName: action.skillName, message: outcome.message, availableSkills: ctx.registry.names(), ...(outcome.guard && { guard: outcome.guard }) });
  }
  return "done";
}
