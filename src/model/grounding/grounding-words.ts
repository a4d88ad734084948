/**
 * The word lists, patterns and small text readers grounding reads a question and a reply with (articles, joining
 * words, list separators, magnitudes, place and conversion words, anchors between a key's word and its value). Each
 * says what it matches and why; question-reading.ts and grounding-steer.ts apply them.
 */
import type { JsonValuePosition } from "./json-value-tracker.js";
import { numeralsOf } from "./grounding-index.js";
import { MAGNITUDES } from "../../numerals.js";

/**
 * A numeral of the question as JSON writes it ("2,000,000" → 2000000), also as a fraction where a `%` follows,
 * only scaled where a magnitude word follows ("50 million": 50000000).
 */
export function anchoredNumerals(numeral: string, after: string): string[] {
  const plain = numeral.replaceAll(",", "").replace(/\.$/, "");
  const all = [plain];
  if (/^\s?%/.test(after)) all.push(String(Number((Number(plain) / 100).toPrecision(12))));
  const found = MAGNITUDE_AFTER.exec(after);
  const magnitude = (found?.[1] ?? found?.[2])?.toLowerCase();
  const scaled = magnitude ? Number((Number(plain) * MAGNITUDES[magnitude]).toPrecision(12)) : NaN;
  // "100 million": 100000000 only (an anchored 100 would be closed as whole: Gemma wrote 100); "1M" both (a letter
  // after a numeral is not always a magnitude: "a 2B pencil")
  if (!Number.isSafeInteger(scaled)) return all;
  return found?.[2] ? [String(scaled), ...all] : [String(scaled)];
}

/** Characters a value made of nothing else is no value of: `","`, `"."`, `" "` (with the empty string). */
export const PUNCTUATION = ["", ",", ".", ";", ":", "-", " ", "!", "?", "'", "/", "(", ")", "_", "*", "#", "&"];
export const CLOSE_TAILS = ["", ",", "]", "}", "]}", "],", "},", "}}"];

/** punctuationStrings' texts by openers: a handful of openers (`""`, `":"`), built once each. */
export const punctuationCache = new Map<string, string[]>();

/**
 * The texts of a string of punctuation alone, opened (`",`) or closed and followed by what may follow a value: after
 * each of `openers` with its opening quote (`quoted`: `:","`, `","]`), or inside a string that has just opened (`,"`).
 */
export function punctuationStrings(openers: readonly string[], quoted: boolean): string[] {
  const key = `${quoted}\u0001${openers.join("\u0001")}`;
  const kept = punctuationCache.get(key);
  if (kept) return kept;
  const texts: string[] = [];
  punctuationCache.set(key, texts);
  for (const opener of openers)
    for (const mark of PUNCTUATION) {
      const open = `${opener}${quoted ? '"' : ""}${mark}`;
      if (mark !== "") texts.push(open); // `",` opens a string of a comma
      for (const tail of CLOSE_TAILS) texts.push(`${open}"${tail}`);
    }
  return texts;
}

/** The value being written: its kind, role, text so far and the spans of the source it follows. */
export interface ValueState {
  kind: JsonValuePosition["kind"];
  role: "argument" | "answer";
  key: string;
  value: string;
  positions: number[];
  /** An array's item: the items before it (see JsonValuePosition.items). */
  items?: readonly string[];
  /** Inside an object of its own under `arguments` (`area: {"width": ...}`), not directly under it. */
  nested: boolean;
}

/**
 * What stands between two items of a list the question writes out: `, `, ` and `, ` and also `, ` as well as `, `', '`,
 * ` or `, ` & `.
 */
export const LIST_SEPARATOR =
  /^['"]?(?:\s*,?\s+as\s+well\s+as\s+|\s*,\s*(?:and\s+(?:also\s+)?|or\s+)?|\s+and\s+also\s+|\s+and\s+|\s+or\s+|\s*&\s*)['"]?/i;
/** A separator that joins a list's last item ("and", "or", "&"). */
export const LIST_JOINER = /\band\b|\bor\b|&|\bas well as\b/i;
/** An article before a list's item ("S&P 500 and the Dow Jones"): the item is what follows it. */
export const ITEM_ARTICLE = /^(?:the|an?)\s+/i;
/** Where a list item of the question ends (its text runs up to here). */
export const LIST_ITEM_END = /['",\])\n]|\s+(?:and|or)\s|[.?!;:](?:\s|$)/i;
/** The character the index joins its texts with (see GroundingIndex): a list item never runs past it. */
export const TEXT_JOINT = String.fromCharCode(0);
export const LEADING_NUMERAL = /^-?\d+(?:\.\d+)?/;
export const WORD_AT = /[\p{L}\p{N}_]/u;
/** A capitalized word that ends the text ("… Yellowstone"), as a name's word before another. */
export const CAPITALIZED_WORD_BEFORE = /(?:^|[^\p{L}\p{N}_])\p{Lu}[\p{L}\p{N}_.'+-]*$/u;

/** Whether `item` stands at `p` of `text` (lower case) as a whole: no word character runs on before or after it. */
export function itemAt(text: string, p: number, item: string): boolean {
  if (item === "" || !text.startsWith(item, p)) return false;
  const after = text[p + item.length] ?? "";
  const before = p > 0 ? text[p - 1] : "";
  return (
    !WORD_AT.test(before) && !WORD_AT.test(after) && !/^\.\d/.test(text.slice(p + item.length, p + item.length + 2))
  );
}

/**
 * What may stand between a key's word in the question and the value it names: "title 'David'", "net income of
 * $2,000,000", "radius of 4 meters", "the company 'Apple Inc.'", "age is 25", "material Marble", and after a comma
 * a name or number in apposition ("my location, Manhattan"). Not "for", "to", "with": "the next five matches for
 * Manchester United" does not make the team the matches'.
 */
export const ANCHOR_FILLER =
  /^(?:'s)?(?:\s*(?<join>of|is|are|was|were|=|:|named|called|equal to|set to)(?=[\s'"$])|(?<apposition>,)(?=\s))?\s*(?:the\s+|an?\s+)?(?<quote>['"])?\$?/i;
/** A numeral written right before a key's word, at most one word between ("5 years", "4 light years", "10 miles"). */
export const NUMERAL_BEFORE =
  /(?<![\p{L}\d.,])(\d[\d,]*(?:\.\d+)?)\s*(%\s*|(?:thousand|million|billion|trillion)\s+)?(?:[\p{L}-]+\s+)?$/iu;
/**
 * A number written as a word right before a key's word, at most one word between ("two nights", "three more days"):
 * Gemma wrote `"nights":10` from "10th December" for "two nights".
 */
export const NUMBER_WORD_BEFORE =
  /(?<![\p{L}])(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|fifty)\s+(?:[\p{L}-]+\s+)?$/iu;
/** A year as a question writes one: four digits from 1500 to 2099 ("in 2019", "from 1871 to 1945"). */
export const YEAR_NUMERAL = /^(?:1[5-9]|20)\d\d$/;
/**
 * Whether `key` takes a year: its words (an ordinal's stem too: `year1`) hold `year`, not `years` (a duration) nor a
 * date's other parts.
 */
export function yearKey(key: string): boolean {
  const stem = ORDINAL_KEY.exec(key)?.[1] ?? key;
  return keyWords(stem).includes("year");
}
/** A magnitude word after a numeral ("100 million outstanding shares", "payout of 50 million USD"), or letter ("$1M"). */
export const MAGNITUDE_AFTER = /^\s*([Tt]housand|[Mm]illion|[Bb]illion|[Tt]rillion)\b|^([KMB])(?![\p{L}\p{N}])/u;

/**
 * Head words of a key that takes a place: the called skill's one such key is also anchored to a name the question
 * puts after "in", "near", "around" or "at" ("forest in Yellowstone National Park", "around Denver, Colorado"), where
 * Gemma 3 270M wrote `"location":"in"`, `"hospital"`, `"nearby"`.
 */
export const PLACE_WORDS = new Set(["location", "place", "city", "town", "country", "region", "address", "venue"]);
/**
 * Words of a key that name a route's side, with the place word the key must also hold (or the side word alone:
 * `origin`, `destination`): `start_location` is the place after "from", `end_location` the one after "to". Not
 * `start_date`: a date is no place.
 */
const ROUTE_SIDES: Record<string, "from" | "to"> = {
  start: "from",
  origin: "from",
  departure: "from",
  source: "from",
  end: "to",
  destination: "to",
  arrival: "to",
};
const ROUTE_PLACES = new Set([...PLACE_WORDS, "airport", "point", "station", "origin", "destination"]);
/** The side of a route `key` takes (see ROUTE_SIDES), or undefined. */
export function routeSide(key: string): "from" | "to" | undefined {
  const words = key.split(/[_\-\s]+|(?<=[a-z])(?=[A-Z])/).map((word) => word.toLowerCase());
  const side = words.map((word) => ROUTE_SIDES[word]).find((found) => found !== undefined);
  return side && words.some((word) => ROUTE_PLACES.has(word)) ? side : undefined;
}
/** The words of a key that name one side of a pair (`from_lang`, `to_lang`; `source_language`, `target_language`). */
const PAIR_SIDES: Record<string, "from" | "to"> = { from: "from", source: "from", to: "to", target: "to" };
/**
 * The side of a pair `key` takes among the skill's `keys`, where another key names the other side with the same other
 * words (`from_lang` beside `to_lang`): the name after "from" for the one, after "to" for the other ("translate
 * 'Goodbye' from French to English", where both test models wrote the call before's English to French). Not a route's
 * or a conversion's side (see routeSide, conversionSide): their own anchors serve them.
 */
export function pairSide(key: string, keys: readonly string[]): "from" | "to" | undefined {
  const split = (k: string) => {
    const words = k.split(/[_\-\s]+|(?<=[a-z])(?=[A-Z])/).map((word) => word.toLowerCase());
    const side = PAIR_SIDES[words[0]];
    return side && words.length > 1 ? { side, rest: words.slice(1).join(" ") } : undefined;
  };
  const own = split(key);
  if (!own || routeSide(key) || conversionSide(key)) return undefined;
  const paired = keys.some((other) => {
    const theirs = split(other);
    return theirs !== undefined && theirs.side !== own.side && theirs.rest === own.rest;
  });
  return paired ? own.side : undefined;
}
/** The words of a number range's ends: `lower_limit`, `start_range`, `min_value`; `upper_limit`, `end`, `max_value`. */
const RANGE_SIDES: Record<string, "low" | "high"> = {
  lower: "low",
  low: "low",
  min: "low",
  minimum: "low",
  start: "low",
  begin: "low",
  upper: "high",
  high: "high",
  max: "high",
  maximum: "high",
  end: "high",
  stop: "high",
};
/** The end of a number range `key` takes (see RANGE_SIDES), not a route's (see routeSide), or undefined. */
export function rangeSide(key: string): "low" | "high" | undefined {
  if (routeSide(key)) return undefined;
  return keyWords(key)
    .map((word) => RANGE_SIDES[word])
    .find((found) => found !== undefined);
}
/** A range of numbers the question writes: "between 1 and 1000", "from 10 to 20 degrees". */
export const NUMBER_RANGE =
  /(?<![\p{L}\p{N}])(?:between|from)\s+\$?(\d[\d,]*(?:\.\d+)?)(\s*[\p{L}%]*)\s+(?:and|to)\s+\$?(\d[\d,]*(?:\.\d+)?)/giu;
/** "from" or "to" (an article aside) before a capitalized name: where a route's side begins. */
export const ROUTE_BEFORE = {
  from: /(?<![\p{L}\p{N}])from\s+(?:the\s+)?(?=\p{Lu})/gu,
  to: /(?<![\p{L}\p{N}])to\s+(?:the\s+)?(?=\p{Lu})/gu,
};
/**
 * The numerals `question` writes only as a unit's or a variable's exponent ("m/s^2", "3x^2", "cm^3"), never on their
 * own: no number argument's value (SmolLM2 wrote `"acceleration":2` for "a rate of 3.5 m/s^2"). "2^10" is no
 * exponent of a letter: its 10 stays.
 */
export function exponentOnlyNumerals(question: string): Set<string> {
  return numeralsOnlyMarked(question, /(?<mark>\p{L}\^)?(?<![\p{L}\d.,])(?<numeral>\d+(?:\.\d+)?)/gu);
}

/** The numerals of `question` that `pattern` (groups `numeral`, `mark`) finds marked every time it finds them. */
function numeralsOnlyMarked(question: string, pattern: RegExp): Set<string> {
  const marked = new Set<string>();
  const bare = new Set<string>();
  for (const match of question.matchAll(pattern)) (match.groups?.mark ? marked : bare).add(match.groups!.numeral);
  for (const numeral of bare) marked.delete(numeral);
  return marked;
}

/**
 * The numerals `question` writes only as a percentage ("8%", "5 %"), never bare: those whose fraction is the value
 * of a rate.
 */
export function percentOnlyNumerals(question: string): Set<string> {
  return numeralsOnlyMarked(question, /(?<![\p{L}\d.,])(?<numeral>\d+(?:\.\d+)?)(?<mark>\s?%)?/gu);
}

/** A key numbered among its siblings (`number1`, `num_2`): its stem and its number. */
export const ORDINAL_KEY = /^(.*?)_?([1-9])$/;
/** A key numbered inside its name (`year1_revenue`): the word before the number, the number, the words after it. */
export const INNER_ORDINAL_KEY = /^(\p{L}+?)_?([1-9])_(\p{L}[\p{L}_]*)$/u;

/** Words that make a key one of kinds (`room_type`, `genre`, `cuisine_category`). */
export const KIND_WORDS = new Set(["type", "kind", "genre", "category", "style", "sort", "variety", "class"]);

/**
 * The noun a string key takes a kind of: the key's word before its kind word (`room` of `room_type`), or what its
 * description calls it a kind of ("The type of crime", "Genre of the concert"); undefined for any other key.
 */
export function kindNoun(key: string, description: unknown): string | undefined {
  const words = keyWords(key);
  if (words.length > 1 && KIND_WORDS.has(words.at(-1)!)) return words.at(-2);
  if (typeof description !== "string") return undefined;
  const named = /\b(?:type|kind|genre|category|style|sort|variety)\s+of\s+(?:the\s+|an?\s+)?(\p{L}{3,})/iu.exec(
    description,
  );
  return named?.[1].toLowerCase();
}
/**
 * One-word keys that name no thing a word before them would sort ("the full name", "the user id", "a new value"):
 * they take no own-noun anchor (see ownNoun).
 */
const NO_OWN_NOUN = new Set(
  "name id title value text data query input output description number amount count key format unit units".split(" "),
);

/**
 * The noun a one-word string key is ("downtown location" for `location`, "the Midwest region" for `region`, "easy mode"
 * for `mode`): the word before it in the question is its value, as a kind's is before its noun (see kindNoun).
 */
export function ownNoun(key: string, description: unknown): string | undefined {
  const words = keyWords(key);
  if (words.length !== 1 || key.toLowerCase() !== words[0] || NO_OWN_NOUN.has(words[0])) return undefined;
  // (not where the description itself writes a word before the noun: "Preferred mode of public transportation" makes
  // "public" the noun's, not a value; Gemma wrote `"transportation":"public"` for "a bus as the preferred mode of public
  // transportation")
  const modified = new RegExp(
    `(?<![\\p{L}])(?!(?:the|an?|of|for|to|in|on|at|by|with|from|and|or|its|their|your|this|that|which|any)\\b)\\p{L}+\\s+${words[0]}`,
    "iu",
  );
  return typeof description === "string" && modified.test(description) ? undefined : words[0];
}
/** The noun a string key's value is the word before: a kind's (see kindNoun), else the key's own (see ownNoun). */
export function keyNoun(key: string, description: unknown): string | undefined {
  return kindNoun(key, description) ?? ownNoun(key, description);
}

/** "in", "near", "around", "at" (an article aside) before a capitalized name: where a place's name begins. */
export const PLACE_BEFORE = /(?<![\p{L}\p{N}])(?:in|near|around|at)\s+(?:the\s+)?(?=\p{Lu})/gu;
/** "of" before a capitalized name: where a place's name begins when no "in", "near", ... names one. */
export const PLACE_OF = /(?<![\p{L}\p{N}])of\s+(?:the\s+)?(?=\p{Lu})/gu;

/** Words of a flag's name that say nothing about what it turns on (`include_`, `show_`, `use_`, ...). */
export const GENERIC_FLAG_WORDS = new Set([
  "include",
  "show",
  "return",
  "with",
  "enable",
  "flag",
  "whether",
  "boolean",
]);

/** The words of a key (`cell_type`, `startDate`, `field-of-law`): lower case, 3 letters or more. */
export function keyWords(key: string): string[] {
  return key
    .split(/[_\-\s]+|(?<=[a-z])(?=[A-Z])/)
    .map((word) => word.toLowerCase())
    .filter((word) => word.length >= 3 && /^[a-z]+$/.test(word));
}
/** The words that name a conversion key's side, alone (`from`, `to`) or with a conversion word (`base_currency`). */
export const CONVERSION_SIDES = {
  from: new Set(["from", "source", "base", "original"]),
  to: new Set(["to", "target", "into"]),
} as const;
/** The words a conversion key may carry beside its side (`from_unit`, `target_currency`). */
export const CONVERSION_WORDS = new Set(["unit", "units", "currency", "scale", "measure"]);
/** A quantity's numeral and the space before its unit ("150 pounds", "98.6 °F", "2 tablespoons"). */
export const QUANTITY = /(?<![\p{L}\p{N}.])\d[\d,]*(?:\.\d+)?\s*(?=[°\p{L}])/gu;
/** What follows a numeral and is not its unit ("10 to 20", "4 and 5", "5 times"). */
export const NOT_A_UNIT =
  /^(?:to|and|or|of|in|into|times|by|at|per|from|is|are|was|were|be|will|would|can|could|do|does|an?|the|with|for|my|your|our|this|that|each|included|worth|equal|equals|make|makes|get|cost|costs)(?![\p{L}\p{N}])/iu;
/** Where a conversion names its source unit as such ("from British pounds to Japanese yen"). */
export const SOURCE_BEFORE = /(?<![\p{L}\p{N}])from\s+(?=[°\p{L}])/giu;
/** Where a conversion's target unit follows ("How many kilograms", "to miles", "in Celsius", "into cups"). */
export const TARGET_BEFORE = /(?<![\p{L}\p{N}])(?:how many|to|into|in)\s+(?=[°\p{L}])/giu;

/**
 * Which side of a conversion a key takes: `from`, `from_unit`, `base_currency`, `source_currency` the quantity's own
 * unit; `to`, `to_unit`, `target_currency` the unit wanted. Undefined for any other key (`from_date`, `source`).
 */
export function conversionSide(key: string): "from" | "to" | undefined {
  const words = key
    .split(/[_\-\s]+|(?<=[a-z])(?=[A-Z])/)
    .map((word) => word.toLowerCase())
    .filter(Boolean);
  for (const side of ["from", "to"] as const) {
    const named = words.filter((word) => CONVERSION_SIDES[side].has(word));
    const rest = words.filter((word) => !CONVERSION_SIDES[side].has(word));
    if (named.length !== 1) continue;
    if (rest.length === 0 ? named[0] === side : rest.every((word) => CONVERSION_WORDS.has(word))) return side;
  }
  return undefined;
}

/**
 * Where the question writes a conversion's units: a quantity's own unit ("How many kilograms is 150 pounds?":
 * "pounds") for the `from` side, and the unit wanted ("kilograms"; "to miles" and "in Celsius" after the quantity)
 * for the `to` side.
 */
export function conversionUnits(text: string, side: "from" | "to"): number[] {
  const after = (pattern: RegExp) =>
    [...text.matchAll(pattern)]
      .map((match) => match.index + match[0].length)
      .filter((at) => !NOT_A_UNIT.test(text.slice(at)));
  // "from British pounds" names it; else the unit of a quantity ("200 US dollars")
  const named = after(SOURCE_BEFORE);
  const sources = named.length > 0 ? named : after(QUANTITY);
  if (side === "from" || sources.length === 0) return sources;
  return [...text.matchAll(TARGET_BEFORE)]
    .filter((match) => /^how/i.test(match[0]) || match.index > sources[0])
    .map((match) => match.index + match[0].length)
    .filter((at) => !NOT_A_UNIT.test(text.slice(at)));
}

/**
 * The numerals of `numerals` (the source's) that `question` writes too, where some numeral of the source is not the
 * question's (a result's own): an answer's echo of the question. Empty without a question, or when every numeral is
 * the question's.
 */
export function echoedNumerals(numerals: readonly string[], question: string | undefined): Set<string> {
  if (question === undefined) return new Set();
  const asked = new Set(numeralsOf(question));
  const echoed = new Set(numerals.filter((numeral) => asked.has(numeral)));
  return echoed.size < new Set(numerals).size ? echoed : new Set();
}

/** A result's JSON syntax (`}`, `",`): not what an answer copies from it. */
export const JSON_PUNCTUATION = /^[\s{}[\]":,]+$/;
/** Characters a copied token may not carry: JSON would write them escaped (another token). */
export const NEEDS_ESCAPE = (ch: string) => ch === '"' || ch === "\\" || ch.charCodeAt(0) < 0x20;

/** Which value role a path is: the `final_answer` (answer) or a value under `arguments` (argument); else none. */
export function roleOf(path: readonly string[]): { role: "argument" | "answer"; key: string } | undefined {
  if (path[0] === "final_answer") return { role: "answer", key: "final_answer" };
  const at = path.indexOf("arguments");
  if (at === -1 || path.length <= at + 1) return undefined;
  return { role: "argument", key: path[path.length - 1] };
}

/** A list's string items so far that hold a letter: an item is not written twice ("rebounds", "rebounds", ...). */
export function distinctItems(items: readonly string[] | undefined): string[] {
  return (items ?? []).filter((item) => /\p{L}/u.test(item));
}
