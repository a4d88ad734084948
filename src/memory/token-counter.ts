import { ESTIMATED_CHARS_PER_TOKEN } from "../defaults.js";
import type { ModelHandle } from "../model/model-handle.js";

/** Counts the tokens of a prompt, with the model's own tokenizer or, without one, a labelled estimate. */
export interface TokenCounter {
  count(prompt: string): Promise<number>;
  /** True when the counts are estimates (the model handle has no `countTokens`). */
  readonly estimated: boolean;
  /** How the counts are made, for people: `the model's tokenizer` or the estimate's rule. */
  readonly label: string;
}

/** Tokens of a text by the estimate: one per ESTIMATED_CHARS_PER_TOKEN characters, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / ESTIMATED_CHARS_PER_TOKEN);
}

/** The label of estimated counts. */
export const ESTIMATE_LABEL = `estimate: ${ESTIMATED_CHARS_PER_TOKEN} characters a token (the model has no tokenizer)`;

/**
 * The model's token counter: its `countTokens` (the GGUF's tokenizer, for the llama loader) when it has one, else the
 * estimate, labelled as such.
 */
export function tokenCounter(model: Pick<ModelHandle, "countTokens">): TokenCounter {
  if (typeof model.countTokens === "function") {
    const count = model.countTokens.bind(model);
    return { count: async (prompt) => count(prompt), estimated: false, label: "the model's tokenizer" };
  }
  return { count: async (prompt) => estimateTokens(prompt), estimated: true, label: ESTIMATE_LABEL };
}
