import { raceAbort } from "../abort.js";
import type { GenerateOptions, ModelHandle } from "../model/model-handle.js";
import type { ModelCallTokens, RunStats } from "./events.js";

/** One model call's reply, its tokens (when the model reports them) and its wall time. */
export interface CountedGeneration {
  text: string;
  tokens?: ModelCallTokens;
  ms: number;
}

/**
 * One model call, counted into a run's stats: `modelCalls`, `modelMs` and, from the handle's stats of its last call,
 * the prompt, evaluated and generated tokens (counted also when the call fails). Settles as soon as `options.signal`
 * aborts, even when the model ignores it. Rejects when the call fails or returns something other than text.
 */
export async function generateCounted(
  model: ModelHandle,
  prompt: string,
  options: GenerateOptions,
  stats: RunStats,
): Promise<CountedGeneration> {
  const started = performance.now();
  stats.modelCalls++;
  /** Count the call's time and tokens into the run (once), and return the tokens. */
  const count = (): ModelCallTokens | undefined => {
    stats.modelMs += performance.now() - started;
    const s = model.stats;
    if (!s) return undefined;
    stats.promptTokens += s.promptTokens;
    stats.evaluatedPromptTokens += s.evaluatedPromptTokens;
    stats.generatedTokens += s.generatedTokens;
    return { prompt: s.promptTokens, evaluatedPrompt: s.evaluatedPromptTokens, generated: s.generatedTokens };
  };
  let text: unknown;
  try {
    text = await raceAbort(
      Promise.resolve().then(() => model.generate(prompt, options)),
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
