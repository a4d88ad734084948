import { TokenBias, type LlamaContextSequence, type LlamaModel, type Token } from "node-llama-cpp";
import type { LastReply } from "../../src/model/llama/llama-model-handle.js";
import { classifyTokens } from "../../src/model/llama/token-classes.js";

/** What the model would have sampled at each sampling of a constrained reply, without the grammar. */
export interface RefusalCount {
  /** Samplings in the reply. */
  sampled: number;
  /** Of those, how many the grammar refused (the model's own greedy choice was not allowed). */
  refused: number;
  /** Each refusal: the token the model wanted, and the one it got. */
  examples: { wanted: string; got: string }[];
}

/**
 * Count a greedy constrained reply's refusals by replaying it without the grammar: the prompt, then the reply's tokens
 * as they stand, and at each position where a token was sampled, the model's free greedy choice (same banned tokens)
 * against the token the grammar let it sample. A refusal is the case where llama.cpp had to run the grammar over the
 * whole vocabulary (node-llama-cpp first checks the sampled token alone). Uses (and empties) `sequence`.
 */
export async function countRefusals(
  model: LlamaModel,
  sequence: LlamaContextSequence,
  reply: LastReply,
): Promise<RefusalCount> {
  const bias = new TokenBias(model.tokenizer);
  for (const token of classifyTokens(model).banned) bias.set(token, "never");
  await sequence.clearHistory();
  const prompt = reply.promptTokens;
  await sequence.evaluateWithoutGeneratingNewTokens(prompt.slice(0, -1));
  const result: RefusalCount = { sampled: reply.samples.length, refused: 0, examples: [] };
  if (reply.samples.length === 0) return result;
  const feed = (from: number, to: number): Token[] => reply.tokens.slice(from, to);
  const [firstPosition] = reply.samples[0];
  const iterator = sequence.evaluate([prompt.at(-1)!, ...feed(0, firstPosition)], { temperature: 0, tokenBias: bias });
  try {
    for (let i = 0; i < reply.samples.length; i++) {
      const [position, got] = reply.samples[i];
      const next = await iterator.next(i === 0 ? undefined : feed(reply.samples[i - 1][0], position));
      if (next.done) break;
      if (next.value !== got) {
        result.refused++;
        result.examples.push({ wanted: model.detokenize([next.value]), got: model.detokenize([got]) });
      }
    }
  } finally {
    await iterator.return();
  }
  await sequence.clearHistory();
  return result;
}
