import { REPEAT_BLOCK_AT, REPEAT_WARN_AT } from "../defaults.js";
import type { SkillCall } from "../actions/action.js";
import { safeStringify } from "../skills/render-result.js";

/** JSON with object keys sorted at every level: the same arguments in any key order give the same text. */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (typeof v === "object" && v !== null) {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])]));
    }
    return v;
  };
  return safeStringify(sort(value));
}

/** A call's identity for repetition control: the skill and its canonical arguments. */
export function callFingerprint(call: SkillCall): string {
  return `${call.skillName}\u0000${canonicalJson(call.arguments)}`;
}

interface Seen {
  /** How many times in a row this call gave `result`. */
  sameResultCount: number;
  result: string;
}

/**
 * Per-run memory of calls and their results. The same call giving the same result a second time earns a warning for
 * the model; a third time it is blocked before it runs.
 */
export class RepetitionTracker {
  readonly #seen = new Map<string, Seen>();

  /** Was this call made before in this run? */
  isRepeat(call: SkillCall): boolean {
    return this.#seen.has(callFingerprint(call));
  }

  /** How many times the call already gave the same result, when that reaches the block threshold; else undefined. */
  blockedCount(call: SkillCall): number | undefined {
    const seen = this.#seen.get(callFingerprint(call));
    return seen && seen.sameResultCount >= REPEAT_BLOCK_AT - 1 ? seen.sameResultCount : undefined;
  }

  /** Record a result; true when this is at least the second time the call gave this same result. */
  record(call: SkillCall, result: string): boolean {
    const key = callFingerprint(call);
    const seen = this.#seen.get(key);
    if (seen && seen.result === result) {
      seen.sameResultCount++;
      return seen.sameResultCount >= REPEAT_WARN_AT;
    }
    this.#seen.set(key, { sameResultCount: 1, result });
    return false;
  }
}
