import type { LlamaModel, Token } from "node-llama-cpp";

/** Token sets the loader needs, computed once per model by looking at every token of the vocabulary. */
export interface TokenClasses {
  vocabularySize: number;
  /**
   * Tokens never sampled: those whose text is empty (`<pad>`, `<mask>`, `<unusedN>`, image markers, `<start_of_turn>`)
   * and unknown-token markers, end-of-generation tokens excepted. An empty token passes any grammar without moving
   * it, so a model can spin on it; and a turn marker written by the model would forge a turn.
   */
  banned: Token[];
  /** Tokens made only of `"`, `}` and `]`: favoured when a grammar-constrained reply must wrap up. */
  closers: Token[];
}

const CLOSING_TEXT = /^["}\]]+$/;

/** Classify every token of `model`'s vocabulary (a few hundred ms for Gemma's 262,144 tokens). */
export function classifyTokens(model: LlamaModel): TokenClasses {
  const banned: Token[] = [];
  const closers: Token[] = [];
  let vocabularySize = 0;
  for (const token of model.iterateAllTokens()) {
    vocabularySize++;
    if (model.isEogToken(token)) continue;
    const text = model.detokenize([token], false);
    if (text === "" || model.getTokenAttributes(token).unknown) banned.push(token);
    else if (CLOSING_TEXT.test(text)) closers.push(token);
  }
  return { vocabularySize, banned, closers };
}
