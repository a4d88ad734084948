import { bestFit, bestFitScored, type SkillProfile } from "./skill-fit.js";
import { nameStems, contentStems } from "./words.js";
import { unitTuples } from "./unit-tuples.js";
import { argumentSlots } from "./argument-slots.js";
import { expandLists, referencedList } from "./clause-lists.js";
import { optionTail, sharedSentences, spreadFrameLists } from "./shared-terms.js";
import { substituted, valuesOf } from "./value-spans.js";
import { clauses, joinLeads, keepRequests, keepTails, type Piece } from "./clause-pieces.js";

/**
 * One call's share of a question (see questionItems): the question as that call should read it (the other items'
 * values left out), and the skill the question names for it where it names one.
 */
export interface QuestionItem {
  text: string;
  skill?: string;
  /**
   * The item takes its value from the call before it ("then convert that to feet", "then divide the result by 4"):
   * that call's result is what it reads first.
   */
  chain?: boolean;
  /** The item is its skill's because no other item asks for that skill (see coverSkills): the call takes it. */
  covers?: boolean;
}

/** A clause that asks for every call so far again: "repeat these calculations", "do all of them", "redo both". */
const PLURAL_REPEAT =
  /\b(?:repeat|redo|do)\s+(?:all\s+(?:of\s+)?)?(?:these|those|them|both|all)\b|\b(?:repeat|redo|do)\s+the\s+same\s+\p{L}+(?:[^\Ws]s\b|\s+for\b)/iu;

/**
 * The skills a clause names as a list of their own words ("the median and variance", "temperature and humidity
 * forecast"): two or more skills, each with a name word no other skill has, the words joined by "and" (or commas).
 */
function namedSkills(text: string, skills: readonly SkillProfile[]): string[] {
  if (skills.length < 2) return [];
  const words = skills.map((skill) => new Set(nameStems(skill.name)));
  const own = skills.map((_, i) =>
    [...words[i]].filter((word) => words.every((other, j) => j === i || !other.has(word))),
  );
  for (const match of text.matchAll(WORD_LIST)) {
    const listed = contentStems(match[0]);
    const named = skills.filter((_, i) => own[i].some((word) => listed.includes(word)));
    const fitting = named.filter((skill) => !otherThing(skill, text, skills)).map((skill) => skill.name);
    if (fitting.length >= 2) return fitting;
  }
  return [];
}

/**
 * Whether a skill's name is of another thing than the one `text` speaks of: the first word of its dotted name (its
 * thing: `rectangle.calculate_perimeter`) is not in the text, and another skill's thing is ("the area and perimeter of
 * a circle" beside `circle.calculate_area`: the rectangle's perimeter is not asked for).
 */
function otherThing(skill: SkillProfile, text: string, skills: readonly SkillProfile[]): boolean {
  const thing = (name: string) => (name.includes(".") ? nameStems(name.split(".")[0]) : []);
  const words = new Set(contentStems(text));
  const own = thing(skill.name);
  if (own.length === 0 || own.some((word) => words.has(word))) return false;
  return skills.some((other) => {
    const theirs = thing(other.name);
    return theirs.length > 0 && theirs.join(" ") !== own.join(" ") && theirs.every((word) => words.has(word));
  });
}

/** Words joined as a list: "median and variance", "area, perimeter and diagonal". */
const WORD_LIST = /\p{L}+(?:\s*,\s*\p{L}+)*\s*,?\s+(?:and|&)\s+(?:the\s+)?\p{L}+/giu;

/**
 * The calls a question asks for, one item each, in the question's order (issue 40): its clauses that begin another
 * call ("..., also for a person who is 5.6 feet", "The second triangle has ..."), and in each clause its lists, one
 * call per item ("Taylor Swift and Maroon 5"; pairs where the skill takes two: "3 and 4, 5 and 12"; items zipped where
 * the clause says "respectively", crossed where it does not: "Lakers and Bulls in 2018 and 2020" is four), and one
 * call per skill a clause names by a word of its own ("the median and variance": two skills). Each item's text is its
 * clause with the other items of its lists left out. A question that writes no such clause or list is one item, the
 * question itself. `skills`: the skills a reply may call (the first one's arguments decide how a list is grouped when
 * no clause names a skill).
 */
export function questionItems(question: string, skills: readonly SkillProfile[]): QuestionItem[] {
  const pieces = clauses(question, skills);
  joinLeads(pieces);
  joinThisOne(pieces, skills);
  markRequests(pieces, skills);
  markFlags(pieces, skills);
  unmarkRecap(pieces, skills);
  keepTails(pieces);
  keepRequests(pieces, skills);
  const valued = pieces.filter((piece) => piece.values);
  if (valued.length === 0) return measuredRuns(question, skills);
  spreadFrameLists(valued, skills);
  const context = pieces.filter((piece) => !piece.values).map((piece) => piece.text);
  const others = valued.slice(0, -1).map((piece) => piece.text);
  const shared =
    valued.length > 1
      ? [...sharedSentences(valued.at(-1)!.text), ...optionTail(valued.at(-1)!.text, skills, others)]
      : [];
  const items: QuestionItem[] = [];
  const bases = new Map<Piece, string>();
  for (const piece of valued.length > 1 ? valued : [{ text: question, values: true } as Piece]) {
    const named = namedSkills(piece.text, skills);
    const skill = skills.find((s) => s.name === named[0]) ?? bestFit(piece.text, skills);
    const last = valued[valued.indexOf(piece) - 1];
    const listed = expandLists(piece.text, argumentSlots(skill));
    // (a clause that takes up the list of the clause before: "what was the GDP of the USA in these years?")
    const taken = listed.length === 1 && last ? referencedList(piece.text, last.text) : [];
    const texts = taken.length > 1 ? taken : listed;
    const around = valued.length > 1 ? [...context, ...(piece === valued.at(-1) ? [] : shared)] : [];
    const chain = "chain" in piece && piece.chain === true;
    // a clause with no value of its own (a flag changed, another skill asked for) reads the values of the one before
    // it: "... 300 Kelvin ... 4.18 J/K. What if the process is not isothermal?" (both test models wrote 100 and 310);
    // so does one with fewer values than it among one skill's calls, its own put in their places ("a similar house
    // but with an area of 3000 square feet": the rooms of the house before)
    const before = last && bases.get(last);
    const ownValues = valuesOf(piece.text);
    // (the fewer values only among one skill's calls: among several, a clause with fewer is mostly another request,
    // "Then get the fibonacci series upto 150" after "primes between 50 and 150")
    const fewer = skills.length === 1 && ownValues.length < valuesOf(last?.text ?? "").length;
    const inherit = !chain && before !== undefined && (ownValues.length === 0 || fewer);
    // (or, without them, the value of "the same" thing a clause before wrote: "find the current price for the same game
    // on the 'Xbox' platform" after "the game 'Call of Duty' on the 'Playstation' platform")
    const same = inherit ? [] : sameValues(piece.text, valued.slice(0, valued.indexOf(piece)));
    const inherited = inherit ? [ownValues.length === 0 ? before : substituted(before, piece.text)] : same;
    // (what a clause after it inherits: the text it inherited with its own values in place, or its own)
    bases.set(piece, inherited[0] ?? piece.text);
    // "repeat these calculations for the function '2x^2+3x-1'": each call so far again, the clause's values in place
    const again = PLURAL_REPEAT.test(piece.text) && !chain ? items.filter((item) => !item.chain) : [];
    if (again.length >= 2) {
      // (each earlier call again for each item of the clause's own list: "then repeat the same analysis for 'deletion'
      // and 'substitution' mutations" after two sequences' 'insertion' calls is four calls)
      for (const text of texts)
        for (const item of again) items.push({ text: [substituted(item.text, text), ...around].join(" ") });
      continue;
    }
    for (const text of texts) {
      // (each item of the clause's own list puts its value in place: "at a distance of 1 meter and 2 meters from the
      // same point charge" inherits the charge twice, once with each distance)
      const own = inherit && ownValues.length > 0 && texts.length > 1 ? [substituted(before, text)] : inherited;
      const view = [text, ...own, ...around].join(" ");
      const marks = { ...(chain && { chain }) };
      // (the skill its own words fit, not the inherited ones': "what's the time difference between two cities?")
      const fits = named.length === 0 && inherit && skills.length > 1 ? skill?.name : named[0];
      if (named.length > 1) for (const name of named) items.push({ text: view, skill: name, ...marks });
      else items.push({ text: view, ...(fits !== undefined && { skill: fits }), ...marks });
    }
  }
  return items.length === 1 && items[0].skill === undefined && !items[0].chain ? measuredRuns(question, skills) : items;
}

/** "the same game", "the same city": a thing a clause before named. */
const SAME_THING = /\bthe same (\p{L}{3,})\b/giu;

/**
 * The values of "the same" things `text` names (see SAME_THING), each as the nearest clause before wrote it beside
 * the thing's word ("the game 'Call of Duty'", "the 'Xbox' platform", "the year 2019", "New York City"): "the same
 * game: 'Call of Duty'". None where no clause before does.
 */
function sameValues(text: string, before: readonly Piece[]): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(SAME_THING)) {
    const noun = contentStems(match[1])[0];
    if (noun === undefined) continue;
    for (const piece of [...before].reverse()) {
      const value = valuesOf(piece.text).find((v) =>
        [v.after, v.before.split(" ").at(-1) ?? "", ...piece.text.slice(v.start, v.end).split(/\s+/)].some(
          (word) => contentStems(word)[0] === noun,
        ),
      );
      if (value === undefined) continue;
      found.push(`${match[0]}: ${piece.text.slice(value.start, value.end)}`);
      break;
    }
  }
  return found;
}

/** A question read as one item, or as runs of measured values where it gives them (see unitTuples). */
function measuredRuns(question: string, skills: readonly SkillProfile[]): QuestionItem[] {
  const runs = unitTuples(question, bestFit(question, skills));
  return runs.length > 1 ? runs.map((text) => ({ text })) : [{ text: question }];
}

/** A thing named as the one just spoken of: "this case", "this wind farm". */
const THIS_ONE = /\bthis\s+(?!time\b)\p{L}{3,}/iu;
/** Words that ask for the call again, otherwise: "fetch the same sequence again", "if we use the Lamarck model instead". */
const OTHERWISE = /\b(?:again|instead|once more|rather|another)\b/i;

/**
 * A clause that names the thing of the clause before it as "this ..." and fits the same skill asks more of that call,
 * not another one: "The first one has a case number of '12345' ... I would also like to know the verdict details for
 * this case"; "The second project is a wind farm ... I would also like to know the estimated energy output for this
 * wind farm for the month of July". It joins the clause before it.
 */
function joinThisOne(pieces: Piece[], skills: readonly SkillProfile[]): void {
  for (let i = pieces.length - 1; i > 0; i--) {
    const [before, piece] = [pieces[i - 1], pieces[i]];
    if (!before.values || piece.chain || !(piece.inner || piece.again) || !THIS_ONE.test(piece.text)) continue;
    if (OTHERWISE.test(piece.text)) continue;
    if (skills.length > 1 && bestFit(piece.text, skills) !== bestFit(before.text, skills)) continue;
    before.text = `${before.text} ${piece.text}`;
    pieces.splice(i, 1);
  }
}

/**
 * Among several skills, a clause without values of its own is still a call's item where the skill it fits best fits
 * it well and is another skill than the clauses before it fit ("Also, compute the total distance covered": the
 * values are the first clause's, the skill is another). Of one skill, a clause that opens another call of it (see
 * Piece.again) is one where it fits at half that bar.
 */
function markRequests(pieces: Piece[], skills: readonly SkillProfile[]): void {
  const seen = new Set<string>();
  for (const [i, piece] of pieces.entries()) {
    const best = bestFitScored(piece.text, skills);
    if (!best) continue;
    // (one skill: a clause after the first that opens another call of it, with words of its own, "Also, I want to
    // know how to get color navy by using acrylic paint", "and then another order of the same items from the uptown
    // location": a call, and so is the first clause)
    if (skills.length === 1 && piece.again && !piece.values && best.score >= ITEM_FIT / 2) {
      piece.values = true;
      if (!pieces.slice(0, i).some((before) => before.values)) pieces[0].values = true;
    }
    if (!piece.values && best.score >= ITEM_FIT && !seen.has(best.skill.name)) piece.values = true;
    if (piece.values) seen.add(best.skill.name);
  }
}

/**
 * A clause after the first that names a flag (a boolean argument) of a skill, without values of its own, asks for
 * that skill's call again with the flag changed: "Can you calculate the entropy change ...? What if the process is not
 * isothermal?" (`isothermal`), "and then compare it with a less detailed description of a muscle cell" (`detailed`).
 */
const FLAG_CHANGE = /\b(?:if|not|no longer|less|more|instead|compare[sd]?|versus|vs)\b/i;

function markFlags(pieces: Piece[], skills: readonly SkillProfile[]): void {
  const flags = new Set(
    skills.flatMap((skill) =>
      Object.entries((skill.parameters.properties ?? {}) as Record<string, { type?: unknown }>)
        .filter(([, schema]) => [schema?.type].flat().includes("boolean"))
        .map(([key]) => nameStems(key).join(" ")),
    ),
  );
  if (flags.size === 0) return;
  pieces.forEach((piece, i) => {
    if (i === 0) return;
    // a flag changed ("if", "not", "less", "instead", "compare"), not one the same call adds ("Also apply
    // standardization", "and also include the species information")
    if (!FLAG_CHANGE.test(piece.text)) return;
    const stems = contentStems(piece.text).join(" ");
    if (![...flags].some((flag) => flag !== "" && ` ${stems} `.includes(` ${flag} `))) return;
    piece.values = true;
    // the call it changes: the first clause, values of its own or not ("a detailed description of a neuron cell")
    if (!pieces.slice(0, i).some((before) => before.values)) pieces[0].values = true;
  });
}

/**
 * A last question that sums the request up ("What would be the new attributes of the painting, the predicted
 * evolutionary rate of the African elephant, and the probability of getting a royal flush?") asks for no call of its
 * own: it begins with "what", "which" or "how", every value it writes an earlier clause wrote, and the skill it fits
 * best an earlier clause with values fits best too.
 */
function unmarkRecap(pieces: Piece[], skills: readonly SkillProfile[]): void {
  const last = pieces.at(-1);
  if (!last?.values || last.chain || pieces.length < 2 || !/^(?:what|which|how)\b/i.test(last.text)) return;
  const before = pieces.slice(0, -1);
  const earlier = before.map((piece) => piece.text.toLowerCase()).join(" ");
  const own = valuesOf(last.text).map((value) => last.text.slice(value.start, value.end).toLowerCase());
  if (own.length === 0 || !own.every((value) => earlier.includes(value))) return;
  const skill = bestFit(last.text, skills)?.name;
  if (before.some((piece) => piece.values && bestFit(piece.text, skills)?.name === skill)) last.values = false;
}

/** The fit score (see fitScore) at which a clause without values asks for a skill of its own. */
const ITEM_FIT = 4;
