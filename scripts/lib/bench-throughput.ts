/**
 * Throughput samples of the benchmark, each from an empty sequence of the handle's own context (same threads, same
 * batch size): prompt evaluation (prefill) raw and through the handle, decoding raw (a), through `generate` (b) and
 * under the action grammar (c). One call = one sample; the caller alternates them over rounds.
 */
import type { Token } from "node-llama-cpp";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { benchAccess } from "../../src/model/llama/bench-access.js";
import type { GenerateOptions } from "../../src/model/model-handle.js";

const NAMES = ["Ana", "Bo", "Chidi", "Dana", "Emil", "Farah", "Goran", "Hana"];

/**
 * A chat prompt of at least `target` tokens (and at most one sentence more): a system line and a user message of
 * numbered, varied sentences, so that the prefill is realistic text rather than one repeated token.
 */
export function prefillPrompt(handle: LlamaModelHandle, target: number): { text: string; tokens: Token[] } {
  const sentences: string[] = [];
  const render = () =>
    handle.chatFormat.render([
      { role: "system", content: "You are a helpful assistant. Answer from the notes below." },
      { role: "user", content: `${sentences.join(" ")}\nWhich order weighed the most?` },
    ]);
  let text = render();
  for (let i = 1; handle.tokenize(text).length < target; i++) {
    sentences.push(
      `Note ${i}: order ${1000 + i * 37} for ${NAMES[i % NAMES.length]} shipped on ${((i * 13) % 28) + 1} March in ${((i * 7) % 9) + 2} boxes weighing ${((i * 37) % 250) / 10 + 1} kg.`,
    );
    text = render();
  }
  return { text, tokens: handle.tokenize(text) };
}

/** Prefill tokens/s of raw `evaluateWithoutGeneratingNewTokens` on the whole prompt, from an empty sequence. */
export async function rawPrefill(handle: LlamaModelHandle, tokens: Token[]): Promise<number> {
  const { sequence } = benchAccess(handle).llamaObjects;
  await sequence.clearHistory();
  const started = performance.now();
  await sequence.evaluateWithoutGeneratingNewTokens(tokens);
  return (tokens.length * 1000) / (performance.now() - started);
}

/**
 * Prefill tokens/s through the handle: `generate(prompt, { maxTokens: 1 })` from an empty sequence, prompt tokens over
 * the time to the first token (so the one sampled token is included; the handle evaluates in PROMPT_EVALUATION_SLICE
 * slices).
 */
export async function handlePrefill(handle: LlamaModelHandle, text: string): Promise<number> {
  await benchAccess(handle).llamaObjects.sequence.clearHistory();
  await handle.generate(text, { maxTokens: 1, temperature: 0 });
  const { evaluatedPromptTokens, timeToFirstTokenMs } = handle.stats;
  return (evaluatedPromptTokens * 1000) / timeToFirstTokenMs;
}

/** (a): tokens/s of `count` greedy tokens from raw `LlamaContextSequence.evaluate` (no grammar, no token bias). */
export async function rawDecode(
  handle: LlamaModelHandle,
  prompt: Token[],
  count: number,
): Promise<{ tokensPerSecond: number; generatedTokens: number }> {
  const { sequence } = benchAccess(handle).llamaObjects;
  await sequence.clearHistory();
  await sequence.evaluateWithoutGeneratingNewTokens(prompt.slice(0, -1));
  let generated = 0;
  const started = performance.now();
  for await (const _token of sequence.evaluate(prompt.slice(-1), { temperature: 0 })) {
    if (++generated >= count) break;
  }
  return { tokensPerSecond: (generated * 1000) / (performance.now() - started), generatedTokens: generated };
}

/** (b) / (c): the handle's own generation tokens/s (prompt evaluation excluded), from an empty sequence. */
export async function handleDecode(
  handle: LlamaModelHandle,
  prompt: string,
  options: GenerateOptions,
): Promise<{ tokensPerSecond: number; generatedTokens: number }> {
  await benchAccess(handle).llamaObjects.sequence.clearHistory();
  await handle.generate(prompt, { temperature: 0, ...options });
  const { tokensPerSecond, generatedTokens } = handle.stats;
  return { tokensPerSecond, generatedTokens };
}
