import { MAX_TRACE_FILE_BYTES } from "../defaults.js";
import { EventStream } from "../../agent/event-stream.js";
import { finalRoundText, observationText } from "../../agent/build-messages.js";
import { isOwnEvent, modelReplyOf, type AgentEvent, type ObservationEvent } from "../../agent/events.js";
import type { GenerateOptions, ModelHandle, ModelInfo } from "../../model/model-handle.js";
import { neutralizeControlText } from "../../prompt/chat-format.js";
import { abortError } from "../../abort.js";
import { scriptedModelInfo } from "../../testing/scripted-model-info.js";
import { CodedError } from "../../coded-error.js";
import { EvalSetupError, readEvalFile } from "../errors.js";
import { withoutTornTail } from "../../json-lines.js";

/**
 * How a replay parted from its recording: `beyond_recording` (more model calls than the trace holds),
 * `query_differs` (the first prompt lacks the recorded query), `diverged` (a prompt lacks what the recording showed
 * the model). Stable: callers switch on it.
 */
export type ReplayMismatchCode = "beyond_recording" | "query_differs" | "diverged";

/** The replay and the run parted ways: the prompt of a step lacks what the recording saw at that point. */
export class ReplayMismatchError extends CodedError<ReplayMismatchCode> {
  override readonly name = "ReplayMismatchError";
  constructor(
    code: ReplayMismatchCode,
    /** The step (model call, from 1) whose prompt differed. */
    readonly step: number,
    message: string,
  ) {
    super(code, message);
  }
}

/** One recorded model call: its reply (or the error it threw), and what the model was shown after it. */
export interface RecordedStep {
  step: number;
  /** The reply, verbatim; undefined when the model call failed (`error` is set). */
  raw?: string;
  error?: string;
  /** Texts the next prompt must contain, in order: rendered observations, tool errors and validation feedback. */
  feedback: string[];
  /**
   * A workflow's call: the texts this call's own prompt must contain, in order (the ask's system text and prompt,
   * and for a retry the feedback of its earlier tries). Absent on a nested agent's step of a workflow run.
   */
  expects?: string[];
}

/** Whether a trace is a workflow run's (its model calls are `model-call` events, its own events carry `origin`). */
function isWorkflowTrace(events: Iterable<AgentEvent>): boolean {
  for (const event of events) if (event.type === "model-call" || event.origin === "workflow") return true;
  return false;
}

/**
 * The model calls of a workflow run, in order: each `model-call` (what its prompt must contain: its system text, its
 * prompt, and for a retry the feedback of the earlier tries of the same ask), each model error, and each reply of a
 * nested agent (`ctx.agent`, played back in order without a prompt check: its conversation is its own).
 */
function workflowSteps(events: Iterable<AgentEvent>): RecordedStep[] {
  const steps: RecordedStep[] = [];
  let retryFeedback: string[] = [];
  for (const event of events) {
    if (!isOwnEvent(event)) {
      const reply = modelReplyOf(event);
      if (reply) steps.push({ step: reply.step, raw: reply.raw, feedback: [] });
      else if (event.type === "model-error") steps.push({ step: event.step, error: event.message, feedback: [] });
      continue;
    }
    if (event.type === "model-call") {
      if (event.attempt === 1) retryFeedback = [];
      const asked = [...(event.system ? [event.system] : []), event.prompt, ...retryFeedback];
      steps.push({ step: event.step, raw: event.raw, feedback: [], expects: asked });
    } else if (event.type === "validation-error" && event.origin === "workflow") retryFeedback.push(event.feedback);
    else if (event.type === "model-error") steps.push({ step: event.step, error: event.message, feedback: [] });
  }
  return steps;
}

/**
 * The model calls of a trace, in order: each model reply (see {@link modelReplyOf}) or model error starts a step;
 * observations, tool errors and feedback that follow it belong to its step. Events of nested agents are skipped.
 */
export function recordedSteps(trace: Iterable<AgentEvent>): RecordedStep[] {
  const events = [...trace];
  if (isWorkflowTrace(events)) return workflowSteps(events);
  const steps: RecordedStep[] = [];
  let latest: ObservationEvent | undefined;
  for (const event of events) {
    if (!isOwnEvent(event)) continue;
    const reply = modelReplyOf(event);
    if (reply) {
      steps.push({
        step: reply.step,
        raw: reply.raw,
        feedback: reply.type === "validation-error" ? [reply.feedback] : [],
      });
      continue;
    }
    const current = steps.at(-1);
    switch (event.type) {
      case "model-error":
        steps.push({ step: event.step, error: event.message, feedback: [] });
        break;
      case "observation":
      case "tool-error":
        if (event.type === "observation") latest = event;
        current?.feedback.push(observationText(event));
        break;
      case "final-round":
        current?.feedback.push(finalRoundText(latest));
        break;
      default:
        break;
    }
  }
  return steps;
}

/**
 * Read a trace file written by `ask --trace` (JSON Lines of events). A torn last line (the run was killed while writing
 * it) is left out: the events before it are the trace. Throws `EvalSetupError("trace_invalid")`.
 */
export function readTrace(path: string): AgentEvent[] {
  // bounded: a regular file of at most MAX_TRACE_FILE_BYTES (a FIFO or device refused, never waited on)
  const text = readEvalFile(path, "trace_invalid", "trace", MAX_TRACE_FILE_BYTES);
  try {
    const events = EventStream.fromJSONL(withoutTornTail(text)).toArray();
    if (recordedSteps(events).length === 0) throw new Error("it records no model reply");
    return events;
  } catch (error) {
    throw new EvalSetupError("trace_invalid", `${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** Where the first text of `needles` missing from `haystack` (searched in order) is, or -1 when all are there. */
function firstMissing(haystack: string, needles: readonly string[]): number {
  let from = 0;
  for (let i = 0; i < needles.length; i++) {
    const at = haystack.indexOf(needles[i], from);
    if (at < 0) return i;
    from = at + needles[i].length;
  }
  return -1;
}

/**
 * A recorded run played back as a model: each call returns the next recorded reply. Strict: before answering step k
 * it re-derives, from the recording, everything the model was shown after steps 1..k-1 (each observation and tool
 * error rendered exactly as the agent renders it, and each validation feedback) and checks that the prompt holds all
 * of it in order. A skill that now returns something else, a different query or a changed feedback text makes the
 * replay throw {@link ReplayMismatchError} at that step (the run records a model error), instead of feeding the old
 * replies to a conversation they no longer fit. Calls beyond the recording throw too; `unusedSteps` tells when the
 * run ended before the recording did.
 *
 * A workflow run's trace (see {@link isWorkflowTrace}) is played back call by call: each call's prompt must contain
 * what that call asked (its system text, its prompt, a retry's feedback); a call whose prompt is not the next
 * recorded one takes the first later unused one it matches (calls of parallel branches may come in another order);
 * a nested agent's replies are played in order. Each reply waits one turn of the event loop, as a real call takes
 * longer than a skill: the skill calls of parallel branches then finish between the calls as they did when recorded,
 * and their events come in the recorded order (a skill slower than that may still interleave differently).
 */
export class ReplayModel implements ModelHandle {
  readonly info: ModelInfo;
  readonly #steps: RecordedStep[];
  readonly #query: string | undefined;
  readonly #workflow: boolean;
  readonly #used: boolean[];
  #calls = 0;

  constructor(events: readonly AgentEvent[], options: { name?: string } = {}) {
    this.#steps = recordedSteps(events);
    this.#workflow = isWorkflowTrace(events);
    this.#used = this.#steps.map(() => false);
    const withState = events.find(
      (e): e is Extract<AgentEvent, { type: "max-iterations" }> => e.type === "max-iterations",
    );
    this.#query = withState?.partialState.query;
    this.info = scriptedModelInfo(options.name ?? "replay", "replay");
  }

  /** Recorded replies the run did not ask for. */
  get unusedSteps(): number {
    if (this.#workflow) return this.#used.filter((used) => !used).length;
    return Math.max(0, this.#steps.length - this.#calls);
  }

  async generate(prompt: string, options: GenerateOptions = {}): Promise<string> {
    if (options.signal?.aborted) throw abortError(options.signal.reason);
    const index = this.#calls++;
    if (this.#workflow) {
      const step = this.#workflowStep(prompt, index);
      // A real call takes far longer than a skill: yield a turn so that work the recorded run finished during this
      // call (the skill calls of parallel branches) finishes first again, and the events come in the recorded order.
      await new Promise((resolve) => setImmediate(resolve));
      return this.#reply(step, options);
    }
    if (index >= this.#steps.length) {
      throw new ReplayMismatchError(
        "beyond_recording",
        index + 1,
        `replay: step ${index + 1} was asked for, but the trace records only ${this.#steps.length} model calls`,
      );
    }
    if (index === 0 && this.#query !== undefined && !prompt.includes(neutralizeControlText(this.#query))) {
      throw new ReplayMismatchError("query_differs", 1, "replay: the query differs from the recorded one");
    }
    const expected = this.#steps.slice(0, index).flatMap((s) => s.feedback.map(neutralizeControlText));
    const missing = firstMissing(prompt, expected);
    if (missing >= 0) {
      throw new ReplayMismatchError(
        "diverged",
        index + 1,
        `replay diverged at step ${index + 1}: the prompt lacks the recorded ${JSON.stringify(expected[missing].slice(0, 160))}`,
      );
    }
    return this.#reply(this.#steps[index], options);
  }

  #reply(step: RecordedStep, options: GenerateOptions): string {
    if (step.raw === undefined) throw new Error(`replay: recorded model error: ${step.error ?? "unknown"}`);
    options.onToken?.(step.raw);
    return step.raw;
  }

  /** The recorded call a workflow's call `index` replays: the next unused one if its prompt matches, else a later match. */
  #workflowStep(prompt: string, index: number): RecordedStep {
    const next = this.#used.indexOf(false);
    if (next < 0) {
      throw new ReplayMismatchError(
        "beyond_recording",
        index + 1,
        `replay: call ${index + 1} was asked for, but the trace records only ${this.#steps.length} model calls`,
      );
    }
    const lacks = (step: RecordedStep) => firstMissing(prompt, (step.expects ?? []).map(neutralizeControlText));
    let found = lacks(this.#steps[next]) < 0 ? next : -1;
    for (let j = next + 1; found < 0 && j < this.#steps.length; j++)
      if (!this.#used[j] && this.#steps[j].expects && lacks(this.#steps[j]) < 0) found = j;
    if (found < 0) {
      const expected = this.#steps[next].expects![lacks(this.#steps[next])];
      throw new ReplayMismatchError(
        "diverged",
        index + 1,
        `replay diverged at call ${index + 1}: the prompt lacks the recorded ${JSON.stringify(expected.slice(0, 160))}`,
      );
    }
    this.#used[found] = true;
    return this.#steps[found];
  }
}
