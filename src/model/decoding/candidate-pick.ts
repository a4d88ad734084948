import type { Token } from "node-llama-cpp";

/** How a token is picked among the allowed candidates: the call's temperature and top-p, and a random source. */
export interface PickSampling {
  /** 0: greedy. */
  temperature: number;
  topP: number;
  /** Uniform in [0, 1). */
  random: () => number;
}

/**
 * Pick the next token among the model's top candidates (token and probability, at temperature 1 after the token
 * bias, as llama.cpp's top-K gives them) that `allows` accepts, the way llama.cpp samples once its grammar has masked
 * every other token: greedy takes the most probable allowed candidate; with a temperature, top-p keeps the most
 * probable allowed candidates whose renormalized mass reaches `topP`, and one is drawn with probabilities
 * proportional to `p^(1/temperature)` (the softmax of the logits over the temperature). Undefined when no candidate
 * is allowed (the caller then needs a pass over the whole vocabulary).
 *
 * The one difference from the masked distribution: allowed tokens ranked below the candidates are not seen. Greedy
 * never needs them (the best allowed token is among the candidates whenever any allowed one is).
 */
export function pickCandidate<T = Token>(
  candidates: Iterable<readonly [T, number]>,
  allows: (token: T) => boolean,
  sampling: PickSampling,
): T | undefined {
  const ranked = [...candidates].filter(([, p]) => p > 0).sort((a, b) => b[1] - a[1]);
  if (sampling.temperature <= 0) return ranked.find(([token]) => allows(token))?.[0];
  const allowed = ranked.filter(([token]) => allows(token));
  if (allowed.length === 0) return undefined;
  const total = allowed.reduce((sum, [, p]) => sum + p, 0);
  let kept = 0;
  for (let mass = 0; kept < allowed.length && (kept === 0 || mass < sampling.topP);) mass += allowed[kept++][1] / total;
  const top = Math.log(allowed[0][1]);
  const weights = allowed.slice(0, kept).map(([, p]) => Math.exp((Math.log(p) - top) / sampling.temperature));
  let draw = sampling.random() * weights.reduce((sum, w) => sum + w, 0);
  for (let i = 0; i < kept; i++) {
    draw -= weights[i];
    if (draw < 0) return allowed[i][0];
  }
  return allowed[kept - 1][0];
}
