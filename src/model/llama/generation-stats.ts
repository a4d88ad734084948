import { statsWithCall, type CallStats, type GenerationStats } from "../model-handle.js";
import type { TokenRun } from "../decoding/token-run.js";

/** The stats of a handle that has not generated yet. */
export function emptyStats(): GenerationStats {
  return {
    promptTokens: 0,
    reusedPromptTokens: 0,
    restoredPromptTokens: 0,
    evaluatedPromptTokens: 0,
    generatedTokens: 0,
    sampledTokens: 0,
    forcedTokens: 0,
    timeToFirstTokenMs: 0,
    tokensPerSecond: 0,
    totals: {
      calls: 0,
      promptTokens: 0,
      evaluatedPromptTokens: 0,
      generatedTokens: 0,
      generationMs: 0,
      sampledTokens: 0,
      forcedTokens: 0,
    },
  };
}

/** One call's record: its own stats, and how long its reply took (0 until it ends). */
export interface CallRecord {
  stats: CallStats;
  generationMs: number;
}

/**
 * Starts a call's record: its prompt has `promptLength` tokens, `reused` of them already in the sequence (`restored`
 * of those from the prompt cache); nothing generated yet.
 */
export function startCall(promptLength: number, reused: number, restored: number): CallRecord {
  return {
    stats: {
      promptTokens: promptLength,
      reusedPromptTokens: reused,
      restoredPromptTokens: restored,
      evaluatedPromptTokens: promptLength - reused,
      generatedTokens: 0,
      sampledTokens: 0,
      forcedTokens: 0,
      timeToFirstTokenMs: 0,
      tokensPerSecond: 0,
    },
    generationMs: 0,
  };
}

/** Ends a call's record: the reply (`run`) took `elapsed` ms. */
export function endCall(call: CallRecord, run: TokenRun, elapsed: number): void {
  const generated = run.generated.length;
  call.stats.generatedTokens = generated;
  call.stats.sampledTokens = run.sampled;
  call.stats.forcedTokens = run.forced;
  call.stats.tokensPerSecond = generated > 0 && elapsed > 0 ? (generated * 1000) / elapsed : 0;
  call.generationMs = elapsed;
}

/** Adds a finished (or failed) call to a handle's stats: it becomes the last call, and counts into the totals. */
export function addCall(stats: GenerationStats, call: CallRecord): void {
  Object.assign(stats, statsWithCall(stats, call.stats, call.generationMs));
}
