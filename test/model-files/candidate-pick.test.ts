/**
 * Candidate sampling's pick, without a model: greedy takes the best allowed candidate; with a temperature, the draws
 * follow the distribution llama.cpp samples from once its grammar has masked the vocabulary (a reference written
 * here the way llama.cpp's chain runs: logits, the mask, top-k, softmax, top-p, temperature, softmax).
 */
import { describe, expect, it } from "vitest";
import { pickCandidate } from "../../src/model/decoding/candidate-pick.js";
import { seededRandom } from "../../src/random.js";

/** llama.cpp's masked chain over a small vocabulary given by logits: the probability of each token. */
function maskedDistribution(
  logits: Map<number, number>,
  allowed: Set<number>,
  options: { topK: number; topP: number; temperature: number },
): Map<number, number> {
  const kept = [...logits].filter(([token]) => allowed.has(token)).sort((a, b) => b[1] - a[1]);
  const topK = kept.slice(0, options.topK);
  const max = topK[0][1];
  const z = topK.reduce((sum, [, l]) => sum + Math.exp(l - max), 0);
  const cut: [number, number][] = [];
  let cumulative = 0;
  for (const [token, l] of topK) {
    cut.push([token, l]);
    cumulative += Math.exp(l - max) / z;
    if (cumulative >= options.topP) break;
  }
  const scaled = cut.map(([token, l]) => [token, l / options.temperature] as const);
  const top = Math.max(...scaled.map(([, l]) => l));
  const total = scaled.reduce((sum, [, l]) => sum + Math.exp(l - top), 0);
  return new Map(scaled.map(([token, l]) => [token, Math.exp(l - top) / total]));
}

/** The candidates llama.cpp's top-K gives for `logits` at temperature 1: token and probability, best first. */
function candidatesOf(logits: Map<number, number>, topK: number): [number, number][] {
  const ranked = [...logits].sort((a, b) => b[1] - a[1]).slice(0, topK);
  const z = ranked.reduce((sum, [, l]) => sum + Math.exp(l), 0);
  return ranked.map(([token, l]) => [token, Math.exp(l) / z]);
}

describe("pickCandidate", () => {
  const never = () => 0.5;

  it("greedy: the most probable allowed candidate, in whatever order the candidates come", () => {
    const candidates: [number, number][] = [
      [7, 0.1],
      [3, 0.5],
      [9, 0.3],
      [4, 0.1],
    ];
    const allowed = new Set([7, 9, 4]);
    expect(pickCandidate(candidates, (t) => allowed.has(t), { temperature: 0, topP: 0.95, random: never })).toBe(9);
    expect(pickCandidate(candidates, () => true, { temperature: 0, topP: 0.95, random: never })).toBe(3);
  });

  it("no allowed candidate (or only ones of probability 0): undefined, at any temperature", () => {
    const candidates: [number, number][] = [
      [1, 0.9],
      [2, 0.1],
      [3, 0],
    ];
    for (const temperature of [0, 0.8])
      expect(pickCandidate(candidates, (t) => t === 3, { temperature, topP: 0.95, random: never })).toBeUndefined();
  });

  it.each([
    { temperature: 0.7, topP: 0.95 },
    { temperature: 1.3, topP: 0.8 },
    { temperature: 0.4, topP: 1 },
  ])("with a temperature, draws follow llama.cpp's masked distribution ($temperature, top-p $topP)", (options) => {
    const logits = new Map([
      [10, 2.0],
      [11, 1.6],
      [12, 1.1],
      [13, 0.9],
      [14, 0.2],
      [15, -0.4],
      [16, -1.5],
    ]);
    const allowed = new Set([11, 12, 14, 15, 16]);
    const expected = maskedDistribution(logits, allowed, { topK: 64, ...options });
    const candidates = candidatesOf(logits, 64);
    const random = seededRandom(42);
    const draws = 200_000;
    const counts = new Map<number, number>();
    for (let i = 0; i < draws; i++) {
      const token = pickCandidate(candidates, (t) => allowed.has(t), { ...options, random });
      counts.set(token!, (counts.get(token!) ?? 0) + 1);
    }
    for (const token of counts.keys()) expect(expected.has(token), `token ${token} drawn`).toBe(true);
    for (const [token, p] of expected) expect(Math.abs((counts.get(token) ?? 0) / draws - p)).toBeLessThan(0.005);
    // the mask mattered: a disallowed token with the highest logit was never drawn
    expect(counts.get(10)).toBeUndefined();
  });
});

describe("seededRandom", () => {
  it("repeats its sequence for a seed, differs across seeds, stays in [0, 1)", () => {
    const take = (seed: number) => Array.from({ length: 1000 }, seededRandom(seed));
    expect(take(7)).toEqual(take(7));
    expect(take(7)).not.toEqual(take(8));
    const values = take(123);
    expect(values.filter((x) => x < 0 || x >= 1)).toEqual([]);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.05);
  });
});
