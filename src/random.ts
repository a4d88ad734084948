/** A source of uniform numbers in [0, 1). */
export type Random = () => number;

/**
 * A seeded pseudo-random source (mulberry32: 32-bit state, passes the usual statistical batteries well enough for
 * drawing failure kinds, and is tiny and portable). The same seed gives the same sequence on every platform.
 */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A 32-bit seed from text (FNV-1a). Runs derive their seed from `seed|model|task`, never from the budget, so the same
 * task and seed draw the same sequence under every budget: a larger budget only extends the run.
 */
export function hashSeed(...parts: (string | number)[]): number {
  let hash = 0x811c9dc5;
  for (const char of parts.join("|")) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
