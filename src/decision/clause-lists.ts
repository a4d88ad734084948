/**
 * The lists a clause writes out (numerals, names, quotes, tuples, place pairs, an enum's values) and how they go to
 * calls: one call per item or per group of items, zipped where the clause says "respectively", crossed where it does
 * not (see questionItems).
 */
import { escapeRegex, stem } from "./words.js";
import { namedKeys, numberedKeys, type Slots } from "./argument-slots.js";
import { NAME, NUMERAL, QUOTE } from "./value-spans.js";
import { YEAR_NUMERAL } from "../model/grounding/grounding-words.js";

/** A tuple of numerals: "(45, 60)". */
const TUPLE = String.raw`\(\s*-?\d[\d.]*(?:\s*,\s*-?\d[\d.]*)+\s*\)`;
/** What joins two items of a list. */
const JOINT = String.raw`(?:\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*&\s*)(?:the\s+|a\s+|an\s+)?`;
/** A unit word that may follow each numeral of a list ("20 minutes and 15 minutes"). */
const UNIT = String.raw`(?:\s*(?!(?:and|or|of|to|in|for|from|with|at|by|on|the|an?|according|respectively|as|if|when|than)\b)[\p{L}°²³/^]+(?:\^?\d)?)?`;

/** A name, with the kind of place it is where the question writes one after it: "Alaska state", "Kings county". */
const PLACE = String.raw`${NAME}(?:\s+(?:state|city|county|province|country|region)(?![\p{L}\p{N}]))?`;

/** A numeral and the numerals hyphenated to it: "2018-2019", "2022-01-01". */
const HYPHENATED = String.raw`${NUMERAL}(?:-\d+)*`;

/** A pair of names joined by "to": "USD to AUD", "New York to Los Angeles". */
const PAIR = String.raw`(?:${NAME})\s+to\s+(?:${NAME})`;

/** A thing of a list that names its kind after each item: "a gasoline vehicle", "the diesel vehicle". */
const PHRASE = String.raw`\b(?:an?|the)\s+(?!(?:same|other|first|second|third|last)\b)\p{L}+\s+`;

const LISTS: { kind: ListSpan["kind"]; pattern: RegExp; repeated?: true }[] = [
  { kind: "tuple", pattern: new RegExp(`(?:${TUPLE})(?:${JOINT}(?:${TUPLE}))+`, "gu") },
  { kind: "pair", pattern: new RegExp(`(?<![\\p{L}\\p{N}])(?:${PAIR})(?:${JOINT}(?:${PAIR}))+`, "gu") },
  { kind: "quote", pattern: new RegExp(`(?:${QUOTE})(?:${JOINT}(?:${QUOTE}))+`, "gu") },
  {
    kind: "number",
    // (a hyphenated numeral whole: "from 2018-2019 and 2019-2020" are two seasons, not 2019 twice; "2022-01-01")
    pattern: new RegExp(`(?<![\\p{L}\\p{N}.])(?:${HYPHENATED})${UNIT}(?:${JOINT}(?:${HYPHENATED})${UNIT})+`, "gu"),
  },
  // the same words before each numeral: "the factorial of 5, the factorial of 7, and the factorial of 9"
  {
    kind: "number",
    pattern: new RegExp(
      `(?<![\\p{L}\\p{N}])((?:\\p{L}+\\s+){1,3})(?:${NUMERAL})${UNIT}(?:${JOINT}\\1(?:${NUMERAL})${UNIT})+`,
      "giu",
    ),
    repeated: true,
  },
  { kind: "name", pattern: new RegExp(`(?<![\\p{L}\\p{N}])(?:${PLACE})(?:${JOINT}(?:${PLACE}))+`, "gu") },
  // the same noun after each item: "a gasoline vehicle, a diesel vehicle, and an electric vehicle"
  {
    kind: "phrase",
    pattern: new RegExp(`${PHRASE}(\\p{L}{3,})\\b(?:(?:\\s*,\\s*(?:and\\s+)?|\\s+and\\s+)${PHRASE}\\1\\b)+`, "giu"),
  },
];

const ITEM: Record<string, RegExp> = {
  tuple: new RegExp(TUPLE, "gu"),
  pair: new RegExp(`(?<![\\p{L}\\p{N}])(?:${PAIR})`, "gu"),
  quote: new RegExp(QUOTE, "gu"),
  number: new RegExp(`(?<![\\p{L}\\p{N}.])(?:${HYPHENATED})${UNIT}`, "gu"),
  name: new RegExp(`(?<![\\p{L}\\p{N}])(?:${PLACE})`, "gu"),
  phrase: new RegExp(`${PHRASE}\\p{L}+`, "giu"),
};

/** A list a clause writes out: where it is, its items (with where each is), and what kind they are. */
interface ListSpan {
  /** `enum`: two or more values of one enum argument (see enumLists). */
  kind: "tuple" | "pair" | "quote" | "number" | "name" | "phrase" | "enum";
  start: number;
  end: number;
  items: { start: number; end: number }[];
  /** The same words before each item ("the first 2 years, first 3 years and first 5 years"). */
  repeated?: true;
}

/** Whether position `p` of `text` is inside `[...]` or `{...}`: a list written as a value is an array's, whole. */
function insideBrackets(text: string, p: number): boolean {
  let depth = 0;
  for (let i = 0; i < p; i++) {
    if (text[i] === "[" || text[i] === "{") depth++;
    else if ((text[i] === "]" || text[i] === "}") && depth > 0) depth--;
  }
  return depth > 0;
}

/** The lists a clause writes out (see LISTS), longest first where two overlap. */
function listsOf(text: string): ListSpan[] {
  const found: ListSpan[] = [];
  for (const { kind, pattern, repeated } of LISTS) {
    for (const match of text.matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (found.some((list) => start < list.end && end > list.start)) continue;
      if (insideBrackets(text, start)) continue;
      // a list has a conjunction ("Miami, Florida" and "January 1, 2021" are one value each), or repeats its words
      if (!repeated && !/\b(?:and|or)\b|&/i.test(match[0])) continue;
      const items = [...match[0].matchAll(ITEM[kind])].map((m) => ({
        start: start + m.index,
        end: start + m.index + m[0].length,
      }));
      // a state's or country's code after a comma is its place's ("New York City, NY, and Los Angeles, CA")
      if (kind === "name")
        for (let i = items.length - 1; i > 0; i--)
          if (
            /^\p{Lu}{2}$/u.test(text.slice(items[i].start, items[i].end)) &&
            /^,\s*$/.test(text.slice(items[i - 1].end, items[i].start))
          )
            items.splice(i - 1, 2, { start: items[i - 1].start, end: items[i].end });
      if (items.length >= 2) found.push({ kind, start, end, items, ...(repeated && { repeated }) });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/**
 * Whether a list's numerals all measure one thing that one number argument of the skill takes ("at a distance of 1
 * meter and 2 meters" for the one argument "in meters"): each is a call's value of that argument.
 */
function oneMeasure(list: ListSpan, slots: Slots, text: string): boolean {
  const stems = new Set(unitStems(text, list.items));
  if (stems.size !== 1) return false;
  const [unit] = stems;
  return slots.numberWords.filter((words) => words.has(unit)).length === 1;
}

/** The stem of the word each numeral of a list ends with ("1 meter" -> "meter"); none where one has no word. */
function unitStems(text: string, items: readonly { start: number; end: number }[]): string[] {
  const units = items.map((item) => /\p{L}+$/u.exec(text.slice(item.start, item.end))?.[0]);
  return units.some((unit) => unit === undefined) ? [] : units.map((unit) => stem(unit!));
}

/**
 * Whether numerals each measure something else ("1000 rows, and 20 columns"): a word after every one, no two the
 * same (by stem): one call's values where the skill takes that many numbers ("5 meters and 10 meters" is a list;
 * "3 widgets and 2 gadgets" for a skill that takes no number is a list too).
 */
function measuresApart(text: string, items: readonly { start: number; end: number }[]): boolean {
  const stems = unitStems(text, items);
  return stems.length > 0 && new Set(stems).size === stems.length;
}

/** The values a clause writes of each kind outside `lists` (numerals in digits; names and quotes). */
function valuesOutside(text: string, lists: readonly ListSpan[]): { number: number; text: number } {
  let rest = text;
  for (const list of [...lists].sort((a, b) => b.start - a.start))
    rest = rest.slice(0, list.start) + " ".repeat(list.end - list.start) + rest.slice(list.end);
  // (a numeral inside a quoted text is the text's: 'x^3')
  const numbers = [...rest.replace(new RegExp(QUOTE, "gu"), (quote) => " ".repeat(quote.length)).matchAll(ITEM.number)]
    .length;
  const names = [...rest.matchAll(/(?<=\S\s+)\p{Lu}[\p{L}\p{N}'.-]*/gu)].length + [...rest.matchAll(ITEM.quote)].length;
  return { number: numbers, text: names };
}

/**
 * The groups a list's items go to calls in: a list of numerals fills the number arguments the clause's other numerals
 * leave free ("sides 4 and 5" is one call's two sides; "3 and 4, 5 and 12" two calls of two), a list of names the
 * paired text arguments ("between New York and Washington DC" is one call's two places; "Seattle and Los Angeles" two
 * calls); an array argument of the list's kind takes it whole (one call).
 */
function groupSize(list: ListSpan, slots: Slots, outside: { number: number; text: number }, text: string): number {
  const count = list.items.length;
  const written = list.items.map((item) =>
    text
      .slice(item.start, item.end)
      .replace(/^['"]|['".,;:!?]+$/g, "")
      .toLowerCase(),
  );
  if (slots.arrayEnums.some((values) => written.every((item) => values.includes(item)))) return count;
  // as many values as the keys the clause names before them: "the name and email ... to "John" and "example@.com"";
  // "the lengths of the sides are 5 units, 7 units, and 9 units" for `side1`, `side2`, `side3`
  if (namedKeys(text.slice(0, list.start), slots) === count) return count;
  if (numberedKeys(text.slice(Math.max(0, list.start - 60), list.start), slots) === count) return count;
  if (list.kind === "enum") return 1;
  if (list.kind === "tuple") return Math.max(1, Math.min(slots.arrays, count));
  if (list.kind === "number") {
    if (slots.numberArray) return count;
    // hyphenated numerals are texts ("2018-2019 and 2019-2020" for a list of seasons): a text array takes them whole
    if (slots.textArray && written.every((item) => /\d-\d/.test(item))) return count;
    // the same words before each numeral: one value each, of the same argument ("the factorial of 5, the factorial of
    // 7"; "for the first 2 years, first 3 years and first 5 years")
    if (list.repeated || oneMeasure(list, slots, text)) return 1;
    // numerals that each measure something else fill one call's number arguments ("1000 rows, and 20 columns")
    if (measuresApart(text, list.items) && slots.number >= count) return count;
    // "between 2 and 5": one call's two ends where the skill takes two numbers
    if (count === 2 && slots.number >= 2 && /\bbetween\s+(?:\p{L}+\s+){0,3}$/iu.test(text.slice(0, list.start)))
      return 2;
    return Math.max(1, Math.min(slots.number - outside.number, count));
  }
  // names a skill has no text argument for are no items of its calls ("John and Mary" for `math.gcd`)
  if (slots.textArray || slots.text === 0) return count;
  if (list.kind === "pair") return 1;
  return Math.max(1, Math.min(slots.pairedText, count));
}

/** What joins two values of an enum list: a comma or "and", with a few words between ("(AA), heterozygous (Aa)"). */
const ENUM_JOINT = /^[^.?!;]{0,40}$/u;
const ENUM_CONJUNCTION = /,|\band\b|&/iu;
/** What joins two values a description quotes (see Slots.enums): a comma or "and" alone. */
const TIGHT_JOINT = /^['"]?\s*(?:,\s*(?:and\s+)?|and\s+|&\s*)['"]?$/iu;

/**
 * A clause that names two or more values of one enum argument, joined by commas or "and", asks for one call per
 * value: "the last six months, the last year and the last five years" (`time_frame`: six_months, year, five_years),
 * "genotype (AA), (Aa) and (aa)". A value matches as whole words, `_` and `-` read as spaces; case counts only where
 * two values differ by case alone. "or" joins no list ("ascending or descending" is one call's choice).
 */
function enumLists(text: string, slots: Slots): ListSpan[] {
  const found: ListSpan[] = [];
  for (const { values, tight } of slots.enums) {
    const joint = tight ? TIGHT_JOINT : ENUM_JOINT;
    const hits: { start: number; end: number; value: string }[] = [];
    for (const value of values) {
      if (value.trim() === "") continue;
      const cased = values.some((other) => other !== value && other.toLowerCase() === value.toLowerCase());
      const words = value
        .split(/[\s_-]+/u)
        .filter(Boolean)
        .map(escapeRegex);
      const pattern = new RegExp(
        `(?<![\\p{L}\\p{N}])${words.join("[\\s_-]+")}(?![\\p{L}\\p{N}])`,
        cased ? "gu" : "giu",
      );
      for (const match of text.matchAll(pattern))
        hits.push({ start: match.index, end: match.index + match[0].length, value });
    }
    // the longest where two overlap, then each value's first place
    hits.sort((a, b) => a.start - b.start || b.end - a.end);
    const items: { start: number; end: number; value: string }[] = [];
    for (const hit of hits) {
      if (items.some((item) => item.value === hit.value || hit.start < item.end)) continue;
      items.push(hit);
    }
    // consecutive values close together, at least one joint a comma or "and"
    let run: typeof items = [];
    const close = (next?: (typeof items)[number]) => {
      const gaps = run.slice(1).map((item, i) => text.slice(run[i].end, item.start));
      if (run.length > 1 && gaps.some((gap) => ENUM_CONJUNCTION.test(gap)))
        found.push({
          kind: "enum",
          start: run[0].start,
          end: run.at(-1)!.end,
          items: run.map(({ start, end }) => ({ start, end })),
        });
      run = next ? [next] : [];
    };
    for (const item of items) {
      if (run.length > 0 && !joint.test(text.slice(run.at(-1)!.end, item.start))) close(item);
      else run.push(item);
    }
    close();
  }
  return found;
}

/**
 * The enum lists of a clause (see enumLists) that lie wholly before `from` or wholly after `to`: the frame of a
 * question whose items come between ("What is the status and scheduled trial date for case XY1234 ..., and case
 * GH5678 ...?"), as the text of each list.
 */
export function frameEnumLists(text: string, slots: Slots, from: number, to: number): string[] {
  return enumLists(text, slots)
    .filter((list) => list.end <= from || list.start >= to)
    .map((list) => text.slice(list.start, list.end));
}

/** A clause's texts, one per call its lists ask for (see questionItems). */
export function expandLists(text: string, slots: Slots): string[] {
  const enums = enumLists(text, slots);
  const lists = [
    ...enums,
    ...listsOf(text).filter((list) => !enums.some((e) => list.start < e.end && list.end > e.start)),
  ].sort((a, b) => a.start - b.start);
  const outside = valuesOutside(text, lists);
  const splitting = lists
    .map((list) => ({ list, group: groupSize(list, slots, outside, text) }))
    .filter(({ list, group }) => Math.ceil(list.items.length / group) > 1);
  if (splitting.length === 0) return [text];
  const zipped = /\brespectively\b/i.test(text);
  const counts = splitting.map(({ list, group }) => Math.ceil(list.items.length / group));
  const total = zipped ? Math.max(...counts) : counts.reduce((a, b) => a * b, 1);
  const texts: string[] = [];
  for (let k = 0; k < total; k++) {
    // the k-th call's item of each list: the same index for zipped lists, the mixed-radix digits for crossed ones
    let rest = k;
    const choice = splitting.map((_, i) => {
      if (zipped) return Math.min(k, counts[i] - 1);
      const digit = rest % counts[i];
      rest = Math.floor(rest / counts[i]);
      return digit;
    });
    let view = othersLeftOut(text, splitting, choice);
    splitting
      .map(({ list, group }, i) => ({ list, group, pick: choice[i] }))
      .sort((a, b) => b.list.start - a.list.start)
      .forEach(({ list, group, pick }) => {
        const kept = list.items.slice(pick * group, pick * group + group);
        const replacement = kept.map((item) => text.slice(item.start, item.end)).join(" and ");
        view = view.slice(0, list.start) + replacement + view.slice(list.end);
      });
    texts.push(view);
  }
  return texts;
}

/** Where a clause's text after its lists parts: a comma or a semicolon (", and" too). */
const SEGMENT_JOINT = /\s*(?:,\s*(?:and\s+)?|;\s*)/g;

/**
 * `text` without the parts after its lists that speak of another item of a list only ("... a gasoline vehicle, a
 * diesel vehicle, and an electric vehicle ..., using the default emission factor for the gasoline vehicle, an emission
 * factor of 2.7 for the diesel vehicle, and an emission factor of 0 for the electric vehicle": the diesel vehicle's
 * call keeps "an emission factor of 2.7 for the diesel vehicle" alone). Lists of one item per call only (`choice`:
 * each list's item for this call).
 */
function othersLeftOut(
  text: string,
  splitting: readonly { list: ListSpan; group: number }[],
  choice: readonly number[],
): string {
  const end = Math.max(...splitting.map(({ list }) => list.end));
  const words = (item: { start: number; end: number }) =>
    text
      .slice(item.start, item.end)
      .replace(/^(?:an?|the)\s+|^['"]|['"]$/gi, "")
      .toLowerCase();
  const own: string[] = [];
  const others: string[] = [];
  splitting.forEach(({ list, group }, i) => {
    if (group !== 1 || list.kind === "number" || list.kind === "tuple") return;
    list.items.forEach((item, j) => (j === choice[i] ? own : others).push(words(item)));
  });
  if (others.length === 0) return text;
  const tail = text.slice(end);
  const cuts = [0, ...[...tail.matchAll(SEGMENT_JOINT)].map((m) => m.index), tail.length];
  let kept = "";
  for (let i = 0; i + 1 < cuts.length; i++) {
    const segment = tail.slice(cuts[i], cuts[i + 1]);
    const lower = segment.toLowerCase();
    const mentions = (item: string) => item !== "" && new RegExp(`\\b${escapeRegex(item)}\\b`).test(lower);
    if (i > 0 && others.some(mentions) && !own.some(mentions)) continue;
    kept += segment;
  }
  return text.slice(0, end) + kept;
}

/** A plural noun a clause takes up from a clause before it: "in these years", "in those same years", "both cities". */
const LIST_REFERENCE = /\b(?:these|those|the same|both(?:\s+these)?)\s+(?:same\s+)?(\p{L}{3,})\b/giu;

/**
 * A clause that names no list of its own but takes up, by a plural noun, a list the clause before it writes ("the life
 * expectancy in the USA in the year 1900 and 1950? Additionally, what was the GDP of the USA in these years?"): its
 * texts, one per item of that list, the reference replaced by the item ("... in 1900?", "... in 1950?"). A list is the
 * noun's where the noun's word is one of the two before it, articles and prepositions aside ("the year 1900 and
 * 1950"), or the noun is years and its items are. None where the clause takes up no list.
 */
export function referencedList(text: string, earlier: string): string[] {
  for (const match of text.matchAll(LIST_REFERENCE)) {
    // (a plural only: "these years", not "this year")
    if (!/s$/i.test(match[1])) continue;
    const noun = stem(match[1]);
    for (const list of listsOf(earlier)) {
      const items = list.items.map((item) => earlier.slice(item.start, item.end));
      // (the noun's word right before the list, but for an article or a preposition: "in the year 1900 and 1950")
      const before = (earlier.slice(Math.max(0, list.start - 40), list.start).match(/\p{L}+/gu) ?? []).filter(
        (word) => !/^(?:the|an?|of|in|for|at|on|from|to|between)$/i.test(word),
      );
      const named = before.slice(-2).some((word) => stem(word) === noun);
      const years = noun === stem("years") && items.every((item) => YEAR_NUMERAL.test(/^\S+/.exec(item)![0]));
      if (!named && !years) continue;
      return items.map((item) => text.slice(0, match.index) + item + text.slice(match.index + match[0].length));
    }
  }
  return [];
}
