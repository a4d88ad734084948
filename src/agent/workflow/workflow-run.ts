import type { ModelHandle } from "../../model/model-handle.js";
import type { ChatFormat } from "../../prompt/chat-format.js";
import type { Registry } from "../../skills/registry.js";
import { describeThrown } from "../../safe-stringify.js";
import type { AgentState } from "../agent-state.js";
import type { DispatchOptions } from "../dispatch-action.js";
import type { EventInput, StopReason } from "../events.js";
import { stopAtMaxIterations } from "../stop-run.js";
import { WorkflowStop, type AgentSpec, type NestedAgent, type WorkflowContext } from "./workflow.js";

/** What a workflow run takes from its agent: the model, skills and settings the loop would use. */
export interface WorkflowEnvironment {
  model: ModelHandle;
  registry: Registry;
  /** How skills run (timeouts, caps, approval, guards): the agent's options. */
  dispatch: DispatchOptions;
  chatFormat: ChatFormat;
  /** Constrain structured asks with their schema's grammar. */
  grammar: boolean;
  /** Tokens an ask may generate unless it says otherwise. */
  maxTokens: number;
  temperature?: number;
  /** Builds a nested agent from a spec (an `Agent`, passed in by the agent: no import cycle). */
  makeAgent: (spec: AgentSpec & { model: ModelHandle }) => NestedAgent;
}

/** The run's budgets and its caller's signal. */
export interface WorkflowBudgets {
  maxIterations: number;
  maxRetries: number;
  signal?: AbortSignal;
}

/**
 * One workflow run as it goes: its state, its budgets, and how it ends. Whatever ends it (the iteration budget, the
 * retries, a model error, an abort) is recorded once, with the loop's events and stop reason; from then on every
 * `ctx` method throws that {@link WorkflowStop}, and the run's signal aborts, so work still under way stops too.
 * Model calls of one run go to the model one at a time, in the order asked (a local model serializes them anyway):
 * each call's tokens are its own, and a replay meets them in the same order.
 */
export class WorkflowRun {
  readonly state: AgentState;
  readonly budgets: WorkflowBudgets;
  readonly env: WorkflowEnvironment;
  /** Aborts on the caller's signal, at a stop, and when the run is closed. */
  readonly signal: AbortSignal;
  /** The `ctx` the workflow gets (set once, by runWorkflow). */
  context!: WorkflowContext;
  readonly #controller = new AbortController();
  #stop: WorkflowStop | undefined;
  #closed = false;
  #modelQueue: Promise<unknown> = Promise.resolve();

  constructor(state: AgentState, budgets: WorkflowBudgets, env: WorkflowEnvironment) {
    this.state = state;
    this.budgets = budgets;
    this.env = env;
    this.signal = budgets.signal ? AbortSignal.any([budgets.signal, this.#controller.signal]) : this.#controller.signal;
  }

  /** The stop that ended the run, once one has. */
  get stopped(): WorkflowStop | undefined {
    return this.#stop;
  }

  /** Throw when the run can go no further: its stop, an abort (recorded now), or the run already closed. */
  ensureOpen(): void {
    if (this.#stop) throw this.#stop;
    if (this.budgets.signal?.aborted) throw this.stopAborted();
    if (this.#closed) throw new WorkflowStop(this.state.stopReason ?? "aborted");
  }

  /**
   * After something under way failed: the stop to throw when the run has ended or was aborted meanwhile, else
   * undefined (the failure is the work's own).
   */
  stopAfterFailure(): WorkflowStop | undefined {
    if (this.#stop) return this.#stop;
    if (this.budgets.signal?.aborted) return this.stopAborted();
    if (this.#closed) return new WorkflowStop(this.state.stopReason ?? "aborted");
    return undefined;
  }

  /** Append an event, unless the run is closed (work a workflow left running cannot write past its end). */
  emit(event: EventInput): void {
    if (!this.#closed) this.state.emit(event);
  }

  /** End the run: aborted through its signal (an `aborted` event). */
  stopAborted(): WorkflowStop {
    return this.#end("aborted", () =>
      this.state.emit({ type: "aborted", reason: describeThrown(this.budgets.signal?.reason ?? "aborted") }),
    );
  }

  /** End the run: a model call failed (a `model-error` event). */
  stopModelError(error: unknown): WorkflowStop {
    return this.#end("model_error", () => this.state.emit({ type: "model-error", message: describeThrown(error) }));
  }

  /** End the run: validation errors past the retry budget (the last one is already on the stream). */
  stopRetriesExhausted(): WorkflowStop {
    return this.#end("retries_exhausted", () => {});
  }

  /** Throw the budget's stop (a `max-iterations` event) when the run has made all the model calls it may. */
  checkBudget(): void {
    if (this.state.iterations >= this.budgets.maxIterations)
      throw this.#end("max_iterations", () => stopAtMaxIterations(this.state));
  }

  /** Model calls the budget has left. */
  get iterationsLeft(): number {
    return Math.max(0, this.budgets.maxIterations - this.state.iterations);
  }

  /** Run `work` when the model calls asked for before it have finished (one model call at a time). */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#modelQueue.then(work);
    this.#modelQueue = result.catch(() => undefined);
    return result;
  }

  /** The workflow has returned or thrown: later `ctx` use throws, late events are dropped, work under way aborts. */
  close(): void {
    this.#closed = true;
    this.#controller.abort(new WorkflowStop(this.state.stopReason ?? "aborted"));
  }

  #end(reason: StopReason, record: () => void): WorkflowStop {
    if (this.#stop) return this.#stop;
    this.#stop = new WorkflowStop(reason);
    if (!this.#closed) {
      if (reason !== "max_iterations") this.state.finish(reason);
      record();
    }
    this.#controller.abort(this.#stop);
    return this.#stop;
  }
}
