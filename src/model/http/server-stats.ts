import { statsWithCall, type CallStats, type GenerationStats } from "../model-handle.js";
import type { ReplyUsage } from "./reply-stream.js";

/** When one request started, sent its first text, and ended (performance.now() ms). */
export interface ReplyTiming {
  startedMs: number;
  firstTextMs?: number;
  endedMs: number;
}

function emptyStats(): GenerationStats {
  return {
    promptTokens: 0,
    reusedPromptTokens: 0,
    evaluatedPromptTokens: 0,
    generatedTokens: 0,
    timeToFirstTokenMs: 0,
    tokensPerSecond: 0,
    totals: { calls: 0, promptTokens: 0, evaluatedPromptTokens: 0, generatedTokens: 0, generationMs: 0 },
  };
}

/**
 * A handle's {@link GenerationStats}, from what the server reports: prompt, cached (`reusedPromptTokens`) and
 * generated tokens from its usage fields (0 where it gives none); time to first token measured here; tokens per
 * second as the server measured it, else generated tokens over the time from the first text to the end.
 */
export class ServerStats {
  #stats = emptyStats();
  /** Calls whose server reported token counts. */
  #reported = 0;

  /** A snapshot: later calls do not change it. */
  get snapshot(): GenerationStats {
    return { ...this.#stats, totals: { ...this.#stats.totals } };
  }

  /** True once a server has reported token counts (a server that never does leaves the record's tokens null). */
  get reportsTokens(): boolean {
    return this.#reported > 0;
  }

  /** Records one call, and returns its own stats (for the call's `onStats`). */
  record(usage: ReplyUsage, timing: ReplyTiming): CallStats {
    const prompt = usage.promptTokens ?? 0;
    const cached = usage.cachedTokens ?? 0;
    const evaluated = usage.evaluatedTokens ?? Math.max(0, prompt - cached);
    const generated = usage.generatedTokens ?? 0;
    const decodeMs = timing.firstTextMs === undefined ? 0 : timing.endedMs - timing.firstTextMs;
    const perSecond =
      usage.tokensPerSecond ?? (decodeMs > 0 && generated > 1 ? (generated - 1) / (decodeMs / 1000) : 0);
    if (usage.promptTokens !== undefined || usage.generatedTokens !== undefined) this.#reported++;
    const call: CallStats = {
      promptTokens: prompt,
      reusedPromptTokens: cached,
      evaluatedPromptTokens: evaluated,
      generatedTokens: generated,
      timeToFirstTokenMs: timing.firstTextMs === undefined ? 0 : timing.firstTextMs - timing.startedMs,
      tokensPerSecond: perSecond,
    };
    this.#stats = statsWithCall(this.#stats, call, timing.endedMs - timing.startedMs);
    return { ...call };
  }
}
