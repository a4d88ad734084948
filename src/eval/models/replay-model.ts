import { readFileSync } from "node:fs";
import { EventStream } from "../../agent/event-stream.js";
import { finalRoundText, observationText } from "../../agent/build-messages.js";
import { isOwnEvent, modelReplyOf, type AgentEvent } from "../../agent/events.js";
import type { GenerateOptions, ModelHandle, ModelInfo } from "../../model/model-handle.js";
import { neutralizeControlText } from "../../prompt/chat-format.js";
import { abortError } from "../../abort.js";
import { scriptedModelInfo } from "../../testing/scripted-model-info.js";
import { EvalSetupError } from "../errors.js";

/** The replay and the run parted ways: the prompt of a step lacks what the recording saw at that point. */
export class ReplayMismatchError extends Error {
  override readonly name = "ReplayMismatchError";
  constructor(
    /** The step (model call, from 1) whose prompt differed. */
    readonly step: number,
    message: string,
  ) {
    super(message);
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
}

/**
 * The model calls of a trace, in order: each model reply (see {@link modelReplyOf}) or model error starts a step;
 * observations, tool errors and feedback that follow it belong to its step. Events of nested agents are skipped.
 */
export function recordedSteps(events: Iterable<AgentEvent>): RecordedStep[] {
  const steps: RecordedStep[] = [];
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
        current?.feedback.push(observationText(event));
        break;
      case "final-round":
        current?.feedback.push(finalRoundText());
        break;
      default:
        break;
    }
  }
  return steps;
}

/** Read a trace file written by `ask --trace` (JSON Lines of events). Throws `EvalSetupError("trace_invalid")`. */
export function readTrace(path: string): AgentEvent[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new EvalSetupError("trace_invalid", `cannot read trace ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    const events = EventStream.fromJSONL(text).toArray();
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
 */
export class ReplayModel implements ModelHandle {
  readonly info: ModelInfo;
  readonly #steps: RecordedStep[];
  readonly #query: string | undefined;
  #calls = 0;

  constructor(events: readonly AgentEvent[], options: { name?: string } = {}) {
    this.#steps = recordedSteps(events);
    const withState = events.find(
      (e): e is Extract<AgentEvent, { type: "max-iterations" }> => e.type === "max-iterations",
    );
    this.#query = withState?.partialState.query;
    this.info = scriptedModelInfo(options.name ?? "replay", "replay");
  }

  /** Recorded replies the run did not ask for. */
  get unusedSteps(): number {
    return Math.max(0, this.#steps.length - this.#calls);
  }

  async generate(prompt: string, options: GenerateOptions = {}): Promise<string> {
    if (options.signal?.aborted) throw abortError(options.signal.reason);
    const index = this.#calls++;
    if (index >= this.#steps.length) {
      throw new ReplayMismatchError(
        index + 1,
        `replay: step ${index + 1} was asked for, but the trace records only ${this.#steps.length} model calls`,
      );
    }
    if (index === 0 && this.#query !== undefined && !prompt.includes(neutralizeControlText(this.#query))) {
      throw new ReplayMismatchError(1, "replay: the query differs from the recorded one");
    }
    const expected = this.#steps.slice(0, index).flatMap((s) => s.feedback.map(neutralizeControlText));
    const missing = firstMissing(prompt, expected);
    if (missing >= 0) {
      throw new ReplayMismatchError(
        index + 1,
        `replay diverged at step ${index + 1}: the prompt lacks the recorded ${JSON.stringify(expected[missing].slice(0, 160))}`,
      );
    }
    const step = this.#steps[index];
    if (step.raw === undefined) throw new Error(`replay: recorded model error: ${step.error ?? "unknown"}`);
    options.onToken?.(step.raw);
    return step.raw;
  }
}
