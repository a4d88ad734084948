import type { SkillCall } from "../../actions/action.js";
import type { GenerateOptions, ModelHandle, ModelInfo } from "../../model/model-handle.js";
import { abortError } from "../../abort.js";
import { answerReply, callReply, parallelReply } from "../../testing/reply-builders.js";
import { scriptedModelInfo } from "../../testing/scripted-model-info.js";
import { drawFailure, FAILURE_PROFILES, type FailureKind, type FailureRates } from "./failure-profiles.js";

/** One step of a correct trajectory, as a model would take it. */
export type TrajectoryAction =
  | { type: "call"; skillName: string; arguments: Record<string, unknown>; thought?: string }
  | { type: "calls"; calls: SkillCall[]; thought?: string }
  | { type: "answer"; text: string; thought?: string };

/** Options of {@link TrajectoryModel}. */
export interface TrajectoryModelOptions {
  /** Failure rates per reply. Default: `perfect` (never fails). */
  rates?: FailureRates;
  /** Uniform numbers in [0, 1); required when any rate is above 0 (use `seededRandom`). */
  random?: () => number;
  /** Names of the skills the run may call, so an "unknown skill" failure never names a real one. */
  skillNames?: readonly string[];
  /** Shown in reports. Default `trajectory`. */
  name?: string;
}

/** The text of an injected wrong answer. */
const WRONG_ANSWER = "I am not sure.";

/** What the model did at each reply: the failure it injected, or undefined for a correct step. */
export type InjectedFailure = FailureKind | "none";

/** The step as the model writes it (thought first). */
function actionJson(step: TrajectoryAction): string {
  if (step.type === "answer") return answerReply(step.text, step.thought);
  if (step.type === "calls")
    return parallelReply(
      step.calls.map((c) => [c.skillName, c.arguments]),
      step.thought,
    );
  return callReply(step.skillName, step.arguments, step.thought);
}

/** A value of a different JSON type than `value`, so a schema that typed the argument refuses it. */
function wrongType(value: unknown): unknown {
  if (typeof value === "string") return 12345;
  if (typeof value === "number") return "not a number";
  if (typeof value === "boolean") return "yes";
  if (Array.isArray(value)) return "not a list";
  if (value !== null && typeof value === "object") return "not an object";
  return ["unexpected"];
}

/**
 * A scripted model that walks a task's correct trajectory, one step per reply, and before each reply draws (from a
 * seeded source) whether to fail instead, as a small model would: an empty answer, malformed JSON, a skill that does
 * not exist, arguments of the wrong type, the previous call again, or a wrong final answer (which ends the run). A failed reply does not advance the trajectory:
 * the next reply tries the same step again, the way a model retries after feedback. One number is drawn per reply,
 * so a run under a larger budget begins exactly like the run under a smaller one.
 */
export class TrajectoryModel implements ModelHandle {
  readonly info: ModelInfo;
  /** One entry per reply: what was injected. */
  readonly injected: InjectedFailure[] = [];
  readonly #steps: readonly TrajectoryAction[];
  readonly #rates: FailureRates;
  readonly #random: () => number;
  readonly #skillNames: readonly string[];
  #cursor = 0;
  #lastCall: TrajectoryAction | undefined;

  constructor(steps: readonly TrajectoryAction[], options: TrajectoryModelOptions = {}) {
    if (steps.length === 0) throw new TypeError("TrajectoryModel: the trajectory is empty");
    this.#steps = steps;
    this.#rates = options.rates ?? FAILURE_PROFILES.perfect;
    const anyRate = Object.values(this.#rates).some((r) => r > 0);
    if (anyRate && !options.random) throw new TypeError("TrajectoryModel: failure rates need a seeded random source");
    this.#random = options.random ?? (() => 1);
    this.#skillNames = options.skillNames ?? [];
    this.info = scriptedModelInfo(options.name ?? "trajectory");
  }

  async generate(_prompt: string, options: GenerateOptions = {}): Promise<string> {
    if (options.signal?.aborted) throw abortError(options.signal.reason);
    const step = this.#steps[Math.min(this.#cursor, this.#steps.length - 1)];
    const failure = drawFailure(this.#random, this.#rates);
    const text = this.#fail(failure, step) ?? this.#advance(step);
    options.onToken?.(text);
    return text;
  }

  #advance(step: TrajectoryAction): string {
    this.injected.push("none");
    this.#cursor++;
    if (step.type !== "answer") this.#lastCall = step;
    return actionJson(step);
  }

  /** The failed reply, or undefined when the failure does not apply to this step (then the step is taken). */
  #fail(failure: FailureKind | undefined, step: TrajectoryAction): string | undefined {
    let text: string | undefined;
    switch (failure) {
      case undefined:
        return undefined;
      case "empty_answer":
        text = JSON.stringify({ final_answer: "" });
        break;
      case "malformed_json":
        // A doubled colon after the first key: beyond what jsonrepair mends, like a model that lost track of the syntax.
        text = actionJson(step).replace(/":/, '"::');
        break;
      case "unknown_skill": {
        let name = "web_search";
        while (this.#skillNames.includes(name)) name += "_v2";
        const args = step.type === "call" ? step.arguments : { query: "..." };
        text = JSON.stringify({ skill_name: name, arguments: args });
        break;
      }
      case "invalid_arguments": {
        if (step.type !== "call") return undefined;
        const [key] = Object.keys(step.arguments);
        if (key === undefined) return undefined;
        text = actionJson({ ...step, arguments: { ...step.arguments, [key]: wrongType(step.arguments[key]) } });
        break;
      }
      case "repeated_call":
        if (!this.#lastCall) return undefined;
        text = actionJson(this.#lastCall);
        break;
      case "wrong_answer":
        // Gives up with an answer that holds none of the task's facts: the run ends, judged wrong.
        text = JSON.stringify({ final_answer: WRONG_ANSWER });
        break;
    }
    this.injected.push(failure);
    return text;
  }
}
