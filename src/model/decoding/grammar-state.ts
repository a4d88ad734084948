import type { LlamaGrammarEvaluationState, Token } from "node-llama-cpp";

/**
 * The one internal of node-llama-cpp that jump-forward needs: taking tokens into a grammar evaluation state without
 * sampling them (the addon's `acceptGrammarEvaluationStateToken`, which node-llama-cpp's own speculative decoding
 * and function calling use). Tokens the loader feeds by itself must advance the grammar as sampled ones do.
 */
interface StateInternals {
  _llama?: { _bindings?: { AddonSampler?: { acceptGrammarEvaluationStateToken?: unknown } } };
  _state?: unknown;
}

type Accept = (state: unknown, token: Token) => void;

function acceptFunction(state: LlamaGrammarEvaluationState): Accept | undefined {
  const internals = state as unknown as StateInternals;
  const accept = internals._llama?._bindings?.AddonSampler?.acceptGrammarEvaluationStateToken;
  return typeof accept === "function" && internals._state !== undefined ? (accept as Accept) : undefined;
}

/**
 * Whether this node-llama-cpp can take tokens into a grammar state (feature-detected: a version without it turns
 * jump-forward off instead of failing).
 */
export function canAcceptTokens(state: LlamaGrammarEvaluationState): boolean {
  return acceptFunction(state) !== undefined;
}

/** Advance `state` over `tokens`, as if each had been sampled under it. */
export function acceptTokens(state: LlamaGrammarEvaluationState, tokens: readonly Token[]): void {
  const accept = acceptFunction(state);
  if (!accept) throw new Error("acceptTokens: this node-llama-cpp cannot advance a grammar state by hand");
  const native = (state as unknown as StateInternals)._state;
  for (const token of tokens) accept(native, token);
}
