import type { Token } from "node-llama-cpp";
import { LOOP_GUARD_MAX_PERIOD, LOOP_GUARD_MIN_REPEATS, LOOP_GUARD_MIN_TOKENS } from "./defaults.js";

/**
 * Whether a reply has fallen into a loop: its last tokens are one short stretch (at most LOOP_GUARD_MAX_PERIOD
 * tokens) written LOOP_GUARD_MIN_REPEATS times or more in a row, LOOP_GUARD_MIN_TOKENS tokens at least. Small models
 * at temperature 0 do this inside JSON strings ("15.000000…", "x or x or x or …") until the string's bound: Gemma 3
 * 270M spent 500 tokens a step on one such expression. Under a grammar the loader then wraps the reply up (closes the
 * string and the action) as it does at `maxTokens`.
 */
export function inLoop(tokens: readonly Token[]): boolean {
  const n = tokens.length;
  for (let period = 1; period <= LOOP_GUARD_MAX_PERIOD; period++) {
    const span = Math.max(LOOP_GUARD_MIN_TOKENS, period * LOOP_GUARD_MIN_REPEATS);
    if (span > n) break;
    let repeats = true;
    for (let i = n - span; i < n - period && repeats; i++) repeats = tokens[i] === tokens[i + period];
    if (repeats) return true;
  }
  return false;
}
