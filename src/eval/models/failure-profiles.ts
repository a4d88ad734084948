/**
 * The ways a small model goes wrong in one step, and the named profiles that set how often each happens. This file is
 * the one place their rates live.
 */

/** The failures a profile model can make in one reply, in the order the draw checks them. */
export const FAILURE_KINDS = [
  "empty_answer",
  "malformed_json",
  "unknown_skill",
  "invalid_arguments",
  "repeated_call",
  "wrong_answer",
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** Probability of each failure per model reply; they must sum to at most 1 (the rest is a correct step). */
export type FailureRates = Readonly<Record<FailureKind, number>>;

/**
 * Named profiles. Their rates are ASSUMED, not measured: no run of a real model produced them. They sketch the failure
 * mix reported for small instruction-tuned models writing tool calls without a grammar (empty answers and wrong
 * arguments dominate, repeated calls follow). Measured profiles come from `--model profile:fit:<report.json>[#model]`
 * (rates fitted to a real run's records, see fit-profile.ts) or from a profile file written by
 * `scripts/fit-profile.ts` (`--model profile:file:<profile.json>`).
 * - `perfect`: never fails (the same as `oracle`).
 * - `e4b-like`: assumed for a 4B-class model: rare slips.
 * - `e2b-like`: assumed for a 2B-class model: one draw in four is a failure.
 * - `chaotic`: half the draws are failures; for stress-testing the loop's recovery.
 *
 * A rate is per draw (one per reply). A drawn failure that does not apply to the step (invalid arguments when the
 * step is an answer or a call without arguments, a repeated call before any call) becomes a correct step, so the
 * rates measured per model call in a report come out lower than these for those two kinds.
 */
export const FAILURE_PROFILES = {
  perfect: {
    empty_answer: 0,
    malformed_json: 0,
    unknown_skill: 0,
    invalid_arguments: 0,
    repeated_call: 0,
    wrong_answer: 0,
  },
  "e4b-like": {
    empty_answer: 0.02,
    malformed_json: 0.01,
    unknown_skill: 0.01,
    invalid_arguments: 0.04,
    repeated_call: 0.03,
    wrong_answer: 0,
  },
  "e2b-like": {
    empty_answer: 0.06,
    malformed_json: 0.03,
    unknown_skill: 0.03,
    invalid_arguments: 0.08,
    repeated_call: 0.05,
    wrong_answer: 0,
  },
  chaotic: {
    empty_answer: 0.1,
    malformed_json: 0.1,
    unknown_skill: 0.1,
    invalid_arguments: 0.1,
    repeated_call: 0.1,
    wrong_answer: 0,
  },
} as const satisfies Record<string, FailureRates>;

export type FailureProfileName = keyof typeof FAILURE_PROFILES;

/** The profile of that name, or undefined (own-property lookup: `constructor` is not a profile). */
export function failureProfile(name: string): FailureRates | undefined {
  return Object.hasOwn(FAILURE_PROFILES, name) ? FAILURE_PROFILES[name as FailureProfileName] : undefined;
}

/** Names of the profiles, for help texts and errors. */
export function failureProfileNames(): string[] {
  return Object.keys(FAILURE_PROFILES);
}

/** Throws a RangeError unless every rate is in [0, 1] and they sum to at most 1. */
export function checkFailureRates(rates: FailureRates): void {
  let sum = 0;
  for (const kind of FAILURE_KINDS) {
    const rate = rates[kind];
    if (!(rate >= 0 && rate <= 1)) throw new RangeError(`failure rate ${kind} must be in [0, 1] (got ${String(rate)})`);
    sum += rate;
  }
  if (sum > 1 + 1e-12) throw new RangeError(`failure rates sum to ${sum}, more than 1`);
}

/**
 * Draw the failure of one reply: one uniform number, compared against the cumulative rates in FAILURE_KINDS order;
 * undefined means a correct step. Exactly one number is drawn per call, whatever the outcome, so runs that share a
 * seed stay in step.
 */
export function drawFailure(random: () => number, rates: FailureRates): FailureKind | undefined {
  const u = random();
  let edge = 0;
  for (const kind of FAILURE_KINDS) {
    edge += rates[kind];
    if (u < edge) return kind;
  }
  return undefined;
}
