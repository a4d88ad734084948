import type { z } from "zod";
import type { OutputSchema } from "../../actions/parse-structured.js";
import type { JsonSchema } from "../../json-schema.js";
import type { ModelHandle } from "../../model/model-handle.js";
import type { Registry } from "../../skills/registry.js";
import type { AgentState } from "../agent-state.js";
import type { AgentEvent, RunStats, StopReason } from "../events.js";

/** Options of one `ctx.ask`. */
export interface AskOptions {
  /**
   * The shape of the reply: a zod schema or a JSON Schema. With one, the reply is constrained by it (when the agent's
   * grammar is on), validated, and returned as the typed value; a reply that fails is a `validation-error`, retried
   * within the run's retry budget. Without one, the reply is returned as text.
   */
  schema?: OutputSchema;
  /** System text for this call. Default: none (a narrow call needs only its prompt). */
  system?: string;
  /** Tokens the reply may take. Default: the agent's `maxTokens` (512). */
  maxTokens?: number;
  /** Sampling temperature. Default: the agent's (or the model's own). */
  temperature?: number;
  /** A label for the call, shown on its `model-call` event (e.g. `classify`). */
  name?: string;
}

/** An agent `ctx.agent` can run: an `Agent` (anything with its `runNested`). */
export interface NestedAgent {
  runNested(
    query: string,
    options: { maxIterations?: number; maxRetries?: number; signal?: AbortSignal },
    nesting: { depth: number; onEvent: (event: AgentEvent) => void },
  ): Promise<AgentState>;
}

/** A new agent on the run's model: the options of an `Agent` without `model` (checked when it is built). */
export interface AgentSpec {
  /** The skills the nested agent may call. */
  registry: Registry;
  /** Its name on the events (the `call-skill` that starts it). Default `agent`. */
  name?: string;
  /** Its model. Default: the run's. */
  model?: ModelHandle;
  /** Any other Agent option (soul, validators, grammar, ...). */
  [option: string]: unknown;
}

/**
 * What `ctx.agent` runs: an Agent, the options of a new one on the run's model, or a function of the run's model that
 * builds one (e.g. `(model) => agentFromDefinition(definition, { model })`).
 */
export type AgentTarget = NestedAgent | AgentSpec | ((model: ModelHandle) => NestedAgent | Promise<NestedAgent>);

/** Options of one `ctx.agent`. */
export interface AgentCallOptions {
  /** Its name on the events. Default: the spec's `name`, else `agent`. */
  name?: string;
  /** Model calls the nested run may make. Default and ceiling: what the run's budget has left (they count in it). */
  maxIterations?: number;
  /** Its validation errors tolerated. Default: the nested agent's. */
  maxRetries?: number;
}

/** A read-only view of the run as it stands: each read is a copy, so changing it changes nothing. */
export interface WorkflowStateView {
  readonly query: string;
  /** Model calls so far (nested agents' included). */
  readonly iterations: number;
  /** Validation errors so far. */
  readonly retries: number;
  readonly stats: Readonly<RunStats>;
  readonly events: readonly AgentEvent[];
}

/** What a workflow gets: the run's skills, model, budgets and signal, each use recorded on the run's stream. */
export interface WorkflowContext {
  /** The run's query. */
  readonly query: string;
  /** Aborts when the run is aborted or ends: pass it to work of your own. */
  readonly signal: AbortSignal;
  /** Model calls made so far: the `step` the next events are stamped with. */
  readonly step: number;
  /** The run as it stands (read-only copies). */
  readonly state: WorkflowStateView;
  /** The run's budgets: model calls at most, and validation errors tolerated. */
  readonly budgets: { readonly maxIterations: number; readonly maxRetries: number };
  /** The agent's model (to build nested agents on it). */
  readonly model: ModelHandle;
  /** The names of the skills `call` may use (the agent's registry). */
  readonly skills: readonly string[];
  /**
   * Call a skill through the agent's registry with the loop's guards, approval, timeout, result cap and repetition
   * control; records `call-skill` and `observation` / `tool-error`. Returns the skill's value; a failed call throws
   * {@link WorkflowCallError} (catch it to go on).
   */
  call<T = unknown>(skillName: string, args?: Record<string, unknown>): Promise<T>;
  /** One model call; see {@link AskOptions}. Records a `model-call` event with its tokens. */
  ask(prompt: string, options?: AskOptions & { schema?: undefined }): Promise<string>;
  ask<S extends z.ZodType>(prompt: string, options: AskOptions & { schema: S }): Promise<z.output<S>>;
  ask(prompt: string, options: AskOptions & { schema: JsonSchema }): Promise<unknown>;
  /**
   * Run a nested agent (the loop) on `message` as one step: a `call-skill`, its events one depth down, then an
   * `observation` with its answer. No answer throws {@link WorkflowCallError}. Its model calls count in the run's budget.
   */
  agent(target: AgentTarget, message: string, options?: AgentCallOptions): Promise<string>;
  /** Record a milestone on the stream (a `workflow-note` event): a route taken, a gate that stopped, vote counts. */
  note(label: string, message: string, data?: unknown): void;
}

/** A workflow as a function: `(ctx, query) => answer`. A string answer is the run's answer; another value its JSON. */
export type WorkflowFunction<Out = unknown> = (ctx: WorkflowContext, query: string) => Out | Promise<Out>;

/** A workflow with its name and description (what `defineWorkflow` makes). */
export interface Workflow<Out = unknown> {
  readonly name: string;
  readonly description?: string;
  /** The skills it calls: the CLI's `run FILE` gives it only these built-ins. Default: all of them. */
  readonly skills?: readonly string[];
  run: WorkflowFunction<Out>;
}

/** What `Agent.run(workflow, query)` accepts: a {@link Workflow}, or a bare {@link WorkflowFunction}. */
export type WorkflowLike<Out = unknown> = Workflow<Out> | WorkflowFunction<Out>;

/** Whether `value` is a workflow `Agent.run` can run (a function, or an object with a name and a `run` function). */
export function isWorkflow(value: unknown): value is WorkflowLike {
  if (typeof value === "function") return true;
  if (typeof value !== "object" || value === null) return false;
  const { name, run } = value as { name?: unknown; run?: unknown };
  return typeof run === "function" && typeof name === "string";
}

/**
 * The workflow a module exports: its default export, else its export named `workflow`; undefined when neither is a
 * workflow (a workflow file for the CLI's `run` or a suite's `workflows`).
 */
export function workflowOfModule(namespace: Record<string, unknown>): WorkflowLike | undefined {
  for (const name of ["default", "workflow"])
    if (Object.hasOwn(namespace, name) && isWorkflow(namespace[name])) return namespace[name];
  return undefined;
}

/** The workflow's name: its `name`, a function's own name, else `workflow`. */
export function workflowName(workflow: WorkflowLike): string {
  return (typeof workflow === "function" ? workflow.name : workflow.name) || "workflow";
}

const WORKFLOW_CALL_ERROR = Symbol.for("gemma-agent.workflow-call-error");
/** Whether `value` carries `brand` (set by this module, or by another copy of it). */
function branded(value: unknown, brand: symbol): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true;
}

/**
 * A failed `ctx.call` or `ctx.agent`: the skill or nested agent, and the failure as the model would have seen it
 * (also on the stream as a `tool-error`). Uncaught, it ends the run with a `workflow-error`. `instanceof` holds across
 * copies of this module (a workflow file loaded from source by the built CLI gets the built runtime's errors).
 */
export class WorkflowCallError extends Error {
  override readonly name = "WorkflowCallError";
  readonly [WORKFLOW_CALL_ERROR] = true;
  static override [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, WORKFLOW_CALL_ERROR);
  }
  constructor(
    /** The skill (or nested agent) that failed. */
    readonly skillName: string,
    /** Why, as the tool-error says it. */
    readonly reason: string,
    /** The guard that refused the call, when one did. */
    readonly guard?: string,
  ) {
    super(`${skillName} failed: ${reason}`);
  }
}

const WORKFLOW_STOP = Symbol.for("gemma-agent.workflow-stop");

/**
 * The run has ended (its budget, its retries, a model error, an abort): what every `ctx` method throws from then on.
 * Patterns that catch failures must let it through ({@link isWorkflowStop}); a workflow that swallows it still ends
 * with this stop reason.
 */
export class WorkflowStop extends Error {
  override readonly name = "WorkflowStop";
  /** The brand {@link isWorkflowStop} reads: it holds across copies of this module (a workflow file loaded apart). */
  readonly [WORKFLOW_STOP] = true;
  static override [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, WORKFLOW_STOP);
  }
  constructor(readonly reason: StopReason) {
    super(`the run has ended (${reason})`);
  }
}

/**
 * Whether `error` is the {@link WorkflowStop} of a run that has ended (also one made by another copy of this module,
 * as when a workflow file is loaded from source by the built CLI).
 */
export function isWorkflowStop(error: unknown): error is WorkflowStop {
  return branded(error, WORKFLOW_STOP);
}
