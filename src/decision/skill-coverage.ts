import type { QuestionItem } from "./question-items.js";
import { holdsNameWord, questionValues, type SkillProfile } from "./skill-fit.js";
import { contentStems, nameStems, stem } from "./words.js";

/**
 * A question's items with every skill it asks for covered (issue 40): the items read a question's clauses and lists,
 * and each item's call takes the skill that fits it best, so a skill whose request shares a clause with another's
 * ("the operational hours for Louvre Museum and the waiting time", "the Battle of Waterloo and the signing of the
 * Treaty of Tordesillas") gets no call of its own. A skill is asked for, though no item's best fit, where it fits an
 * item above the threshold and the question holds every word of its name that no covered skill's name holds ("wait"
 * and "time" of `museum.get_waiting_time` beside `museum.get_hours`; not `concert_ticket.buy` beside
 * `musical_ticket.buy`: no "concert" in the question). It takes the item it fits best: in that item's place where the
 * item's own skill has another item too and the item's text holds no word of that skill's own name (its best fit was
 * words both skills share), else as one more item beside it, split off at the joint between the two skills' words
 * where there is one (see splitBetween), with the same text where not. A covered skill is the item's `skill` and
 * `covers`, so the call's offsets lift it over the item's best fit (see stepDecision).
 *
 * `skills`: those that may be covered; `scores`: every skill's fit score to a text; `threshold`: the score at which a
 * skill is worth a call.
 */
export function coverSkills(
  question: string,
  items: readonly QuestionItem[],
  skills: readonly SkillProfile[],
  scores: (text: string) => ReadonlyMap<string, number>,
  threshold: number,
): QuestionItem[] {
  if (skills.length === 0 || items.length === 0) return [...items];
  const entry = (item: QuestionItem) => ({ item, scored: scores(item.text) });
  const out = items.map(entry);
  const scoreAt = (i: number, name: string) => out[i].scored.get(name) ?? -Infinity;
  const asked = questionValues(question);
  for (const skill of skills) {
    const covered = out.map(({ item, scored }) => item.skill ?? top(scored));
    if (covered.includes(skill.name)) continue;
    const coveredWords = new Set(covered.flatMap((name) => (name === undefined ? [] : nameStems(name))));
    const ownWords = nameStems(skill.name).filter((word) => !coveredWords.has(word));
    if (ownWords.length === 0 || !ownWords.every((word) => holdsNameWord(asked, word))) continue;
    let at = 0;
    for (let i = 1; i < out.length; i++) if (scoreAt(i, skill.name) > scoreAt(at, skill.name)) at = i;
    if (scoreAt(at, skill.name) <= threshold) continue;
    const { item } = out[at];
    const held = covered[at];
    const heldWords = held === undefined ? [] : nameStems(held).filter((word) => !nameStems(skill.name).includes(word));
    const text = new Set(contentStems(item.text));
    if (covered.filter((name) => name === held).length > 1 && !heldWords.some((word) => text.has(word))) {
      out[at] = { item: { ...item, skill: skill.name, covers: true }, scored: out[at].scored };
      continue;
    }
    const parts = splitBetween(item.text, heldWords, ownWords);
    const added = { text: parts?.own ?? item.text, skill: skill.name, covers: true };
    // (the part left is the held skill's: its own words are there, whatever its values now fit)
    if (parts) out[at] = entry({ ...item, text: parts.held, ...(held !== undefined && { skill: held, covers: true }) });
    let after = at + 1;
    while (after < out.length && out[after].item.covers && out[after].item.text === item.text) after++;
    out.splice(parts?.ownFirst ? at : after, 0, entry(added));
  }
  return out.map(({ item }) => item);
}

/** Where a clause joins two requests: a comma, "and", a semicolon or a sentence's end, with what follows it. */
const JOINT = /\s*(?:[,;]\s*(?:and\s+|also\s+|then\s+)?|\s+(?:and|as well as|also|then)\s+|[.?!]\s+)/giu;

/**
 * A text that asks for two skills split between them: the words of one name (`held`) all before the words of the
 * other's (`own`), or all after, and a joint between them ("the Battle of Waterloo | and the signing of the Treaty of
 * Tordesillas"): the last joint before the second request's first word. Undefined where they mix or nothing joins.
 */
function splitBetween(
  text: string,
  held: readonly string[],
  own: readonly string[],
): { held: string; own: string; ownFirst: boolean } | undefined {
  const at = (words: readonly string[]) =>
    [...text.matchAll(/\p{L}[\p{L}\p{N}']*/gu)]
      .filter((match) => words.includes(stem(match[0])))
      .map((match) => [match.index, match.index + match[0].length] as const);
  const [heldAt, ownAt] = [at(held), at(own)];
  if (heldAt.length === 0 || ownAt.length === 0) return undefined;
  const ownFirst = ownAt.at(-1)![1] <= heldAt[0][0];
  const [first, second] = ownFirst ? [ownAt, heldAt] : [heldAt, ownAt];
  if (first.at(-1)![1] > second[0][0]) return undefined;
  const between = text.slice(first.at(-1)![1], second[0][0]);
  const joint = [...between.matchAll(JOINT)].at(-1);
  if (!joint) return undefined;
  const cut = first.at(-1)![1] + joint.index;
  const [left, right] = [text.slice(0, cut).trim(), text.slice(cut + joint[0].length).trim()];
  return ownFirst ? { own: left, held: right, ownFirst } : { held: left, own: right, ownFirst };
}

/** The name of the highest score (the first on a tie). */
function top(scored: ReadonlyMap<string, number>): string | undefined {
  let best: [string, number] | undefined;
  for (const entry of scored) if (!best || entry[1] > best[1]) best = entry;
  return best?.[0];
}
