import { raceAbort } from "../abort.js";
import type { CallStats, GenerateOptions, ModelHandle } from "../model/model-handle.js";
import type { ModelCallTokens, RunStats } from "./events.js";

/** One model call's reply, its tokens (when the model reports them) and its wall time. */
export interface CountedGeneration {
  text: string;
  tokens?: ModelCallTokens;
  ms: number;
}

/** Handles seen reporting a call's own stats (`onStats`): their shared `stats` are never read. */
const reportsPerCall = new WeakSet<ModelHandle>();

/**
 * One model call, counted into a run's stats: `modelCalls`, `modelMs` and the prompt, evaluated and generated tokens
 * the call itself reported through `GenerateOptions.onStats` (so calls running at once on one handle each count their
 * own; a failed call counts what it reported before failing). A handle that never reports per call but has `stats`
 * is read after the call instead (the old way, right only when no other call runs on it at the same time). Settles as
 * soon as `options.signal` aborts, even when the model ignores it. Rejects when the call fails or returns something
 * other than text.
 */
export async function generateCounted(
  model: ModelHandle,
  prompt: string,
  options: GenerateOptions,
  stats: RunStats,
): Promise<CountedGeneration> {
  const started = performance.now();
  stats.modelCalls++;
  let reported: CallStats | undefined;
  const onStats = (call: CallStats) => {
    reportsPerCall.add(model);
    reported ??= call;
    options.onStats?.(call);
  };
  /** Count the call's time and tokens into the run (once), and return the tokens. */
  const count = (): ModelCallTokens | undefined => {
    stats.modelMs += performance.now() - started;
    const s = reported ?? (reportsPerCall.has(model) ? undefined : model.stats);
    if (!s) return undefined;
    stats.promptTokens += s.promptTokens;
    stats.evaluatedPromptTokens += s.evaluatedPromptTokens;
    stats.generatedTokens += s.generatedTokens;
    return { prompt: s.promptTokens, evaluatedPrompt: s.evaluatedPromptTokens, generated: s.generatedTokens };
  };
  let text: unknown;
  try {
    text = await raceAbort(
      Promise.resolve().then(() => model.generate(prompt, { ...options, onStats })),
      options.signal,
    );
  } catch (error) {
    count();
    throw error;
  }
  const tokens = count();
  if (typeof text !== "string") throw new TypeError(`model.generate returned ${typeof text}, not a string`);
  return { text, tokens, ms: performance.now() - started };
}
