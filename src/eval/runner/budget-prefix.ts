/**
 * Smaller budgets from one run. The loop does nothing differently under a larger budget until the smaller one runs
 * out (the budget is only the stop check before each step; nothing about it is in the prompt), so for a model that
 * answers the same prompt the same way (a GGUF at temperature 0) the run under budget b is the first b model calls of
 * the run under the largest budget. The runner makes that one real run, records each model call's stats and time,
 * and plays its replies back through the real loop under each smaller budget: the judge, the stop reason and the
 * counters come from the loop itself, and the strict replay fails loudly if the conversation ever diverges.
 */
import type { AgentEvent } from "../../agent/events.js";
import type { GenerateOptions, GenerationStats, ModelHandle } from "../../model/model-handle.js";
import { ReplayModel } from "../models/replay-model.js";

/** One model call of a recorded run: the model's stats after it, and how long it took. */
export interface RecordedCall {
  stats: GenerationStats | undefined;
  ms: number;
}

/** Passes calls through to `inner`, recording each call's stats and duration. */
export class RecordingModel implements ModelHandle {
  readonly calls: RecordedCall[] = [];
  readonly #inner: ModelHandle;

  constructor(inner: ModelHandle) {
    this.#inner = inner;
  }

  get chatFormat() {
    return this.#inner.chatFormat;
  }
  get info() {
    return this.#inner.info;
  }
  get stats() {
    return this.#inner.stats;
  }

  async generate(prompt: string, options?: GenerateOptions): Promise<string> {
    const started = performance.now();
    try {
      return await this.#inner.generate(prompt, options);
    } finally {
      const stats = this.#inner.stats;
      this.calls.push({ stats: stats && structuredClone(stats), ms: performance.now() - started });
    }
  }
}

/**
 * The recorded run's replies, strictly replayed (see {@link ReplayModel}), each call reporting the stats the real call
 * had; `elapsedMs` is the recorded time of the calls replayed so far (the run's model time under the smaller budget).
 */
export class PrefixReplayModel implements ModelHandle {
  readonly #replay: ReplayModel;
  readonly #calls: readonly RecordedCall[];
  readonly #source: ModelHandle;
  #done = 0;

  constructor(events: readonly AgentEvent[], recorded: RecordingModel) {
    this.#replay = new ReplayModel(events);
    this.#calls = recorded.calls;
    this.#source = recorded;
  }

  get chatFormat() {
    return this.#source.chatFormat;
  }
  get info() {
    return this.#source.info;
  }
  get stats(): GenerationStats | undefined {
    return this.#done > 0 ? this.#calls[this.#done - 1]?.stats : undefined;
  }

  get elapsedMs(): number {
    return this.#calls.slice(0, this.#done).reduce((sum, call) => sum + call.ms, 0);
  }

  async generate(prompt: string, options?: GenerateOptions): Promise<string> {
    const text = await this.#replay.generate(prompt, options);
    this.#done++;
    return text;
  }
}
