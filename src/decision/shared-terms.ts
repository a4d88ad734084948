/**
 * The terms a question writes once for all of its items (see questionItems): sentences after the last item that speak
 * of every item, the last item's closing words that name an optional argument, and an enum list written around the
 * items (before the first's values or after the last's).
 */
import { argumentSlots } from "./argument-slots.js";
import { frameEnumLists } from "./clause-lists.js";
import { bestFit, type SkillProfile } from "./skill-fit.js";
import { VALUE, valuesOf } from "./value-spans.js";
import { escapeRegex } from "./words.js";
import { askingValues } from "../model/grounding/grounding-setup.js";

/** Words by which a sentence speaks of every item at once ("for both tests", "in each city", "all three"). */
const EVERY_ITEM = /\b(?:both|each|all|every|either|these|the same)\b/i;

/**
 * The sentences of the last item's text (and its clauses after a comma), past its first, that speak of every item (see
 * EVERY_ITEM) and give a value (see VALUE): the question's shared terms, written once after the items ("... and the
 * second table is [30, 70, 50, 50]. Use a significance level of 0.05 for both tests."). Every other item reads them too
 * (Gemma took the 2 of "2x2 tables" as the first test's significance level).
 */
export function sharedSentences(text: string): string[] {
  // (a clause after a comma too: "... "Facebook" in the county of "San Mateo", both in the state of California?")
  const sentences = text.split(/(?<=[.?!])\s+(?=\p{Lu})|,\s+(?=(?:both|each|all|every)\b)/u);
  return sentences.slice(1).filter((sentence) => EVERY_ITEM.test(sentence) && VALUE.test(sentence));
}

/** An optional argument's key words, each 3 letters or more (`shortest_route`: "shortest", "route"). */
function optionalKeyWords(skill: SkillProfile): string[][] {
  return optionalKeys(skill)
    .map((key) => key.split(/[_\s-]+|(?<=[a-z])(?=[A-Z])/).map((word) => word.toLowerCase()))
    .map((words) => words.filter((word) => word.length >= 3));
}

/** The keys of a skill's arguments that it does not require. */
function optionalKeys(skill: SkillProfile): string[] {
  const required = new Set(Array.isArray(skill.parameters.required) ? (skill.parameters.required as string[]) : []);
  return Object.keys(skill.parameters.properties ?? {}).filter((key) => !required.has(key));
}

/**
 * Whether `tail` writes a value that asks for an optional argument of `skill` (see askingValues: "in meters") that
 * none of the `others` texts writes one for (there each item asks its own: "using bicycling ..., and finally ...
 * using transit").
 */
function writesAskingValue(tail: string, skill: SkillProfile, others: readonly string[]): boolean {
  const properties = (skill.parameters.properties ?? {}) as Record<string, unknown>;
  return optionalKeys(skill).some((key) => {
    const values = askingValues(properties[key], key).map((value) => new RegExp(`\\b${escapeRegex(value)}\\b`, "i"));
    return values.some((value) => value.test(tail)) && !others.some((text) => values.some((value) => value.test(text)));
  });
}

/** How a question's closing words ask for an option of every call: "with ...", "using ...", "and I want ...". */
const OPTION_OPENING = /^(?:and\s+)?(?:with|using|(?:I|we)\s+(?:want|need|would like|'d like|prefer))\b/i;

/**
 * The last item's words after its last value, where they open as an option (see OPTION_OPENING), hold no value and
 * name an optional argument of its skill by all of that key's words or write a value that asks for one: every item's
 * ("... between New York and Washington DC, and between Los Angeles and San Francisco with optional parameter shortest
 * route enabled": `shortest_route` for both calls; "... the fourth circle has a radius of 20m, and I want the output
 * in meters": `units` for all four). `others`: the other items' texts.
 */
export function optionTail(text: string, skills: readonly SkillProfile[], others: readonly string[] = []): string[] {
  const last = valuesOf(text).at(-1);
  const skill = bestFit(text, skills);
  if (!last || !skill) return [];
  // (past a unit written on the value: "20m, and ...")
  const tail = text
    .slice(last.end)
    .replace(/^\p{L}*(?=[\s,])/u, "")
    .replace(/^[\s,]+/, "");
  const words = new Set(tail.toLowerCase().match(/\p{L}+/gu) ?? []);
  const names = optionalKeyWords(skill).some((key) => key.length > 0 && key.every((word) => words.has(word)));
  const asks = names || writesAskingValue(tail, skill, others);
  // (a capital past the tail's start is a name of the last item's own, the pronoun "I" none)
  return asks && OPTION_OPENING.test(tail) && !/\d|['"]|(?<=\S\s+)(?!I\b)\p{Lu}/u.test(tail) ? [tail] : [];
}

/**
 * Of one skill's clauses, an enum list the first writes before its values, or the last after its values, is every
 * clause's ("What is the status and scheduled trial date for case number XY1234 in Los Angeles County Court, and case
 * number GH5678 in Orange County Court?": both details of both cases; "..., considering both the shortest and scenic
 * route preferences"): a clause that names none of its values gets it too, and its lists cross it (see expandLists).
 */
export function spreadFrameLists(valued: { text: string }[], skills: readonly SkillProfile[]): void {
  if (valued.length < 2 || skills.length !== 1) return;
  const slots = argumentSlots(skills[0]);
  // (a word of the skill's name names no value: "the shortest driving distance" for `calculate_shortest_distance`)
  const own = new Set(skills[0].name.toLowerCase().split(/[^\p{L}]+/u));
  for (const piece of [valued[0], valued.at(-1)!]) {
    const values = valuesOf(piece.text);
    if (values.length === 0) continue;
    const first = piece === valued[0] ? values[0].start : 0;
    const last = piece === valued.at(-1) ? values.at(-1)!.end : piece.text.length;
    for (const list of frameEnumLists(piece.text, slots, first, last)) {
      const words = (list.toLowerCase().match(/\p{L}+/gu) ?? []).filter((word) => !own.has(word) && word !== "and");
      for (const other of valued)
        if (other !== piece && !words.some((word) => new RegExp(`\\b${word}\\b`, "i").test(other.text)))
          other.text = `${list}: ${other.text}`;
    }
  }
}
