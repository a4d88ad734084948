import type { GenerationStats } from "../model-handle.js";
import type { TokenRun } from "./token-run.js";

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

/**
 * Starts a call's record in `stats`: its prompt has `promptLength` tokens, `reused` of them already in the sequence
 * (`restored` of those from the prompt cache); the reply's counts are reset.
 */
export function recordPrompt(stats: GenerationStats, promptLength: number, reused: number, restored: number): void {
  stats.promptTokens = promptLength;
  stats.reusedPromptTokens = reused;
  stats.restoredPromptTokens = restored;
  stats.evaluatedPromptTokens = promptLength - reused;
  stats.generatedTokens = 0;
  stats.sampledTokens = 0;
  stats.forcedTokens = 0;
  stats.timeToFirstTokenMs = 0;
  stats.tokensPerSecond = 0;
  stats.totals.calls++;
  stats.totals.promptTokens += promptLength;
  stats.totals.evaluatedPromptTokens += promptLength - reused;
}

/** Ends a call's record in `stats`: the reply (`run`) took `elapsed` ms. */
export function recordGeneration(stats: GenerationStats, run: TokenRun, elapsed: number): void {
  const generated = run.generated.length;
  stats.generatedTokens = generated;
  stats.sampledTokens = run.sampled;
  stats.forcedTokens = run.forced;
  stats.tokensPerSecond = generated > 0 && elapsed > 0 ? (generated * 1000) / elapsed : 0;
  stats.totals.generatedTokens += generated;
  stats.totals.generationMs += elapsed;
  stats.totals.sampledTokens = (stats.totals.sampledTokens ?? 0) + run.sampled;
  stats.totals.forcedTokens = (stats.totals.forcedTokens ?? 0) + run.forced;
}
