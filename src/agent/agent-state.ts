import { EventStream } from "./event-stream.js";
import type { AgentEvent, EventInput, RunStats, StateSnapshot, StopReason } from "./events.js";
import { RepetitionTracker } from "./repetition.js";
import type { HistoryView } from "../memory/history.js";
import type { AgentRunTrace } from "../telemetry/agent-trace.js";
import { withoutUndefined } from "../without-undefined.js";

/**
 * Tokens a run has spent, for its constraints, its spans and `invoke`'s result: from the model's stats of each call,
 * or, for a model that reports none, estimated (memory/token-counter.ts).
 */
export interface RunUsage {
  /** Prompt tokens over the run's model calls. */
  inputTokens: number;
  /** Generated tokens over the run's model calls. */
  outputTokens: number;
  /** The largest prompt of one model call. */
  largestPrompt: number;
  /** Some counts were estimated. */
  estimated: boolean;
}

/** Fresh counters. */
export function emptyRunStats(): RunStats {
  return {
    modelCalls: 0,
    skillCalls: 0,
    validationErrors: 0,
    validationErrorsByType: {},
    toolErrors: 0,
    emptyAnswers: 0,
    repeatedCalls: 0,
    finalRounds: 0,
    contextTrims: 0,
    promptTokens: 0,
    evaluatedPromptTokens: 0,
    generatedTokens: 0,
    modelMs: 0,
  };
}

/** Everything one run knows. A new one per run: the agent keeps nothing between runs. */
export class AgentState {
  readonly query: string;
  readonly stream: EventStream;
  answer: string | undefined;
  stopReason: StopReason | undefined;
  /** Model calls made so far. */
  iterations = 0;
  /** Validation errors so far (counted over the whole run). */
  retries = 0;
  readonly stats: RunStats = emptyRunStats();
  /** Nesting depth of the agent that owns this run (0 at the top). */
  readonly depth: number;
  /** Calls made in this run and their results (repetition control). */
  readonly repetition = new RepetitionTracker();
  /** Set when a repeat asks for a final round at the next step (see FinalRoundEvent); cleared when it is held. */
  finalRoundRequested = false;
  /** With an output schema: the answer's JSON value; otherwise the answer text (set with the answer). */
  reply: unknown;
  /** Tokens spent so far. */
  readonly usage: RunUsage = { inputTokens: 0, outputTokens: 0, largestPrompt: 0, estimated: false };
  /** The earlier turns of the conversation this run is a turn of (`Agent.invoke`), shown before the query. */
  readonly history: HistoryView | undefined;
  /**
   * Under `trim_policy: summarize_oldest`: has the model summarize the turns `history` leaves out at trim level
   * `level` that no summary stands for yet, before they leave the prompt (fitStep calls it when a trim inside the turn
   * drops turns). Resolves true when the summary was written (it stands for them from then on), false when it failed
   * (they are left out without one, as `drop_oldest` would).
   */
  readonly summarizeHistory: ((level: number) => Promise<boolean>) | undefined;
  /** The run's spans (telemetry), while it runs. */
  trace: AgentRunTrace | undefined;
  readonly #startedAt = performance.now();

  constructor(
    query: string,
    options: {
      stream?: EventStream;
      depth?: number;
      history?: HistoryView;
      summarizeHistory?: (level: number) => Promise<boolean>;
    } = {},
  ) {
    this.query = query;
    this.stream = options.stream ?? new EventStream();
    this.depth = options.depth ?? 0;
    this.history = options.history;
    this.summarizeHistory = options.summarizeHistory;
  }

  /** Milliseconds since the run started. */
  elapsed(): number {
    return Math.round((performance.now() - this.#startedAt) * 1000) / 1000;
  }

  /** End the run: why it stopped and, when it stopped with an answer, the answer (and its typed reply). Emits nothing. */
  finish(reason: StopReason, answer?: string, reply: unknown = answer): void {
    this.stopReason = reason;
    if (answer !== undefined) {
      this.answer = answer;
      this.reply = reply;
    }
  }

  /** Stamp an event with the current step and time and append it to the stream. */
  emit(event: EventInput): AgentEvent {
    const stamped = { ...event, step: event.step ?? this.iterations, at: event.at ?? this.elapsed() };
    if (this.depth > 0 && stamped.depth === undefined) stamped.depth = this.depth;
    this.stream.push(stamped);
    return stamped;
  }

  /** A deep copy of the state as plain data. */
  snapshot(): StateSnapshot {
    return structuredClone({
      query: this.query,
      iterations: this.iterations,
      retries: this.retries,
      ...withoutUndefined({ answer: this.answer, stopReason: this.stopReason }),
      events: this.stream.toArray(),
      stats: this.stats,
    });
  }
}
