import { DEFAULT_MAX_RESULT_CHARS } from "../../defaults.js";
import { isPlainObject } from "../../is-plain-object.js";
import { renderPrompt } from "../../prompt-texts.js";
import type { ModelHandle } from "../../model/model-handle.js";
import type { AgentState } from "../agent-state.js";
import { capResult } from "../build-messages.js";
import { dispatchCall } from "../dispatch-action.js";
import type { AgentEvent } from "../events.js";
import { askModel } from "./workflow-ask.js";
import {
  WorkflowCallError,
  type AgentCallOptions,
  type AgentTarget,
  type NestedAgent,
  type WorkflowContext,
  type WorkflowStateView,
} from "./workflow.js";
import type { WorkflowRun } from "./workflow-run.js";

/** `ctx.call`: one skill call through the loop's dispatch; its value, or a WorkflowCallError. */
async function callSkill(run: WorkflowRun, skillName: string, args: Record<string, unknown> = {}): Promise<unknown> {
  if (typeof skillName !== "string" || skillName === "") throw new TypeError("ctx.call: give a skill name");
  if (!isPlainObject(args)) throw new TypeError("ctx.call: arguments must be a plain object");
  run.ensureOpen();
  const { registry, dispatch } = run.env;
  const result = await dispatchCall({ skillName, arguments: args }, run.state, {
    registry,
    signal: run.signal,
    options: dispatch,
  });
  if (result.status === "aborted") throw run.stopAfterFailure() ?? run.stopAborted();
  run.ensureOpen();
  if (result.status === "failed") throw new WorkflowCallError(skillName, result.message, result.guard);
  return result.value;
}

function isNestedAgent(target: unknown): target is NestedAgent {
  return typeof (target as NestedAgent | undefined)?.runNested === "function";
}

/** The agent a target names: itself, one built from a spec on the run's model, or what its factory builds. */
async function nestedAgentOf(run: WorkflowRun, target: AgentTarget): Promise<NestedAgent> {
  const model: ModelHandle = run.env.model;
  if (typeof target === "function") {
    const built = await target(model);
    if (!isNestedAgent(built)) throw new TypeError("ctx.agent: the factory must return an Agent");
    return built;
  }
  if (isNestedAgent(target)) return target;
  if (isPlainObject(target)) return run.env.makeAgent({ ...target, model: target.model ?? model });
  throw new TypeError("ctx.agent: give an Agent, an agent's options, or a function of the model that builds one");
}

/** A nested agent that did not answer (or could not start): a tool-error, and the WorkflowCallError to throw. */
function agentFailed(run: WorkflowRun, name: string, message: string): WorkflowCallError {
  run.state.stats.toolErrors++;
  run.emit({ type: "tool-error", skillName: name, message, availableSkills: run.env.registry.names() });
  return new WorkflowCallError(name, message);
}

/** Fold a nested run's model calls and their cost into the run: they count in its budget and its stats. */
function countNested(state: AgentState, nested: AgentState): void {
  state.iterations += nested.iterations;
  for (const key of ["modelCalls", "promptTokens", "evaluatedPromptTokens", "generatedTokens", "modelMs"] as const)
    state.stats[key] += nested.stats[key];
}

/** `ctx.agent`: a nested loop run as one step (call-skill, its events one depth down, observation or tool-error). */
async function runAgent(
  run: WorkflowRun,
  target: AgentTarget,
  message: string,
  options: AgentCallOptions = {},
): Promise<string> {
  if (typeof message !== "string" || message.trim() === "")
    throw new TypeError("ctx.agent: message must be a non-empty string");
  run.ensureOpen();
  run.checkBudget();
  const spec = isPlainObject(target) && !isNestedAgent(target) ? target : undefined;
  const name = options.name ?? spec?.name ?? "agent";
  const depth = run.state.depth + 1;
  const agent = await nestedAgentOf(run, target);
  run.emit({ type: "call-skill", skillName: name, arguments: { task: message }, raw: "", origin: "workflow" });
  const left = run.iterationsLeft;
  run.state.stats.skillCalls++;
  const nested = await agent.runNested(
    message,
    {
      maxIterations: Math.min(options.maxIterations ?? left, left),
      maxRetries: options.maxRetries,
      signal: run.signal,
    },
    { depth, onEvent: (event: AgentEvent) => run.emit(event) },
  );
  countNested(run.state, nested);
  run.ensureOpen();
  if (nested.answer === undefined)
    throw agentFailed(
      run,
      name,
      renderPrompt("tool-errors/no-answer", { skill_name: name, stop_reason: String(nested.stopReason) }),
    );
  const maxChars = run.env.dispatch.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  const shown = capResult(nested.answer, maxChars);
  run.emit({ type: "observation", skillName: name, result: shown.text, ...(shown.truncated && { truncated: true }) });
  return nested.answer;
}

/** The read-only view of `ctx.state`: each read is a copy. */
function stateView(state: AgentState): WorkflowStateView {
  return Object.freeze({
    get query() {
      return state.query;
    },
    get iterations() {
      return state.iterations;
    },
    get retries() {
      return state.retries;
    },
    get stats() {
      return structuredClone(state.stats);
    },
    get events() {
      return state.stream.toArray();
    },
  });
}

/** The `ctx` a workflow gets: the run's public face (frozen; the run's internals stay out of reach). */
export function createContext(run: WorkflowRun): WorkflowContext {
  const { state, env, budgets } = run;
  const context = {
    query: state.query,
    signal: run.signal,
    get step() {
      return state.iterations;
    },
    state: stateView(state),
    budgets: Object.freeze({ maxIterations: budgets.maxIterations, maxRetries: budgets.maxRetries }),
    model: env.model,
    skills: Object.freeze(env.registry.names()),
    call: (skillName: string, args?: Record<string, unknown>) => callSkill(run, skillName, args),
    ask: (prompt: string, options?: object) => askModel(run, prompt, options),
    agent: (target: AgentTarget, message: string, options?: AgentCallOptions) =>
      runAgent(run, target, message, options),
    note: (label: string, message: string, data?: unknown) => {
      run.ensureOpen();
      run.emit({
        type: "workflow-note",
        label: String(label),
        message: String(message),
        ...(data !== undefined && { data }),
      });
    },
  };
  return Object.freeze(context) as WorkflowContext;
}
