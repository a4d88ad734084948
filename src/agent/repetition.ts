import { REPEAT_BLOCK_AT, REPEAT_WARN_AT } from "../defaults.js";
import type { SkillCall } from "../actions/action.js";
import { safeStringify } from "../safe-stringify.js";

/** JSON with object keys sorted at every level: the same arguments in any key order give the same text. */
export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (typeof v === "object" && v !== null) {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return safeStringify(sort(value));
}

/** A call's identity for repetition control: the skill and its canonical arguments. */
export function callFingerprint(call: SkillCall): string {
  return `${call.skillName}\u0000${canonicalJson(call.arguments)}`;
}

/** What an earlier identical call came to. */
export type PriorOutcome = { ok: true; result: string; value?: unknown } | { ok: false; message: string };

interface Seen {
  outcome: PriorOutcome;
  /** How many times in a row the call came to this same outcome. */
  sameCount: number;
}

/**
 * Per-run memory of calls and what came of them. The loop answers an exact repeat of a call that succeeded with the
 * earlier result (it does not run again); a call that fails the same way a second time earns a warning, and from
 * REPEAT_BLOCK_AT on it is blocked before it runs. Skills whose results change between calls (`repeatable`) run every
 * time and are never blocked.
 */
export class RepetitionTracker {
  readonly #seen = new Map<string, Seen>();
  /** The run's failures in a row of one skill with one kind of error (see failureStreak). */
  #streak = { skill: "", kind: "", count: 0 };

  /**
   * Record a failed call's error and return how many of the run's calls in a row failed so: the same skill, and the
   * same message once its quoted texts are left out (`Unknown unit "Lisbo"` and `Unknown unit "Lisb"` are one kind).
   * A model that varies the value on each retry escapes the exact-call block; this counts it (see REPEAT_BLOCK_AT).
   */
  failureStreak(call: SkillCall, message: string): number {
    const kind = message.replace(/"(?:[^"\\]|\\.)*"/g, '""');
    const same = this.#streak.skill === call.skillName && this.#streak.kind === kind;
    this.#streak = { skill: call.skillName, kind, count: same ? this.#streak.count + 1 : 1 };
    return this.#streak.count;
  }

  /** What the same call came to before in this run, and how many times in a row; undefined for a new call. */
  prior(call: SkillCall): { outcome: PriorOutcome; count: number } | undefined {
    const seen = this.#seen.get(callFingerprint(call));
    return seen && { outcome: seen.outcome, count: seen.sameCount };
  }

  /** Should this failing call be blocked before it runs (it failed the same way REPEAT_BLOCK_AT - 1 times)? */
  blocked(call: SkillCall): boolean {
    const seen = this.#seen.get(callFingerprint(call));
    return seen !== undefined && !seen.outcome.ok && seen.sameCount >= REPEAT_BLOCK_AT - 1;
  }

  /** Record what a call came to; true when it is at least the REPEAT_WARN_AT-th time in a row with this outcome. */
  record(call: SkillCall, outcome: PriorOutcome): boolean {
    if (outcome.ok) this.#streak = { skill: "", kind: "", count: 0 };
    const key = callFingerprint(call);
    const seen = this.#seen.get(key);
    const same =
      seen !== undefined &&
      seen.outcome.ok === outcome.ok &&
      (outcome.ok
        ? seen.outcome.ok && seen.outcome.result === outcome.result
        : !seen.outcome.ok && seen.outcome.message === outcome.message);
    if (seen && same) {
      seen.sameCount++;
      return seen.sameCount >= REPEAT_WARN_AT;
    }
    this.#seen.set(key, { outcome, sameCount: 1 });
    return false;
  }
}
