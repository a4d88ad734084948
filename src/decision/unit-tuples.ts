/**
 * Calls that a question gives as runs of measured values (issue 40): "John, who weighs 85 kilograms and is 1.8 meters
 * tall, and his friend Sarah, who weighs 60 kilograms and is 1.65 meters tall ... Mike, who weighs 75 kilograms and
 * is 1.7 meters tall" is three calls of `calculate_BMI(weight_kg, height_m)`, one per run of a weight and a height.
 */
import type { SkillProfile } from "./skill-fit.js";
import { NUMERAL } from "./value-spans.js";
import { contentStems, nameStems, stem } from "./words.js";

/** A numeral and the word after it ("85 kilograms", "12 months", "2.5 atm", "$5000" has none). */
const MEASURED = new RegExp(`(?<![\\p{L}\\p{N}.])(${NUMERAL})[-\\s]?(\\p{L}+)`, "gu");

/** Where one run ends and the next begins: a comma, "and", a semicolon or a sentence's end (the last in the gap). */
const RUN_JOINT = /,\s*(?:and\s+)?|\s+and\s+|;\s*|[.?!]\s+/g;

type Property = { type?: unknown; description?: unknown };

/**
 * The texts of the calls a question asks for where it measures the values of one skill's number arguments again and
 * again: each numeral whose next word is a unit that one number argument's name or description holds ("kilograms" of
 * "The weight of the person in kilograms", "months" of `usage_duration`: "Usage duration in months") is that
 * argument's; where some argument gets two values or more, and every argument with more than one gets the same count
 * k, the question is k calls, cut at the last joint before each run's first value (the first text keeps what comes
 * before; what comes after the last run's values is every text's). A unit two arguments share ("atm" of both
 * pressures) tells nothing; neither does a skill with an array of numbers (it takes a list whole). Else none ([]).
 */
export function unitTuples(text: string, skill: SkillProfile | undefined): string[] {
  const properties = (skill?.parameters.properties ?? {}) as Record<string, Property>;
  const numeric: { key: string; words: Set<string> }[] = [];
  for (const [key, schema] of Object.entries(properties)) {
    const types = [schema?.type].flat();
    if (types.includes("array")) return [];
    if (!types.some((type) => type === "number" || type === "integer" || type === "float")) continue;
    const description = typeof schema?.description === "string" ? schema.description : "";
    numeric.push({ key, words: new Set([...nameStems(key), ...contentStems(description)]) });
  }
  if (numeric.length === 0) return [];
  const runs = new Map<string, { start: number; end: number; unitEnd: number }[]>();
  for (const match of text.matchAll(MEASURED)) {
    const unit = stem(match[2]);
    const owners = numeric.filter((argument) => argument.words.has(unit));
    if (owners.length !== 1) continue;
    const at = { start: match.index, end: match.index + match[1].length, unitEnd: match.index + match[0].length };
    runs.set(owners[0].key, [...(runs.get(owners[0].key) ?? []), at]);
  }
  const counts = new Set([...runs.values()].map((values) => values.length).filter((count) => count > 1));
  if (counts.size !== 1) return [];
  const k = [...counts][0];
  const repeated = [...runs.values()].filter((values) => values.length === k);
  const cuts: number[] = [];
  for (let i = 1; i < k; i++) {
    const from = Math.max(...repeated.map((values) => values[i - 1].end));
    const to = Math.min(...repeated.map((values) => values[i].start));
    if (from >= to) return [];
    const joints = [...text.slice(from, to).matchAll(RUN_JOINT)];
    cuts.push(from + (joints.at(-1)?.index ?? to - from));
  }
  // what follows the last run's values is every call's ("... and wind energy for 8 months in the Midwest region")
  const tail = text.slice(Math.max(...repeated.map((values) => values[k - 1].unitEnd))).trim();
  return [0, ...cuts].map((start, i) => {
    const own = text
      .slice(start, cuts[i] ?? text.length)
      .replace(/^[\s,;.?!]+/, "")
      .trim();
    return i < k - 1 && tail !== "" ? `${own} ${tail}` : own;
  });
}
