/**
 * Smaller budgets from one run. The loop does nothing differently under a larger budget until the smaller one runs
 * out (the budget is only the stop check before each step; nothing about it is in the prompt), so for a model that
 * answers the same prompt the same way (a GGUF at temperature 0) the run under budget b is the first b model calls of
 * the run under the largest budget. The runner makes that one real run, records each model call's stats and time,
 * and plays its replies back through the real loop under each smaller budget: the judge, the stop reason and the
 * counters come from the loop itself, and the strict replay fails loudly if the conversation ever diverges.
 *
 * With the final round on (the last step of a budget allows only an answer), the run under budget b differs from
 * the largest run at its last step only: its first b - 1 calls are played back and call b goes to the real model
 * (whose KV cache still holds nearly all of that prompt).
 */
import type { AgentEvent } from "../../agent/events.js";
import {
  statsWithCall,
  type CallStats,
  type GenerateOptions,
  type GenerationStats,
  type ModelHandle,
} from "../../model/model-handle.js";
import { ReplayModel } from "../models/replay-model.js";

/** One model call of a recorded run: its own stats (when the model reported them), and how long it took. */
export interface RecordedCall {
  stats: CallStats | undefined;
  ms: number;
}

/** A handle's stats after `calls`: the last one's, and totals over them all (undefined when none reported). */
function statsAfter(calls: readonly (CallStats | undefined)[]): GenerationStats | undefined {
  return calls.reduce<GenerationStats | undefined>(
    (stats, call) => (call ? statsWithCall(stats, call, 0) : stats),
    undefined,
  );
}

/**
 * One call to `model`, passed on as it is, that keeps the call's own stats (its first `onStats` report, handed on to
 * the caller's too) and its time: `done` gets both when the call ends, however it ends.
 */
async function keepingStats(
  model: ModelHandle,
  prompt: string,
  options: GenerateOptions | undefined,
  done: (stats: CallStats | undefined, ms: number) => void,
): Promise<string> {
  const started = performance.now();
  let stats: CallStats | undefined;
  const onStats = (call: CallStats) => {
    stats ??= { ...call };
    options?.onStats?.(call);
  };
  try {
    return await model.generate(prompt, { ...options, onStats });
  } finally {
    done(stats, performance.now() - started);
  }
}

/**
 * A model that describes itself as `described` does (chat format, info, context window, reply overrun, token
 * counting); subclasses say how it generates and what its stats are.
 */
abstract class DescribedAs implements ModelHandle {
  readonly #described: ModelHandle;

  constructor(described: ModelHandle) {
    this.#described = described;
  }

  get chatFormat() {
    return this.#described.chatFormat;
  }
  get info() {
    return this.#described.info;
  }
  get contextSize() {
    return this.#described.contextSize;
  }
  get replyOverrun() {
    return this.#described.replyOverrun;
  }
  get scoresDecisions() {
    return this.#described.scoresDecisions;
  }
  get countTokens(): ((prompt: string) => number | Promise<number>) | undefined {
    const described = this.#described;
    return described.countTokens && ((prompt) => described.countTokens!(prompt));
  }
  abstract get stats(): GenerationStats | undefined;
  abstract generate(prompt: string, options?: GenerateOptions): Promise<string>;
}

/** Passes calls through to `inner`, recording each call's own stats (its `onStats`) and duration. */
export class RecordingModel extends DescribedAs {
  readonly calls: RecordedCall[] = [];
  readonly #inner: ModelHandle;

  constructor(inner: ModelHandle) {
    super(inner);
    this.#inner = inner;
  }

  override get stats() {
    return this.#inner.stats;
  }

  /** The model the calls go to. */
  get inner(): ModelHandle {
    return this.#inner;
  }

  override generate(prompt: string, options?: GenerateOptions): Promise<string> {
    return keepingStats(this.#inner, prompt, options, (stats, ms) => this.calls.push({ stats, ms }));
  }
}

/**
 * The recorded run's replies, strictly replayed (see {@link ReplayModel}), each call reporting (`onStats`) the stats
 * the real call had; from call `liveFrom` on (when given) the calls go to the real model instead. `elapsedMs` is the model time of
 * the calls so far: recorded for the replayed ones, measured for the live ones.
 */
export class PrefixReplayModel extends DescribedAs {
  readonly #replay: ReplayModel;
  readonly #calls: readonly RecordedCall[];
  readonly #source: RecordingModel;
  readonly #liveFrom: number;
  #done = 0;
  #liveMs = 0;
  /** The stats of the calls so far: recorded for the replayed ones, reported for the live ones. */
  readonly #reported: (CallStats | undefined)[] = [];

  constructor(events: readonly AgentEvent[], recorded: RecordingModel, options: { liveFrom?: number } = {}) {
    super(recorded);
    this.#replay = new ReplayModel(events);
    this.#calls = recorded.calls;
    this.#source = recorded;
    this.#liveFrom = options.liveFrom ?? Infinity;
  }

  override get stats(): GenerationStats | undefined {
    return statsAfter(this.#reported);
  }

  get elapsedMs(): number {
    return (
      this.#calls.slice(0, Math.min(this.#done, this.#liveFrom - 1)).reduce((sum, call) => sum + call.ms, 0) +
      this.#liveMs
    );
  }

  override async generate(prompt: string, options?: GenerateOptions): Promise<string> {
    if (this.#done + 1 >= this.#liveFrom)
      return keepingStats(this.#source.inner, prompt, options, (stats, ms) => {
        this.#done++;
        this.#liveMs += ms;
        this.#reported.push(stats);
      });
    const text = await this.#replay.generate(prompt, options);
    const recorded = this.#calls[this.#done]?.stats;
    this.#done++;
    this.#reported.push(recorded);
    if (recorded) options?.onStats?.({ ...recorded });
    return text;
  }
}
