/**
 * The anchors of a key that its kind or its schema gives rather than its head word (QuestionReading.anchors reads the
 * head word): numbered keys, years, a route's sides, the values the schema offers, an expression's arithmetic, a
 * conversion's units, names holding a word of the key, the word before the noun a kind's key sorts.
 */
import type { GroundingIndex } from "./grounding-index.js";
import {
  NUMBER_RANGE,
  NUMERAL_BEFORE,
  ORDINAL_KEY,
  ROUTE_BEFORE,
  anchoredNumerals,
  conversionSide,
  conversionUnits,
  keyWords,
  pairSide,
  rangeSide,
  routeSide,
  yearKey,
} from "./grounding-words.js";
import { innerOrdinalNumeral, kindModifiers, ordinalNumerals, questionYears } from "./key-anchors.js";
import { coefficientsAt } from "./polynomials.js";
import type { RuleGate } from "./rules.js";

/** What namedAnchors asks of the question's reading (QuestionReading is one). */
export interface AnchorReader {
  readonly source: GroundingIndex;
  readonly r: RuleGate;
  readonly questionChars: number;
  readonly keyUnits: ReadonlyMap<string, Readonly<Record<string, string>>>;
  readonly askedBy: ReadonlyMap<string, Readonly<Record<string, readonly string[]>>>;
  readonly kindNouns: ReadonlyMap<string, Readonly<Record<string, string>>>;
  readonly keyPowers: ReadonlyMap<string, Readonly<Record<string, number>>>;
  questionWrites(value: string): number[];
  questionSpans(value: string): [number, number][];
  stemWritten(value: string): boolean;
  schemaWrites(value: string): number[];
  isFormula(key: string): boolean;
  arithmetic(): [number, number][];
  namesHolding(key: string): number[];
}

/** Adds to `found` the anchors of `key` (of `skill`, whose keys are `keys`) that its kind or schema gives. */
export function namedAnchors(
  q: AnchorReader,
  key: string,
  skill: string | undefined,
  keys: readonly string[],
  text: string,
  found: { starts: number[]; numerals: string[] },
): void {
  // `number1`, `number2`: the question's first and second numerals, in its order ("of 36 and 24")
  const ordinal = ORDINAL_KEY.exec(key);
  const siblings = ordinal ? keys.filter((other) => ORDINAL_KEY.exec(other)?.[1] === ordinal[1]).length : 0;
  // a year's among them: the question's years alone ("revenues of $1M in 2019 and $1.2M in 2020": `year1` 2019)
  const years = questionYears(q.source.text.slice(0, q.questionChars));
  const year = yearKey(key) && years.length > 0;
  if (ordinal && siblings > 1 && q.r.on("ordinal-keys")) {
    const numeral = (year ? years : ordinalNumerals(ordinal[1], keys, text))[Number(ordinal[2]) - 1];
    if (numeral !== undefined && q.source.numerals.includes(numeral)) found.numerals.push(numeral);
  }
  // the unit the key's description names: the numeral before it ("within 10 miles" for a distance "(in miles)"), where
  // no other key of the skill is in that unit
  const inUnits = skill === undefined ? {} : (q.keyUnits.get(skill) ?? {});
  const unit = inUnits[key];
  if (unit !== undefined && Object.values(inUnits).filter((other) => other === unit).length === 1) {
    const word = new RegExp(`(?<![\\p{L}])${unit.replace(/s$/, "")}s?(?![\\p{L}])`, "giu");
    for (const match of text.matchAll(word)) {
      const before = NUMERAL_BEFORE.exec(text.slice(Math.max(0, match.index - 40), match.index));
      if (before && q.r.on("anchors")) found.numerals.push(...anchoredNumerals(before[1], before[2] ?? ""));
    }
  }
  // a polynomial's coefficient ("Coefficient of x^2."): its term's, signed, in the polynomials the question writes
  // ("5x^2 - 7x + 3": 5, -7 and 3), where two keys of the skill or more are its coefficients
  const powers = skill === undefined ? {} : (q.keyPowers.get(skill) ?? {});
  if (powers[key] !== undefined && Object.keys(powers).length >= 2 && q.r.on("coefficients"))
    found.numerals.push(...coefficientsAt(text, powers[key]));
  // a year key alone in its skill: the years the question writes ("crimes in 2020"), ahead of its other numerals
  if (year && !ordinal && keys.filter(yearKey).length === 1 && q.r.on("anchors")) found.numerals.push(...years);
  found.starts.push(...sideAnchors(q, key, keys, text));
  found.numerals.push(...rangeNumerals(q, key, keys, text));
  // a key's value the question writes ("in Celsius" for `temp_unit`; see askingValues), or a word it begins
  // ("detail information" for a `detail_level` that can be 'summary' or 'detailed': the value as the schema writes it)
  const asked = (skill !== undefined && q.askedBy.get(skill)?.[key]) || [];
  const spans = asked.map((value) => q.questionSpans(value));
  for (const [i, value] of asked.entries()) {
    // (not inside another value the question writes: "year" of "the last five years" beside `five_years`)
    const inside = ([start, end]: [number, number]) =>
      spans.some((theirs, k) => k !== i && theirs.some(([s, e]) => s <= start && e >= end && e - s > end - start));
    const written = spans[i].filter((span) => !inside(span)).map(([start]) => start);
    // where the schema writes it too, there (an item's enum "Violin Lessons" for "violin lessons": the grammar
    // takes the schema's letter case)
    const at = written.length > 0 || q.stemWritten(value) ? [...written, ...q.schemaWrites(value)] : [];
    if (at.length > 0 && q.r.on("anchors")) found.starts.push(...at);
  }
  // an expression: the question's arithmetic ("17 times 23 plus 4", "square root of 1764")
  if (q.isFormula(key) && q.r.on("formula")) found.starts.push(...q.arithmetic().map(([start]) => start));
  // a conversion's units: "2 tablespoons" for `from_unit`, "How many teaspoons" for `to_unit`
  const side = conversionSide(key);
  if (side && !keys.some((other) => other !== key && conversionSide(other) === side)) {
    const units = conversionUnits(text, side);
    if (units.length > 0 && q.r.on("units")) found.starts.push(...units);
  }
  // a name of the question that holds a word of the key: "the Hilton Hotel" for `hotel_name`, "the English Premier
  // League" for `league`
  const names = q.namesHolding(key);
  if (names.length > 0 && q.r.on("names-holding")) found.starts.push(...names);
  // a key numbered inside its name (`year1_revenue`, `year2_revenue`): the question's numerals in order, the years
  // left to the year keys ("revenues of $1M in 2019 and $1.2M in 2020": 1000000 for `year1_revenue`)
  const inner = innerOrdinalNumeral(key, keys, text);
  if (inner !== undefined && q.source.numerals.includes(inner) && q.r.on("ordinal-keys")) found.numerals.push(inner);
  // a kind of a noun: the word before it ("a single room" for `room_type`, "violent crime" for "The type of crime"),
  // not a word of the skill's name or of its other keys ("hotel room" beside `hotel_name`)
  const noun = skill === undefined ? undefined : q.kindNouns.get(skill)?.[key];
  if (noun !== undefined && q.r.on("anchors")) {
    const theirs = [skill!.replaceAll(".", "_"), ...keys.filter((other) => other !== key)].flatMap(keyWords);
    found.starts.push(...kindModifiers(text, noun, new Set(theirs)));
  }
}

/**
 * A range's end, where the skill takes both ends: the first numeral of "between 1 and 1000" or "from 10 to 20" for
 * `lower_limit`, the second for `upper_limit` (Gemma wrote `"lower_limit":1000`). None for another key.
 */
function rangeNumerals(q: AnchorReader, key: string, keys: readonly string[], text: string): string[] {
  const side = rangeSide(key);
  const otherSide = side === "low" ? "high" : "low";
  if (!side || !keys.some((k) => rangeSide(k) === otherSide) || !q.r.on("ranges")) return [];
  return [...text.matchAll(NUMBER_RANGE)].flatMap((match) =>
    side === "low"
      ? anchoredNumerals(match[1], match[2])
      : anchoredNumerals(match[3], text.slice(match.index + match[0].length)),
  );
}

/**
 * A side's anchors: a route's, the name after "from" for `start_location` and after "to" for `end_location`; a pair's,
 * the name after "from" for `from_lang` and after "to" for `to_lang` (see pairSide).
 */
function sideAnchors(q: AnchorReader, key: string, keys: readonly string[], text: string): number[] {
  const route = routeSide(key);
  const pair = pairSide(key, keys);
  const side =
    route && keys.filter((other) => routeSide(other) === route).length === 1 && q.r.on("place-anchors")
      ? route
      : pair && q.r.on("anchors")
        ? pair
        : undefined;
  return side ? [...text.matchAll(ROUTE_BEFORE[side])].map((match) => match.index + match[0].length) : [];
}
