import { TokenBias, type LlamaContextSequence, type LlamaModel, type Token } from "node-llama-cpp";
import type { LastReply } from "../../src/model/llama/bench-access.js";
import { classifyTokens } from "../../src/model/grounding/token-classes.js";

/** What the model would have sampled at each sampling of a constrained reply, without the grammar. */
export interface RefusalCount {
  /** Samplings in the reply. */
  sampled: number;
  /** Of those, how many the grammar refused (the model's own greedy choice was not allowed). */
  refused: number;
  /**
   * Of the refusals, those about form, not content: the model wanted whitespace, a code fence, or the same text
   * spaced otherwise (what compact examples and a forced opening remove). The rest chose other content (another key,
   * another skill, prose instead of JSON).
   */
  formRefused: number;
  /** Each refusal: the token the model wanted, and the one it got. */
  examples: { wanted: string; got: string }[];
}

/** A refusal about form: the wanted token is whitespace, starts with it, opens a code fence, or is the got text spaced. */
export function aboutForm({ wanted, got }: { wanted: string; got: string }): boolean {
  const bare = (text: string) => text.replace(/\s+/g, "");
  return /^\s/.test(wanted) || wanted.includes("`") || (bare(wanted) !== "" && bare(wanted) === bare(got));
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
  const result: RefusalCount = { sampled: reply.samples.length, refused: 0, formRefused: 0, examples: [] };
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
        const refusal = { wanted: model.detokenize([next.value]), got: model.detokenize([got]) };
        result.refused++;
        if (aboutForm(refusal)) result.formRefused++;
        result.examples.push(refusal);
      }
    }
  } finally {
    await iterator.return();
  }
  await sequence.clearHistory();
  return result;
}
