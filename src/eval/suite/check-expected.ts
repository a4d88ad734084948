import type { SkillCall } from "../../actions/action.js";
import { SUITE_REGEX_TIMEOUT_MS, testRegexBounded } from "../../bounded-regex.js";
import type { Expected } from "./suite-schema.js";

/** The verdict on one run. `failures` says, one line each, which conditions did not hold. */
export interface ExpectationResult {
  success: boolean;
  failures: string[];
}

/** Case, spacing, thousands separators and a final full stop do not matter when answers are compared. */
function normalizeAnswer(text: string): string {
  return text
    .trim()
    .replace(/\s+/g, " ")
    .toLowerCase()
    .replace(/(\d),(?=\d{3}\b)/g, "$1")
    .replace(/[.!]+$/, "");
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/;

function sameNumber(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

/** Equal as normalized text, or as numbers when both sides are numbers. */
export function answerEquals(answer: string, expected: string | number): boolean {
  const a = normalizeAnswer(answer);
  const e = normalizeAnswer(String(expected));
  if (NUMBER.test(a) && NUMBER.test(e)) return sameNumber(Number(a), Number(e));
  return a === e;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The normalized answer contains the normalized needle. A numeric needle must stand as a whole number: "39" is not
 * found in "395" nor in "3.39", but is in "39." and "(39)".
 */
export function answerIncludes(answer: string, needle: string): boolean {
  const a = normalizeAnswer(answer);
  const n = normalizeAnswer(needle);
  if (NUMBER.test(n)) return new RegExp(`(?<![\\d.])${escapeRegExp(n)}(?!\\.?\\d)`).test(a);
  return a.includes(n);
}

function valueMatches(actual: unknown, expected: unknown): boolean {
  if (typeof expected === "string")
    return typeof actual === "string" && actual.trim().toLowerCase() === expected.trim().toLowerCase();
  if (typeof expected === "number") return typeof actual === "number" && sameNumber(actual, expected);
  if (Array.isArray(expected))
    return (
      Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => valueMatches(actual[i], e))
    );
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return false;
    return Object.entries(expected).every(
      ([k, v]) => Object.hasOwn(actual, k) && valueMatches((actual as Record<string, unknown>)[k], v),
    );
  }
  return actual === expected;
}

/** Does `call` satisfy an expected call (same skill; every expected argument present and equal; others allowed)? */
function callMatches(call: SkillCall, expected: { skill: string; arguments?: Record<string, unknown> }): boolean {
  return call.skillName === expected.skill && valueMatches(call.arguments, expected.arguments ?? {});
}

/** Judge a run by a task's `expected`: every condition given must hold. */
export function checkExpected(
  expected: Expected,
  run: { answer: string | undefined; calls: readonly SkillCall[] },
): ExpectationResult {
  const failures: string[] = [];
  const { answer, calls } = run;
  const needsAnswer =
    expected.equals !== undefined || expected.includes !== undefined || expected.matches !== undefined;
  if (needsAnswer && answer === undefined) failures.push("no answer");
  // "no call" is shown by a run that answered without one; a run cut off first might have called next
  else if (expected.noCalls && answer === undefined)
    failures.push("no answer (noCalls needs the run to answer without calling a skill)");
  if (answer !== undefined) {
    if (expected.equals !== undefined && !answerEquals(answer, expected.equals))
      failures.push(`answer does not equal ${JSON.stringify(expected.equals)}`);
    for (const needle of expected.includes === undefined ? [] : [expected.includes].flat()) {
      if (!answerIncludes(answer, needle)) failures.push(`answer does not include ${JSON.stringify(needle)}`);
    }
    if (expected.matches !== undefined) {
      const matched = testRegexBounded(expected.matches, "i", answer);
      if (matched === "timeout")
        failures.push(
          `the check /${expected.matches}/i timed out after ${SUITE_REGEX_TIMEOUT_MS / 1000} s on this answer (catastrophic backtracking?)`,
        );
      else if (!matched) failures.push(`answer does not match /${expected.matches}/i`);
    }
  }
  if (expected.calls) {
    const unused = [...calls];
    for (const want of expected.calls) {
      const index = unused.findIndex((call) => callMatches(call, want));
      if (index < 0)
        failures.push(`missing call ${want.skill}${want.arguments ? ` ${JSON.stringify(want.arguments)}` : ""}`);
      else unused.splice(index, 1);
    }
  }
  if (expected.noCalls && calls.length > 0) failures.push(`expected no skill calls, got ${calls.length}`);
  return { success: failures.length === 0, failures };
}
