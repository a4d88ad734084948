import { EventStream } from "./event-stream.js";
import type { AgentEvent, EventInput, RunStats, StateSnapshot, StopReason } from "./events.js";
import { RepetitionTracker } from "./repetition.js";

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
  readonly #startedAt = performance.now();

  constructor(query: string, options: { stream?: EventStream; depth?: number } = {}) {
    this.query = query;
    this.stream = options.stream ?? new EventStream();
    this.depth = options.depth ?? 0;
  }

  /** Milliseconds since the run started. */
  elapsed(): number {
    return Math.round((performance.now() - this.#startedAt) * 1000) / 1000;
  }

  /** End the run: why it stopped and, when it stopped on an answer, the answer. Emits nothing. */
  finish(reason: StopReason, answer?: string): void {
    this.stopReason = reason;
    if (answer !== undefined) this.answer = answer;
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
      ...(this.answer !== undefined && { answer: this.answer }),
      ...(this.stopReason !== undefined && { stopReason: this.stopReason }),
      events: this.stream.toArray(),
      stats: this.stats,
    });
  }
}
