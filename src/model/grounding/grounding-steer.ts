import type { Token } from "./token.js";
import { GROUNDING_LEVERS, type GroundingLever, type GroundingMode } from "../model-handle.js";
import {
  GROUNDING_ANSWER_COPY_LOGIT,
  GROUNDING_AVOID_LOGIT,
  GROUNDING_CLOSE_LOGIT,
  GROUNDING_COPY_LOGIT,
  GROUNDING_LIST_END_LOGIT,
  GROUNDING_MAX_POSITIONS,
  GROUNDING_MID_WORD_LOGIT,
  GROUNDING_MIN_DIGIT_RUN,
  GROUNDING_MIN_STRING_CHARS,
  GROUNDING_NUMBER_DIGIT_MARGIN,
  GROUNDING_STRICT_LOGIT,
} from "./defaults.js";
import { digitCount, GroundingIndex, longestDigitRun, numeralsOf } from "./grounding-index.js";
import { JsonValueTracker, type JsonValuePosition } from "./json-value-tracker.js";
import { arithmeticStretches } from "../../skills/builtin/evaluate-expression.js";

/** What the steer needs of a model's vocabulary (token-classes.ts builds it once per model). */
export interface GroundingVocabulary {
  /** The tokens whose text is exactly `text` (several may share one: a byte token and a piece). */
  tokensFor(text: string): readonly Token[] | undefined;
  /** The longest token text, in characters (bounds the lookups). */
  maxTokenChars: number;
  /**
   * Tokens that close a JSON string with what may follow it (`"`, `",`, `","`, `"}`, ...): all alike, so that closing
   * a value never favours ending the object over the next property.
   */
  stringClosers: readonly Token[];
  /** Tokens that end a number (`,`, `,"`, `}`, `]}`, ...), the same way. */
  valueClosers: readonly Token[];
  /** Tokens never sampled: never given a bonus (their "never" must stay). */
  banned: ReadonlySet<Token>;
  /**
   * What a handle keeps across calls (absent: nothing kept): the avoid texts (instructions, skill descriptions) are
   * the same on every step of a run, and the tokens that begin their spans take milliseconds to look up.
   */
  memo?: <T>(key: string, compute: () => T) => T;
}

/** The bias for the next token: none, a wrap-up (close the string / the value), or logit changes on some tokens. */
export type Steering =
  | { type: "none" }
  | { type: "close-string" }
  | { type: "close-value" }
  | { type: "bias"; logits: ReadonlyMap<Token, number> };

/** One generate call's grounding, as the loader takes it (GroundingOptions, plus the schema's enum/default values). */
export interface SteerSource {
  mode: Exclude<GroundingMode, "off">;
  /** Which parts act (see GroundingLever). Default: all of them. */
  levers?: readonly GroundingLever[];
  source: readonly string[];
  avoid?: readonly string[];
  /** Values the schema names (`enum`, `default`): spans a value may copy too. */
  schemaValues?: readonly string[];
  /** Each skill's optional argument keys, by skill name (see optionalArgumentKeys). */
  optionalKeys?: ReadonlyMap<string, readonly string[]>;
  /** Each skill's argument keys, by skill name (see skillArgumentKeys): whose anchored values a key leaves alone. */
  argumentKeys?: ReadonlyMap<string, readonly string[]>;
  /** Each skill's integer-typed argument keys, by skill name: only whole numerals are favoured for them. */
  integerKeys?: ReadonlyMap<string, readonly string[]>;
  /** Each skill's keys whose description asks for a percentage as such, by skill name: `5%` stays 5 for them. */
  percentKeys?: ReadonlyMap<string, readonly string[]>;
  /** The user's question, where `source` holds tool results too (see GroundingOptions.question). */
  question?: string;
  /** Each skill's keys typed `number` or `integer`, by skill name. */
  numericKeys?: ReadonlyMap<string, readonly string[]>;
  /** Each skill's keys that take an arithmetic expression (see formulaKey), by skill name. */
  formulaKeys?: ReadonlyMap<string, readonly string[]>;
  /** Each skill's optional keys and the values that ask for them (see askingValues), by skill name. */
  askedBy?: ReadonlyMap<string, Readonly<Record<string, readonly string[]>>>;
  /** Values earlier calls wrote (see GroundingOptions.taken): a numeral of them the source lacks gets a malus. */
  taken?: readonly string[];
}

/**
 * A numeral of the question as JSON writes it ("2,000,000" → 2000000), also as a fraction where a `%` follows,
 * only scaled where a magnitude word follows ("50 million": 50000000).
 */
function anchoredNumerals(numeral: string, after: string): string[] {
  const plain = numeral.replaceAll(",", "").replace(/\.$/, "");
  const all = [plain];
  if (/^\s?%/.test(after)) all.push(String(Number((Number(plain) / 100).toPrecision(12))));
  const magnitude = MAGNITUDE_AFTER.exec(after)?.[1].toLowerCase();
  const scaled = magnitude ? Number(plain) * MAGNITUDES[magnitude] : NaN;
  // "100 million": 100000000 only (an anchored 100 would be closed as whole: Gemma wrote 100)
  return Number.isSafeInteger(scaled) ? [String(scaled)] : all;
}

/** Characters a value made of nothing else is no value of: `","`, `"."`, `" "` (with the empty string). */
const PUNCTUATION = ["", ",", ".", ";", ":", "-", " ", "!", "?", "'", "/", "(", ")", "_", "*", "#", "&"];
const CLOSE_TAILS = ["", ",", "]", "}", "]}", "],", "},", "}}"];

/** punctuationStrings' texts by openers: a handful of openers (`""`, `":"`), built once each. */
const punctuationCache = new Map<string, string[]>();

/**
 * The texts of a string of punctuation alone, opened (`",`) or closed and followed by what may follow a value: after
 * each of `openers` with its opening quote (`quoted`: `:","`, `","]`), or inside a string that has just opened (`,"`).
 */
function punctuationStrings(openers: readonly string[], quoted: boolean): string[] {
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

/** The value being written: its kind, role, text so far and the spans of the source and avoid texts it follows. */
interface ValueState {
  kind: JsonValuePosition["kind"];
  role: "argument" | "answer";
  key: string;
  value: string;
  positions: number[];
  avoidPositions: number[];
  /** An array's item: the items before it (see JsonValuePosition.items). */
  items?: readonly string[];
  /** Inside an object of its own under `arguments` (`area: {"width": ...}`), not directly under it. */
  nested: boolean;
}

/** What stands between two items of a list the question writes out: `, `, ` and `, `', '`, ` or `, ` & `. */
const LIST_SEPARATOR = /^['"]?(?:\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*&\s*)['"]?/i;
/** A separator that joins a list's last item ("and", "or", "&"). */
const LIST_JOINER = /\band\b|\bor\b|&/i;
/** An article before a list's item ("S&P 500 and the Dow Jones"): the item is what follows it. */
const ITEM_ARTICLE = /^(?:the|an?)\s+/i;
/** Where a list item of the question ends (its text runs up to here). */
const LIST_ITEM_END = /['",\])\n]|\s+(?:and|or)\s|[.?!;:](?:\s|$)/i;
/** The character the index joins its texts with (see GroundingIndex): a list item never runs past it. */
const TEXT_JOINT = String.fromCharCode(0);
const LEADING_NUMERAL = /^-?\d+(?:\.\d+)?/;
const WORD_AT = /[\p{L}\p{N}_]/u;
/** A capitalized word that ends the text ("… Yellowstone"), as a name's word before another. */
const CAPITALIZED_WORD_BEFORE = /(?:^|[^\p{L}\p{N}_])\p{Lu}[\p{L}\p{N}_.'+-]*$/u;

/** Whether `item` stands at `p` of `text` (lower case) as a whole: no word character runs on before or after it. */
function itemAt(text: string, p: number, item: string): boolean {
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
const ANCHOR_FILLER =
  /^(?:'s)?(?:\s*(?<join>of|is|are|was|were|=|:|named|called|equal to|set to)(?=[\s'"$])|(?<apposition>,)(?=\s))?\s*(?:the\s+|an?\s+)?(?<quote>['"])?\$?/i;
/** A numeral written right before a key's word, at most one word between ("5 years", "4 light years", "10 miles"). */
const NUMERAL_BEFORE =
  /(?<![\p{L}\d.,])(\d[\d,]*(?:\.\d+)?)\s*(%\s*|(?:thousand|million|billion|trillion)\s+)?(?:[\p{L}-]+\s+)?$/iu;
/** A magnitude word after a numeral ("100 million outstanding shares", "payout of 50 million USD"). */
const MAGNITUDE_AFTER = /^\s*(thousand|million|billion|trillion)\b/i;
const MAGNITUDES: Record<string, number> = { thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 };

/**
 * Head words of a key that takes a place: the called skill's one such key is also anchored to a name the question
 * puts after "in", "near", "around" or "at" ("forest in Yellowstone National Park", "around Denver, Colorado"), where
 * Gemma 3 270M wrote `"location":"in"`, `"hospital"`, `"nearby"`.
 */
const PLACE_WORDS = new Set(["location", "place", "city", "town", "country", "region", "address", "venue"]);
/**
 * The numerals `question` writes only as a percentage ("8%", "5 %"), never bare: those whose fraction is the value
 * of a rate.
 */
function percentOnlyNumerals(question: string): Set<string> {
  const percent = new Set<string>();
  const bare = new Set<string>();
  for (const match of question.matchAll(/(?<![\p{L}\d.,])(\d+(?:\.\d+)?)(\s?%)?/gu))
    (match[2] ? percent : bare).add(match[1]);
  for (const numeral of bare) percent.delete(numeral);
  return percent;
}

/** A key numbered among its siblings (`number1`, `num_2`): its stem and its number. */
const ORDINAL_KEY = /^(.*?)_?([1-9])$/;
/** Words that only join others: no argument's value alone. */
const FUNCTION_WORDS = new Set(
  "a an the in on at to of for from by with near into onto about and or but is are was be my me i it its this that".split(
    " ",
  ),
);
/** "in", "near", "around", "at" (an article aside) before a capitalized name: where a place's name begins. */
const PLACE_BEFORE = /(?<![\p{L}\p{N}])(?:in|near|around|at)\s+(?:the\s+)?(?=\p{Lu})/gu;
/** "of" before a capitalized name: where a place's name begins when no "in", "near", ... names one. */
const PLACE_OF = /(?<![\p{L}\p{N}])of\s+(?:the\s+)?(?=\p{Lu})/gu;

const NONE: Steering = { type: "none" };
/** Words of a flag's name that say nothing about what it turns on (`include_`, `show_`, `use_`, ...). */
const GENERIC_FLAG_WORDS = new Set(["include", "show", "return", "with", "enable", "flag", "whether", "boolean"]);

/** The words of a key (`cell_type`, `startDate`, `field-of-law`): lower case, 3 letters or more. */
function keyWords(key: string): string[] {
  return key
    .split(/[_\-\s]+|(?<=[a-z])(?=[A-Z])/)
    .map((word) => word.toLowerCase())
    .filter((word) => word.length >= 3 && /^[a-z]+$/.test(word));
}
/** The words that name a conversion key's side, alone (`from`, `to`) or with a conversion word (`base_currency`). */
const CONVERSION_SIDES = {
  from: new Set(["from", "source", "base", "original"]),
  to: new Set(["to", "target", "into"]),
} as const;
/** The words a conversion key may carry beside its side (`from_unit`, `target_currency`). */
const CONVERSION_WORDS = new Set(["unit", "units", "currency", "scale", "measure"]);
/** A quantity's numeral and the space before its unit ("150 pounds", "98.6 °F", "2 tablespoons"). */
const QUANTITY = /(?<![\p{L}\p{N}.])\d[\d,]*(?:\.\d+)?\s*(?=[°\p{L}])/gu;
/** What follows a numeral and is not its unit ("10 to 20", "4 and 5", "5 times"). */
const NOT_A_UNIT =
  /^(?:to|and|or|of|in|into|times|by|at|per|from|is|are|was|were|be|will|would|can|could|do|does|an?|the|with|for|my|your|our|this|that|each|included|worth|equal|equals|make|makes|get|cost|costs)(?![\p{L}\p{N}])/iu;
/** Where a conversion names its source unit as such ("from British pounds to Japanese yen"). */
const SOURCE_BEFORE = /(?<![\p{L}\p{N}])from\s+(?=[°\p{L}])/giu;
/** Where a conversion's target unit follows ("How many kilograms", "to miles", "in Celsius", "into cups"). */
const TARGET_BEFORE = /(?<![\p{L}\p{N}])(?:how many|to|into|in)\s+(?=[°\p{L}])/giu;

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
function echoedNumerals(numerals: readonly string[], question: string | undefined): Set<string> {
  if (question === undefined) return new Set();
  const asked = new Set(numeralsOf(question));
  const echoed = new Set(numerals.filter((numeral) => asked.has(numeral)));
  return echoed.size < new Set(numerals).size ? echoed : new Set();
}

/** A result's JSON syntax (`}`, `",`): not what an answer copies from it. */
const JSON_PUNCTUATION = /^[\s{}[\]":,]+$/;
/** Characters a copied token may not carry: JSON would write them escaped (another token). */
const NEEDS_ESCAPE = (ch: string) => ch === '"' || ch === "\\" || ch.charCodeAt(0) < 0x20;

/** Which value role a path is: the `final_answer` (answer) or a value under `arguments` (argument); else none. */
function roleOf(path: readonly string[]): { role: "argument" | "answer"; key: string } | undefined {
  if (path[0] === "final_answer") return { role: "answer", key: "final_answer" };
  const at = path.indexOf("arguments");
  if (at === -1 || path.length <= at + 1) return undefined;
  return { role: "argument", key: path[path.length - 1] };
}

/**
 * The grounding bias of one generate call, token by token (issue 26): inside an argument's string or number value,
 * a bonus for tokens that copy on a span of the source (or the next digits of one of its numerals), a bonus for
 * closing a value that is a whole span ending at a boundary, a malus for tokens that copy on the instructions, the
 * runtime's notes or the key's own name; a runaway number (more digits than the source's numerals allow, a long run
 * of one digit) or string (longer than the source) is closed. `strict` restricts argument values to spans of the
 * source, the schema's values and the source's numerals. A final answer gets a gentler copy bonus toward the results
 * and the question, and the same malus. The source is indexed once (GroundingIndex); each token extends the spans
 * followed so far by its text.
 */
export class GroundingSteer {
  readonly #mode: "soft" | "strict";
  readonly #levers: ReadonlySet<GroundingLever>;
  readonly #source: GroundingIndex;
  readonly #avoid: GroundingIndex;
  readonly #vocab: GroundingVocabulary;
  readonly #tracker = new JsonValueTracker();
  readonly #stringBound: number;
  #value: ValueState | undefined;
  /** The last value written, once it is done (see #afterArgument: a list closed after its last item). */
  #lastValue: ValueState | undefined;
  /** The argument values this reply has written so far: a numeral used once is not favoured for another argument. */
  readonly #written = new Set<string>();
  #startTokens: Map<Token, number> | undefined;
  #avoidStartTokens: Set<Token> | undefined;
  /** The avoid texts, as the key of what the vocabulary's memo keeps for them. */
  readonly #avoidKey: string;
  readonly #quotedStartTokens = new Map<string, Token[]>();
  readonly #optionalKeys: ReadonlyMap<string, readonly string[]>;
  readonly #argumentKeys: ReadonlyMap<string, readonly string[]>;
  readonly #integerKeys: ReadonlyMap<string, readonly string[]>;
  readonly #numericKeys: ReadonlyMap<string, readonly string[]>;
  readonly #formulaKeys: ReadonlyMap<string, readonly string[]>;
  /** The question's arithmetic stretches (see arithmeticStretches), found once. */
  #stretches?: [number, number][];
  /** The source's numerals that only echo the question, where the results bring numerals of their own. */
  readonly #echoed: ReadonlySet<string>;
  /** Numerals earlier calls wrote that the source does not hold (see SteerSource.taken). */
  readonly #taken: readonly string[];
  /** Texts earlier calls wrote that the first source text does not hold: no string value begins with one. */
  readonly #takenTexts: readonly string[];
  /** The question's numerals that it writes in digits (see #numeralsHeld), read once. */
  #digitNumerals?: string[];
  readonly #askedBy: ReadonlyMap<string, Readonly<Record<string, readonly string[]>>>;
  readonly #percentKeys: ReadonlyMap<string, readonly string[]>;
  /** Numerals the question writes only as a percentage ("8%"): their fraction (0.08) is the value (see #fits). */
  readonly #percentOnly: ReadonlySet<string>;
  /** The reply so far (see #optionalAsked). */
  #text = "";
  /** The skill the reply so far calls, and the text it was read from (see #currentSkill). */
  #skillOf: { text: string; skill: string | undefined } | undefined;
  /** The source's words, lower case (see #named). */
  #sourceWords: Set<string> | undefined;
  /** How many characters of the source's text are the question's (the schema's values follow them). */
  readonly #questionChars: number;
  /** Where the source begins with the newest result (a final round, an answer after a chain): its length; else 0. */
  readonly #newestChars: number;
  #newestStartTokens: Map<Token, number> | undefined;
  /** Each unit key's units (see #unitSpans), computed once per skill and key. */
  readonly #units = new Map<string, [number, number][]>();
  /** Each key's anchored values (see #anchors), computed once per key. */
  readonly #anchored = new Map<string, { starts: number[]; numerals: string[] }>();

  constructor(source: SteerSource, vocab: GroundingVocabulary) {
    this.#mode = source.mode;
    this.#levers = new Set(source.levers ?? GROUNDING_LEVERS);
    this.#source = new GroundingIndex([...source.source, ...(source.schemaValues ?? [])], { skipArticles: true });
    this.#questionChars = source.source.join(TEXT_JOINT).length;
    const first = source.source[0];
    this.#newestChars =
      source.question !== undefined && source.source.length > 1 && first !== source.question ? first.length : 0;
    this.#optionalKeys = source.optionalKeys ?? new Map();
    this.#argumentKeys = source.argumentKeys ?? new Map();
    this.#integerKeys = source.integerKeys ?? new Map();
    this.#numericKeys = source.numericKeys ?? new Map();
    this.#formulaKeys = source.formulaKeys ?? new Map();
    this.#echoed = echoedNumerals(this.#source.numerals, source.question);
    const taken = [...new Set(source.taken ?? [])];
    this.#taken = taken.filter(
      (value) => LEADING_NUMERAL.exec(value)?.[0] === value && !this.#source.numerals.includes(value),
    );
    const own = (source.source[0] ?? "").toLowerCase();
    this.#takenTexts = taken.filter(
      (value) =>
        LEADING_NUMERAL.exec(value)?.[0] !== value && value.trim() !== "" && !own.includes(value.toLowerCase()),
    );
    this.#askedBy = source.askedBy ?? new Map();
    this.#percentKeys = source.percentKeys ?? new Map();
    this.#percentOnly = percentOnlyNumerals(source.source[0] ?? "");
    const avoid = source.avoid ?? [];
    this.#vocab = vocab;
    this.#avoidKey = avoid.join("\u0000");
    this.#avoid = this.#memo(`avoid-index\u0001${this.#avoidKey}`, () => new GroundingIndex(avoid));
    this.#stringBound = Math.max(GROUNDING_MIN_STRING_CHARS, ...source.source.map((t) => t.length));
  }

  /** The bias for the token after `text` (the whole reply so far, only ever extended). */
  next(text: string): Steering {
    this.#text = text;
    const position = this.#tracker.update(text);
    const role = position && roleOf(position.path);
    const lever = this.#levers;
    if (!position || !role) {
      const after = lever.has("copy") ? this.#afterArgument(text) : NONE;
      this.#leaveValue();
      return after;
    }
    const state = this.#follow(position, role);
    if (state.kind === "pending")
      return state.role === "argument" && (lever.has("copy") || lever.has("numbers"))
        ? this.#pendingValue(position.opener ?? "", state.key, position.items)
        : NONE;
    if (state.kind === "number") return lever.has("numbers") ? this.#number(state) : NONE;
    if (state.role === "answer") return lever.has("answers") ? this.#answer(state) : NONE;
    return this.#string(state);
  }

  /**
   * Right after an argument's string or list closed directly under `arguments` (`"target":"Purchase_Amount"`, `[7,8]`),
   * where `,` or `}` comes next: when an optional argument the question asks for is still to come (see
   * #optionalAsked), `,` gets the bonus and `}` the malus. Gemma writes the closing quote alone and then `}`: the
   * string's own closers never came up.
   */
  #afterArgument(text: string): Steering {
    const value = this.#value ?? this.#lastValue;
    if (!value || value.role !== "argument") return NONE;
    const justClosed = this.#value !== undefined && value.kind === "string" && text.endsWith('"');
    if (justClosed && value.items) {
      // an item string just closed, the bare `,` or `]` next: the list steering, as on `",` and `"]`
      const logits = new Map<Token, number>();
      this.#listEnd(value, logits, ["]", "]}", "]}}", "]},", "],"], [",", ", ", ',"', ', "']);
      return logits.size ? { type: "bias", logits } : NONE;
    }
    // a list's bare `]` (after a number item its value is still the current one, after a string item the last one)
    const closed = value.items ? text.endsWith("]") : justClosed;
    if (value.nested || !closed) return NONE;
    const logits = new Map<Token, number>();
    // a list's `]`: the list is whole, its arguments' end as after any value
    this.#argumentsEnd(
      { ...value, items: undefined },
      logits,
      [",", ', "', ',"'],
      ["}", "}}", "}}}", "},", "}, "],
      GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT,
    );
    return logits.size ? { type: "bias", logits } : NONE;
  }

  /** The value written so far is done: an argument's is remembered (see #written). */
  #leaveValue(): void {
    if (this.#value?.role === "argument" && this.#value.value !== "") this.#written.add(this.#value.value);
    this.#lastValue = this.#value ?? this.#lastValue;
    this.#value = undefined;
  }

  /** The value state after `position`: a new value, or the current one extended by what the text added. */
  #follow(position: JsonValuePosition, role: { role: "argument" | "answer"; key: string }): ValueState {
    const current = this.#value;
    const same =
      current !== undefined &&
      current.kind === position.kind &&
      current.key === role.key &&
      position.value.startsWith(current.value);
    if (!same) {
      this.#leaveValue();
      this.#value = {
        kind: position.kind,
        ...role,
        value: "",
        positions: [],
        avoidPositions: [],
        items: position.items,
        nested: position.path.length > position.path.indexOf("arguments") + 2,
      };
      this.#value.positions = position.kind === "string" ? [...this.#source.starts] : [];
      this.#value.avoidPositions = position.kind === "string" ? [...this.#avoid.starts] : [];
    }
    const state = this.#value!;
    const piece = position.value.slice(state.value.length);
    if (piece !== "" && state.kind === "string") this.#extend(state, piece);
    state.value = position.value;
    return state;
  }

  /**
   * Follow the spans of the source and the avoid texts through `piece`; after a boundary a soft argument value that
   * left the source may begin another span (an answer does not: SmolLM2 then wrote "17.17.17…"), and the avoid texts
   * are followed again from any word.
   */
  #extend(state: ValueState, piece: string): void {
    state.positions = this.#source.advance(state.positions, piece);
    state.avoidPositions = this.#avoid.advance(state.avoidPositions, piece);
    if (!/[^\p{L}\p{N}_]$/u.test(piece)) return;
    // after a word: a soft value or an answer may copy another span; an avoid text is followed again from any word
    if (state.role === "argument" && this.#mode === "soft" && state.positions.length === 0)
      state.positions = [...this.#source.starts];
    if (state.avoidPositions.length === 0) state.avoidPositions = [...this.#avoid.starts];
  }

  /** Tokens that copy on from each of `positions` (the first `max` of them), each with `logit`. */
  #continuations(
    index: GroundingIndex,
    positions: readonly number[],
    logit: number,
    into: Map<Token, number>,
    max = GROUNDING_MAX_POSITIONS,
    skip?: RegExp,
  ): void {
    const { maxTokenChars, banned } = this.#vocab;
    for (const p of positions.length > max ? positions.slice(0, max) : positions) {
      const following = index.following(p, maxTokenChars);
      for (let length = 1; length <= following.length; length++) {
        const piece = following.slice(0, length);
        if (NEEDS_ESCAPE(piece[length - 1])) break;
        if (skip?.test(piece)) continue;
        for (const token of this.#vocab.tokensFor(piece) ?? []) if (!banned.has(token)) into.set(token, logit);
      }
    }
  }

  /** The tokens that begin a span of the source, computed once per call (a value's first token). */
  #sourceStarts(): Map<Token, number> {
    if (!this.#startTokens) {
      this.#startTokens = new Map();
      const starts = this.#source.starts.filter((p) => !this.#insideName(p));
      this.#continuations(this.#source, starts, 1, this.#startTokens, Infinity);
    }
    return this.#startTokens;
  }

  /**
   * A number an earlier call wrote that the source does not hold (the earlier item's, the value a conversion
   * converted before its result): the tokens that go on to it from `value` get the malus, unless they go on to a
   * numeral of the source too. Gemma wrote the first call's 10 again for "then convert that to feet", the first
   * triangle's base for the second's.
   */
  #takenMalus(opener: string, value: string, logits: Map<Token, number>): void {
    for (const numeral of this.#taken) {
      if (!numeral.startsWith(value) || numeral.length <= value.length) continue;
      const rest = numeral.slice(value.length, value.length + this.#vocab.maxTokenChars);
      for (let length = 1; length <= rest.length; length++)
        for (const token of this.#vocab.tokensFor(opener + rest.slice(0, length)) ?? [])
          if (!((logits.get(token) ?? 0) > 0)) logits.set(token, GROUNDING_AVOID_LOGIT);
    }
  }

  /**
   * A text an earlier call wrote, where this call's own source (its item, the result it chains on) lacks it: the
   * tokens that begin it get the malus, unless they begin a span of the source too (the earlier item's value; the hop
   * before: "Alice" again for the manager of Alice's manager, after "Bob").
   */
  #takenTextMalus(opener: string, logits: Map<Token, number>): void {
    for (const text of this.#takenTexts) {
      const prefix = new Map<Token, number>();
      this.#prefixTokens(`${opener}"`, text.slice(0, this.#vocab.maxTokenChars), GROUNDING_AVOID_LOGIT, prefix);
      for (const [token, malus] of prefix) if (!((logits.get(token) ?? 0) > 0)) logits.set(token, malus);
    }
  }

  /** The tokens that begin a span of the newest result (see #newestChars), computed once per call. */
  #newestStarts(): Map<Token, number> {
    if (!this.#newestStartTokens) {
      this.#newestStartTokens = new Map();
      // the question's numerals the result only echoes (`"value":20` of "20 pounds") are no part of it to begin with
      const echoes = (p: number) => {
        const numeral = LEADING_NUMERAL.exec(this.#source.text.slice(p, p + 32))?.[0];
        return numeral !== undefined && this.#echoed.has(numeral);
      };
      const starts = this.#source.starts.filter((p) => p < this.#newestChars && !echoes(p));
      this.#continuations(this.#source, starts, 1, this.#newestStartTokens, Infinity);
    }
    return this.#newestStartTokens;
  }

  /**
   * The tokens that begin, after `opener`, a string this reply gave another argument already: not favoured again for
   * the next one (`state: "San Francisco"` after `city: "San Francisco"`), though the model may still write them.
   */
  #writtenStarts(opener: string): Set<Token> {
    const tokens = new Map<Token, number>();
    for (const value of this.#written) if (!/^-?\d/.test(value)) this.#prefixTokens(opener, value, 1, tokens);
    return new Set(tokens.keys());
  }

  /** The tokens that begin a span of the avoid texts (a word of the instructions), computed once per call. */
  #avoidStarts(): Set<Token> {
    this.#avoidStartTokens ??= this.#memo(`avoid-starts\u0001${this.#avoidKey}`, () => {
      const tokens = new Map<Token, number>();
      this.#continuations(this.#avoid, this.#avoid.starts, 1, tokens, Infinity);
      return new Set(tokens.keys());
    });
    return this.#avoidStartTokens;
  }

  #memo<T>(key: string, compute: () => T): T {
    return this.#vocab.memo ? this.#vocab.memo(key, compute) : compute();
  }

  /** An argument string: copy bonus, boundary close, avoid malus (soft); spans only (strict); the length bound. */
  #string(state: ValueState): Steering {
    const bounded = this.#levers.has("strings");
    if (bounded && (state.value.length >= this.#stringBound || this.#digitRunaway(state)))
      return { type: "close-string" };
    if (!this.#levers.has("copy")) return NONE;
    if (this.#mode === "strict" && !this.#source.empty) return this.#strictString(state);
    const logits = new Map<Token, number>();
    if (state.value === "") this.#startMalus(state.key, logits);
    this.#avoidMalus(state, logits);
    const copy = state.value === "" ? this.#sourceStarts().keys() : undefined;
    if (copy) {
      // a conversion's unit: only where the question writes one (SmolLM2's "from":"many" for "How many grams is 12
      // ounces?")
      const only = this.#unitSpans(state.key).length > 0;
      const written = this.#writtenStarts("");
      const named = this.#keyWordTokens("", state.key);
      if (!only)
        for (const token of copy) if (!written.has(token) && !named.has(token)) logits.set(token, GROUNDING_COPY_LOGIT);
      const others = new Map<Token, number>();
      this.#continuations(
        this.#source,
        [...this.#othersAnchors(state.key).starts, ...this.#innerStarts(state.key)],
        0,
        others,
      );
      for (const token of others.keys()) logits.delete(token);
      const anchored = new Map<Token, number>();
      this.#continuations(
        this.#source,
        this.#anchors(state.key).starts,
        GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT,
        anchored,
      );
      // the key's own words get the malus, unless an anchored value begins with them ("Hotel Paradise", `hotel_name`)
      for (const token of named) logits.set(token, GROUNDING_AVOID_LOGIT);
      for (const [token, logit] of anchored) logits.set(token, logit);
      if (!state.items)
        for (const numeral of this.#numeralsForNumberKeys(state.key))
          this.#prefixTokens("", numeral, GROUNDING_AVOID_LOGIT, logits);
    } else this.#copyOn(state, logits);
    const close = this.#closeLogit(state);
    if (close !== undefined) for (const token of this.#vocab.stringClosers) logits.set(token, close);
    // an empty string is no value the question gives (SmolLM2's `"target":""`, `[""]` once lists could not be empty),
    // nor is one of punctuation alone (`[","]`)
    if (!/[\p{L}\p{N}]/u.test(state.value)) {
      for (const token of this.#vocab.stringClosers) logits.set(token, GROUNDING_AVOID_LOGIT);
      this.#textTokens(punctuationStrings([""], false), GROUNDING_AVOID_LOGIT, logits, []);
    } else if (FUNCTION_WORDS.has(state.value.trim().toLowerCase()))
      // nor is a word that only joins others (Gemma's `"location":"in"`, `"cell_compartment":"a"`)
      for (const token of this.#vocab.stringClosers) logits.set(token, GROUNDING_AVOID_LOGIT);
    if (state.value !== "") this.#listEnd(state, logits, ['"]', '"]}', '"]}}', '"]},', '"],'], ['",', '", "', '","']);
    if (close !== undefined)
      this.#argumentsEnd(state, logits, ['",', '", "', '","'], ['"}', '"}}', '"}}}', '"},'], close);
    // a unit of several words closes at its last one (SmolLM2's "from":"US" for "5 US gallons")
    const units = this.#unitSpans(state.key);
    const inUnit = this.#inUnits(units, state.positions);
    const wordInside = (p: number) =>
      units.some(([start, end]) => p > start && p < end) && this.#source.text[p] === " ";
    if (inUnit.length > 0 && inUnit.every(wordInside))
      for (const token of this.#vocab.stringClosers) logits.set(token, GROUNDING_AVOID_LOGIT);
    return logits.size ? { type: "bias", logits } : NONE;
  }

  /**
   * The copy bonus on from the spans the value follows; more where the value is in the middle of a word of the source
   * and no whole word of it (see GROUNDING_MID_WORD_LOGIT).
   */
  #copyOn(whole: ValueState, logits: Map<Token, number>): void {
    if (this.#isFormula(whole.key)) return this.#formulaOn(whole, logits);
    // a unit the value copies goes on as that unit, not as another word it begins ("m" of "milliliters", not "many")
    const inUnit = this.#inUnits(this.#unitSpans(whole.key), whole.positions);
    const state = inUnit.length > 0 ? { ...whole, positions: inUnit } : whole;
    // only where the value is no whole word of the source yet: "C" of "C major" may close ("Compose" holds it too)
    const midWord = WORD_AT.test(state.value.at(-1) ?? "") && !state.positions.some((p) => this.#source.endsWord(p));
    const inWord = midWord ? state.positions : [];
    // a place's name goes on with its region ("Denver, Colorado"), ahead of closing at the comma
    const region = this.#isPlaceKey(state.key) ? state.positions.filter((p) => this.#regionAfter(p)) : [];
    // no copy bonus across a joining word ("New York | to Los Angeles"): closing there gets the bonus
    const onward = state.positions.filter((p) => this.#source.text[p] !== " " || !this.#source.endsAtBoundary(p));
    this.#continuations(this.#source, onward, GROUNDING_COPY_LOGIT, logits);
    if (inWord.length > 0) this.#continuations(this.#source, inWord, GROUNDING_MID_WORD_LOGIT, logits);
    if (region.length > 0)
      this.#continuations(this.#source, region, GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT, logits);
    // a name goes on to its last word ("Yellowstone National Park", "Magnus Carlsen"), and a quoted text to its
    // closing quote ('Guardian Sword+'), ahead of closing
    const name = state.positions.filter((p) => this.#nameGoesOn(p) || this.#source.quoted(p));
    if (name.length > 0) this.#continuations(this.#source, name, GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT, logits);
  }

  /**
   * An expression's copy bonus (`expression` of the calculator): inside one of the question's arithmetic stretches,
   * on to its end ("17 times 23 plus 4", not "17*23" closed where "23" ends a word); elsewhere only digits and
   * symbols copy on ("3.5", not "3.5 hours": the words would be an error).
   */
  #formulaOn(state: ValueState, logits: Map<Token, number>): void {
    const inside = state.positions.filter((p) => this.#insideStretch(p));
    this.#continuations(this.#source, inside, GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT, logits);
    const rest = state.positions.filter((p) => !this.#insideStretch(p));
    this.#continuations(this.#source, rest, GROUNDING_COPY_LOGIT, logits, undefined, /\p{L}|\s$/u);
  }

  /**
   * For an expression key, where the question's words begin inside one of its arithmetic stretches: no value begins
   * there with a bonus (both test models wrote "1764" for "the square root of 1764", and "12, 18, 27 and 43" for "the
   * average of ...").
   */
  #innerStarts(key: string): number[] {
    if (!this.#isFormula(key)) return [];
    return this.#source.starts.filter((p) => this.#insideStretch(p));
  }

  /**
   * For a conversion's unit key (see conversionSide) of a skill that takes the quantity in a number key: the units the
   * question writes for its side (see conversionUnits), each as [start, end) offsets to its last word ("US gallons"
   * up to "to liters", "kilograms" up to "is"). Gemma closed "US" and "mil"; empty for any other key.
   */
  #unitSpans(key: string): [number, number][] {
    const skill = this.#currentSkill();
    const memo = `${skill ?? ""}\u0000${key}`;
    let spans = this.#units.get(memo);
    if (spans) return spans;
    const numeric = skill === undefined ? undefined : this.#numericKeys.get(skill);
    const text = this.#source.text;
    spans =
      !conversionSide(key) || !numeric?.length || numeric.includes(key)
        ? []
        : this.#anchors(key).starts.map((start): [number, number] => {
            const first = /^(?:°\s?)?\p{L}+/u.exec(text.slice(start, start + 40));
            let end = start + (first?.[0].length ?? 0);
            for (let next; (next = /^[ -](\p{L}+)/u.exec(text.slice(end, end + 40))) && !NOT_A_UNIT.test(next[1]);)
              end += next[0].length;
            return [start, end];
          });
    this.#units.set(memo, spans);
    return spans;
  }

  /** The positions of `positions` inside one of `units` or at its end (past its start). */
  #inUnits(units: readonly [number, number][], positions: readonly number[]): number[] {
    return positions.filter((p) => units.some(([start, end]) => p > start && p <= end));
  }

  /** Whether `key` of the called skill takes an arithmetic expression (see formulaKey). */
  #isFormula(key: string): boolean {
    const skill = this.#currentSkill();
    return skill !== undefined && (this.#formulaKeys.get(skill)?.includes(key) ?? false);
  }

  /** The question's arithmetic stretches (see arithmeticStretches), as [start, end) offsets of the source's text. */
  #arithmetic(): [number, number][] {
    return (this.#stretches ??= arithmeticStretches(this.#source.text.slice(0, this.#questionChars)));
  }

  /** Whether `p` lies inside an arithmetic stretch of the question, past its start and before its end. */
  #insideStretch(p: number): boolean {
    return this.#arithmetic().some(([start, end]) => p > start && p < end);
  }

  /**
   * Whether a span ending at `p` stops inside a name: its last word is capitalized and the source goes on with a
   * space and another capitalized word ("Yellowstone| National Park", "Apple| Inc."). Gemma closed "Yellowstone".
   */
  #nameGoesOn(p: number): boolean {
    const text = this.#source.text;
    return /^ \p{Lu}/u.test(text.slice(p, p + 2)) && CAPITALIZED_WORD_BEFORE.test(text.slice(Math.max(0, p - 40), p));
  }

  /**
   * Whether `p` begins a word inside a name: a capitalized word right after another one that does not begin its
   * sentence ("Carlsen" of "Magnus Carlsen", "Park" of "Yellowstone National Park"). A value does not begin there
   * (Gemma wrote `"player_name":"Carlsen"`).
   */
  #insideName(p: number): boolean {
    const text = this.#source.text;
    if (!/\p{Lu}/u.test(text[p] ?? "") || text[p - 1] !== " ") return false;
    const before = /(?:^|[^\p{L}\p{N}_])(\p{Lu}[\p{L}\p{N}_.'+-]*) $/u.exec(text.slice(Math.max(0, p - 40), p));
    if (!before) return false;
    const at = p - before[1].length - 1;
    // the word before begins a text or a sentence: a capitalized sentence start is no part of a name ("Find Magnus")
    const lead = text.slice(Math.max(0, at - 3), at);
    return !(at === 0 || lead.endsWith(TEXT_JOINT) || /(?:[.!?:]\s+|\n\s*)$/.test(lead));
  }

  /**
   * The numerals of the question that a number key of the called skill, not written yet, may still take, where `key`
   * is not one: a string that begins with one of them is no value ("location":"1800" before "year":1800 for "king of
   * England in 1800", "topic":"5" for "5 latest news on Bitcoin"). Only a numeral the question writes bare (a space,
   * `(` or `$` before it, a space or punctuation after it: not "3x^2", "x^2 at", "10th"). Where `key` is a
   * conversion's unit (see conversionSide) beside a number key: every numeral of the question.
   */
  #numeralsForNumberKeys(key: string): string[] {
    const skill = this.#currentSkill();
    const numeric = skill === undefined ? undefined : this.#numericKeys.get(skill);
    if (!numeric?.length || numeric.includes(key)) return [];
    const question = this.#source.text.slice(0, this.#questionChars);
    // a conversion's unit begins with no numeral, the quantity's own written or not (SmolLM2's `"from":"150"` after
    // `"value":150` for "How many kilograms is 150 pounds?")
    if (conversionSide(key)) return [...new Set(numeralsOf(question))];
    const written = this.#writtenKeys();
    const open = numeric.filter((other) => !written.has(other));
    if (open.length === 0) return [];
    return [...new Set(numeralsOf(question))].filter(
      (numeral) =>
        open.some((other) => this.#fits(other, numeral)) &&
        new RegExp(`(?<=^|[\\s($])${numeral.replaceAll(".", "\\.")}(?=[\\s?.!,;:)]|$)`, "u").test(question),
    );
  }

  /**
   * Where the names of the question begin that hold a word of `key` (4 letters or more; not `name` or a generic one)
   * capitalized as one of their words: "Hilton Hotel" and "Hotel Paradise" for `hotel_name`, "English Premier League"
   * for `league`. Gemma wrote the city ("Chicago", "Las Vegas") as the hotel's name.
   */
  #namesHolding(key: string): number[] {
    const text = this.#source.text.slice(0, this.#questionChars);
    const starts = new Set<number>();
    for (const word of keyWords(key)) {
      if (word.length < 4 || word === "name" || GENERIC_FLAG_WORDS.has(word)) continue;
      const capitalized = word[0].toUpperCase() + word.slice(1);
      const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${capitalized}(?![\\p{L}\\p{N}])`, "gu");
      for (const match of text.matchAll(pattern)) {
        let start = match.index;
        while (this.#insideName(start)) start = text.lastIndexOf(" ", start - 2) + 1;
        // one word alone is no name ("Hotel" that begins a sentence)
        if (start < match.index || this.#nameGoesOn(match.index + word.length)) starts.add(start);
      }
    }
    return [...starts];
  }

  /** Whether `key` takes a place (its head word is one of PLACE_WORDS). */
  #isPlaceKey(key: string): boolean {
    return PLACE_WORDS.has(keyWords(key).at(-1) ?? "");
  }

  /** Whether the source goes on at `p` with a comma and a capitalized name: a place's region ("Denver, Colorado"). */
  #regionAfter(p: number): boolean {
    return /^, \p{Lu}/u.test(this.#source.following(p, 3));
  }

  /**
   * A string off the source that ends in a run of one digit longer than the source's (`Safeway 1000000000…`), or in
   * more digits than the source's longest numeral plus the margin (`Safeway 1010101010…`): a number's runaway.
   */
  #digitRunaway(state: ValueState): boolean {
    if (state.positions.length > 0) return false;
    const run = /(\d)\1*$/.exec(state.value)?.[0].length ?? 0;
    const digits = /\d*$/.exec(state.value)![0].length;
    return (
      run >= Math.max(this.#source.maxDigitRun + 1, GROUNDING_MIN_DIGIT_RUN) ||
      digits > Math.max(this.#source.maxNumeralDigits, 1) + GROUNDING_NUMBER_DIGIT_MARGIN
    );
  }

  /**
   * The bonus of closing a soft argument string: as much as copying on where the value ends a word of the source (the
   * bias does not push a value past its word: "Google" of "Google in California"), more at a boundary (",", the end).
   */
  #closeLogit(state: ValueState): number | undefined {
    if (state.value === "") return undefined;
    // an expression closes where an arithmetic stretch of the question ends, nowhere else with a bonus
    if (this.#isFormula(state.key))
      return state.positions.some((p) => this.#arithmetic().some(([, end]) => p === end))
        ? GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT
        : undefined;
    // inside a name, a quoted text or a unit the question writes whole: no bonus for closing before its end
    const units = this.#unitSpans(state.key);
    if (
      state.positions.length > 0 &&
      state.positions.every(
        (p) => this.#nameGoesOn(p) || this.#source.quoted(p) || units.some(([start, end]) => p > start && p < end),
      )
    )
      return undefined;
    if (this.#isPlaceKey(state.key) && state.positions.some((p) => this.#regionAfter(p))) return GROUNDING_COPY_LOGIT;
    if (state.positions.some((p) => this.#source.endsAtBoundary(p)))
      return GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT;
    if (state.positions.some((p) => this.#source.endsWord(p))) return GROUNDING_COPY_LOGIT;
    return undefined;
  }

  /**
   * Strict: only tokens that copy on a span, or close one that ends a word (`"rs"` of `rs6034464` may not close);
   * off every span, the string closes.
   */
  #strictString(state: ValueState): Steering {
    if (state.positions.length === 0) return { type: "close-string" };
    const logits = new Map<Token, number>();
    if (state.value === "") for (const token of this.#sourceStarts().keys()) logits.set(token, GROUNDING_STRICT_LOGIT);
    else this.#continuations(this.#source, state.positions, GROUNDING_STRICT_LOGIT, logits);
    if (state.value !== "" && state.positions.some((p) => this.#source.endsWord(p)))
      for (const token of this.#vocab.stringClosers) logits.set(token, GROUNDING_STRICT_LOGIT);
    return { type: "bias", logits };
  }

  /**
   * At a value's start: a malus for the first tokens of the key's own name and of the avoid texts' words (`string`
   * from a schema, `The` of a description), where the source does not begin a span with them.
   */
  #startMalus(key: string, logits: Map<Token, number>): void {
    const sourceStarts = this.#sourceStarts();
    const keyIndex = new GroundingIndex([key, key.replaceAll("_", " ")]);
    const keyTokens = new Map<Token, number>();
    this.#continuations(keyIndex, [0, key.length + 1], GROUNDING_AVOID_LOGIT, keyTokens);
    for (const token of [...keyTokens.keys(), ...this.#avoidStarts()])
      if (!sourceStarts.has(token)) logits.set(token, GROUNDING_AVOID_LOGIT);
  }

  /** Off the source and on an avoid text: a malus for the tokens that copy on the avoid text. */
  #avoidMalus(state: ValueState, logits: Map<Token, number>): void {
    const offSource = state.value !== "" && state.positions.length === 0;
    if (!offSource || state.avoidPositions.length === 0 || state.avoidPositions.length > GROUNDING_MAX_POSITIONS)
      return;
    this.#continuations(this.#avoid, state.avoidPositions, GROUNDING_AVOID_LOGIT, logits);
  }

  /**
   * A final answer: a gentle copy bonus toward the results and the question, the avoid malus; no length bound, but a
   * number's runaway closes it.
   */
  #answer(state: ValueState): Steering {
    // a runaway number ends the answer (SmolLM2: "150.0000000000000001", "5.555555555555555555555555")
    if (this.#digitRunaway(state)) return { type: "close-string" };
    const logits = new Map<Token, number>();
    if (state.value === "") this.#startMalus(state.key, logits);
    this.#avoidMalus(state, logits);
    const copy = state.value === "" ? this.#sourceStarts().keys() : undefined;
    if (copy) for (const token of copy) logits.set(token, GROUNDING_ANSWER_COPY_LOGIT);
    // where the source begins with the newest result, an answer that begins with it gets more: it is what the last
    // call was for (Gemma answered "Japan" for the capital of the country where Mount Fuji is, after "Tokyo")
    if (copy && this.#newestChars > 0)
      for (const token of this.#newestStarts().keys())
        logits.set(token, GROUNDING_ANSWER_COPY_LOGIT + GROUNDING_CLOSE_LOGIT);
    else
      this.#continuations(
        this.#source,
        state.positions,
        GROUNDING_ANSWER_COPY_LOGIT,
        logits,
        undefined,
        JSON_PUNCTUATION,
      );
    // at a word's start, a numeral of the results or the question not written yet: what an answer most often must
    // carry; not one that only echoes the question where the results bring their own (Gemma answered "98.6" for
    // "98.6 °F in Celsius?" from `{"value":98.6,...,"result":37}`)
    if (state.value === "" || /[\s(]$/.test(state.value))
      this.#numeralContinuations(
        "",
        GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT,
        logits,
        (numeral) => state.value.includes(numeral) || this.#echoed.has(numeral),
      );
    return logits.size ? { type: "bias", logits } : NONE;
  }

  /**
   * Where an argument value is about to begin, after `opener` (jump-forward holds the opening `"` back, so a string's
   * first token may carry it, and the key's colon too: `"New`, `:"New`): a bonus for the first digits of the source's
   * numerals and for `"` with the start of a span (strict: the strict bonus, the bare `"` / `:` / `:"` included; the
   * grammar drops whichever kind the value is not), a malus for `-` when no numeral is negative.
   */
  #pendingValue(opener: string, key: string, items?: readonly string[]): Steering {
    const logits = new Map<Token, number>();
    const strict = this.#mode === "strict";
    // the copy lever steers a string's opening, the numbers lever a number's
    const copy = this.#levers.has("copy");
    const numbers = this.#levers.has("numbers");
    const logit = strict ? GROUNDING_STRICT_LOGIT : GROUNDING_COPY_LOGIT;
    const written = strict || !copy ? new Set<Token>() : this.#writtenStarts(`${opener}"`);
    const named = strict || !copy ? new Set<Token>() : this.#keyWordTokens(`${opener}"`, key);
    if (copy && (strict || this.#unitSpans(key).length === 0))
      for (const token of this.#quotedStarts(opener))
        if (!written.has(token) && !named.has(token)) logits.set(token, logit);
    if (copy && !strict && this.#named(key)) this.#prefixTokens(opener, "true", logit, logits);
    if (copy && strict)
      for (const text of opener ? [opener, `${opener}"`] : ['"'])
        for (const token of this.#vocab.tokensFor(text) ?? []) logits.set(token, logit);
    if (numbers) {
      for (const numeral of this.#source.numerals)
        if (!this.#written.has(numeral) && this.#fits(key, numeral))
          this.#prefixTokens(opener, numeral.slice(0, this.#vocab.maxTokenChars), logit, logits);
      if (!this.#source.numerals.some((n) => n.startsWith("-")))
        for (const minus of this.#vocab.tokensFor(`${opener}-`) ?? []) logits.set(minus, GROUNDING_AVOID_LOGIT);
      this.#takenMalus(opener, "", logits);
    }
    if (copy && !strict) this.#takenTextMalus(opener, logits);
    if (!strict) this.#anchorBias(opener, key, logits, { copy, numbers });
    if (!copy) return logits.size ? { type: "bias", logits } : NONE;
    if (!strict && !this.#source.empty) this.#emptyValueMalus(opener, items, logits);
    if (!strict && !items)
      for (const numeral of this.#numeralsForNumberKeys(key))
        this.#prefixTokens(`${opener}"`, numeral, GROUNDING_AVOID_LOGIT, logits);
    // the next item of a list the question writes out, ahead of every other span
    const next = !strict && items?.length ? this.#listAfter(items)?.next : undefined;
    if (next !== undefined) {
      const quoted = !LEADING_NUMERAL.test(next) || items!.some((item) => !LEADING_NUMERAL.test(item));
      this.#prefixTokens(quoted ? `${opener}"` : opener, next, GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT, logits);
    }
    return logits.size ? { type: "bias", logits } : NONE;
  }

  /**
   * Where `key`'s value is about to begin (after `opener`): the values the question anchors to another key of the
   * called skill lose their copy bonus (a numeral's first digits another numeral shares keep it), and those it
   * anchors to `key` get the anchor bonus (see #anchors).
   */
  #anchorBias(
    opener: string,
    key: string,
    logits: Map<Token, number>,
    levers: { copy: boolean; numbers: boolean },
  ): void {
    // the values the question puts beside another key's word are that key's: no copy bonus here
    const others = this.#othersAnchors(key);
    const theirs = new Map<Token, number>();
    if (levers.copy)
      for (const p of [...others.starts, ...this.#innerStarts(key)])
        this.#prefixTokens(`${opener}"`, this.#source.following(p, this.#vocab.maxTokenChars), 0, theirs);
    // a numeral's first digits another numeral shares ("5" of 5% and of $50000) stay favoured
    const free = new Set<string>();
    for (const numeral of this.#source.numerals)
      if (!others.numerals.has(numeral) && this.#fits(key, numeral))
        for (let length = 1; length <= numeral.length; length++) free.add(numeral.slice(0, length));
    if (levers.numbers)
      for (const numeral of others.numerals)
        for (let length = 1; length <= numeral.length && opener.length + length <= this.#vocab.maxTokenChars; length++)
          if (!free.has(numeral.slice(0, length)))
            for (const token of this.#vocab.tokensFor(opener + numeral.slice(0, length)) ?? []) theirs.set(token, 0);
    for (const token of theirs.keys()) logits.delete(token);
    // the values the question puts beside the key's word, ahead of its other spans
    const anchors = this.#anchors(key);
    const anchored = GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT;
    if (levers.copy)
      for (const p of anchors.starts)
        this.#prefixTokens(`${opener}"`, this.#source.following(p, this.#vocab.maxTokenChars), anchored, logits);
    // (a numeral another argument took already too: "annual rate of 5%" and "for 5 years")
    if (levers.numbers)
      for (const numeral of anchors.numerals)
        if (this.#fits(key, numeral)) this.#prefixTokens(opener, numeral, anchored, logits);
  }

  /**
   * An argument's list or string left empty (`"predictors":[]` for "'Age', 'Income' and 'Education'", SmolLM2 in 8
   * of the even half's failures) is no value the question gives: where a list opens (`items` empty) its closing `]`,
   * and where a value begins the tokens `[]` and `""`, get the malus. The grammar still allows them; an empty value
   * the question asks for is rare.
   */
  #emptyValueMalus(opener: string, items: readonly string[] | undefined, logits: Map<Token, number>): void {
    const texts = [`${opener}[]`, "[]", ...punctuationStrings([opener, ""], true)];
    if (items?.length === 0) texts.push("]", "],", "]}", "]}}", `${opener}]`);
    this.#textTokens(texts, GROUNDING_AVOID_LOGIT, logits, []);
  }

  /**
   * The tokens that write, after `opener`, one of the key's own words whole (`cell` for `cell_type`, `Crime` for
   * `crime`): a value that begins with its key's word is most often that word alone, the question's noun beside the
   * value it names ("the structure of human cell"), so it gets no copy bonus but a malus, even where the question
   * holds it.
   */
  #keyWordTokens(opener: string, key: string): Set<Token> {
    const tokens = new Set<Token>();
    for (const word of keyWords(key))
      for (const text of [word, word[0].toUpperCase() + word.slice(1)])
        for (const token of this.#vocab.tokensFor(opener + text) ?? [])
          if (!this.#vocab.banned.has(token)) tokens.add(token);
    return tokens;
  }

  /**
   * The values the question anchors to `key`: the span right after an occurrence of the key's last word (its head
   * noun: `income` of `net_income`, `title`, `radius`; its plural `s` aside) past a few joining words ("title
   * 'David'", "net income of $2,000,000", "radius of 4 meters"), and the numeral right before one ("5 years", "4
   * light years"). A value's start that copies one of them gets the anchor bonus over the question's other spans: a
   * small model that sees the right values puts them in the wrong slots (`"artist":"David","title":"Michelangelo"`,
   * `"net_income":200000` from the dividends). Only the question's text is read, not the schema's values. Where
   * another key of the called skill has the same head word, neither is anchored.
   */
  #anchors(key: string): { starts: number[]; numerals: string[] } {
    const skill = this.#currentSkill();
    const memo = `${skill ?? ""}\u0000${key}`;
    const known = this.#anchored.get(memo);
    if (known) return known;
    const found = { starts: [] as number[], numerals: [] as string[] };
    this.#anchored.set(memo, found);
    const keys = skill === undefined ? [] : (this.#argumentKeys.get(skill) ?? []);
    const text = this.#source.text.slice(0, this.#questionChars);
    // `number1`, `number2`: the question's first and second numerals, in its order ("of 36 and 24")
    const ordinal = ORDINAL_KEY.exec(key);
    const siblings = ordinal ? keys.filter((other) => ORDINAL_KEY.exec(other)?.[1] === ordinal[1]).length : 0;
    if (ordinal && siblings > 1) {
      const numeral = [...new Set(numeralsOf(text))][Number(ordinal[2]) - 1];
      if (numeral !== undefined && this.#source.numerals.includes(numeral)) found.numerals.push(numeral);
    }
    // an optional key's value the question writes ("in Celsius" for `temp_unit`; see askingValues)
    for (const value of (skill !== undefined && this.#askedBy.get(skill)?.[key]) || [])
      for (const at of this.#questionWrites(value)) found.starts.push(at);
    // an expression: the question's arithmetic ("17 times 23 plus 4", "square root of 1764")
    if (this.#isFormula(key)) found.starts.push(...this.#arithmetic().map(([start]) => start));
    // a conversion's units: "2 tablespoons" for `from_unit`, "How many teaspoons" for `to_unit`
    const side = conversionSide(key);
    if (side && !keys.some((other) => other !== key && conversionSide(other) === side))
      found.starts.push(...conversionUnits(text, side));
    // a name of the question that holds a word of the key: "the Hilton Hotel" for `hotel_name`, "the English Premier
    // League" for `league`
    found.starts.push(...this.#namesHolding(key));
    const head = keyWords(key).at(-1);
    if (!head || head.length < 3 || GENERIC_FLAG_WORDS.has(head)) return found;
    // two keys of the skill with one head word (`first_note_frequency`, `second_note_frequency`): no telling whose
    if (keys.some((other) => other !== key && keyWords(other).at(-1) === head)) return found;
    const word = new RegExp(`(?<![\\p{L}\\p{N}])${head.replace(/s$/, "")}s?(?![\\p{L}\\p{N}])`, "giu");
    for (const match of text.matchAll(word)) {
      const end = match.index + match[0].length;
      const filler = ANCHOR_FILLER.exec(text.slice(end));
      const at = end + (filler?.[0].length ?? 0);
      // without a joining word or a quote, only a name or a number ("material Marble", "age 25"): "organic bananas"
      // is an adjective and its noun
      const linked = filler?.groups?.join !== undefined || filler?.groups?.quote !== undefined;
      if (at > end && at < text.length && (linked ? /[\p{L}\p{N}]/u : /[\p{Lu}\p{N}]/u).test(text[at])) {
        found.starts.push(at);
        const numeral = /^\d[\d,]*(?:\.\d+)?/.exec(text.slice(at))?.[0];
        if (numeral) found.numerals.push(...anchoredNumerals(numeral, text.slice(at + numeral.length)));
      }
      const before = NUMERAL_BEFORE.exec(text.slice(Math.max(0, match.index - 40), match.index));
      if (before) found.numerals.push(...anchoredNumerals(before[1], before[2] ?? ""));
    }
    if (this.#isPlaceKey(key) && !keys.some((other) => other !== key && this.#isPlaceKey(other))) {
      const places = [...text.matchAll(PLACE_BEFORE)];
      // none: the name after "of" ("the King of France", "within 50km of Denver, Colorado")
      for (const match of places.length > 0 ? places : text.matchAll(PLACE_OF))
        found.starts.push(match.index + match[0].length);
    }
    found.numerals = found.numerals.filter((numeral) => this.#source.numerals.includes(numeral));
    return found;
  }

  /**
   * Whether the question names `key`: a word of it (4 letters or more, not a generic one such as `include`) begins a
   * word of the question, its plural `s` aside (`include_dissent` and "... with dissent", `details` and "in detail").
   * A flag the question names is nearly always meant on (an unnamed one is left alone), and an optional argument it
   * names is nearly always meant given.
   */
  #named(key: string): boolean {
    this.#sourceWords ??= new Set(this.#source.text.toLowerCase().match(/\p{L}+/gu) ?? []);
    const stems = keyWords(key)
      .filter((word) => word.length >= 4 && !GENERIC_FLAG_WORDS.has(word))
      .map((word) => word.replace(/s$/, "").slice(0, 6));
    return stems.some((stem) => [...this.#sourceWords!].some((word) => word.startsWith(stem)));
  }

  /**
   * Where `items` (an array's items, in order) follow a list the question writes out ("[3, 4, 5, 6, 4]", "C, F and
   * G", "'Age', 'Income' and 'Education'"; letter case aside): the item that comes next there, or `end` when the list
   * ends with them. Undefined where they follow no list. Numbers go on only with a number.
   */
  #listAfter(items: readonly string[]): { next?: string; end?: true } | undefined {
    const text = this.#source.text.toLowerCase();
    const wanted = items.map((item) => item.toLowerCase());
    const numeric = wanted.every((item) => LEADING_NUMERAL.test(item));
    for (let start = text.indexOf(wanted[0]); start !== -1; start = text.indexOf(wanted[0], start + 1)) {
      if (!itemAt(text, start, wanted[0])) continue;
      let p = start + wanted[0].length;
      let chained = true;
      let joined = false;
      for (const item of wanted.slice(1)) {
        const separator = this.#listSeparator(text, p);
        if (separator === undefined || !itemAt(text, p + separator.length, item)) {
          chained = false;
          break;
        }
        joined ||= LIST_JOINER.test(separator);
        p += separator.length + item.length;
      }
      if (!chained) continue;
      const separator = this.#listSeparator(text, p);
      // "'Age', 'Income' and 'Education' and a target ...": the item after "and" is the list's last
      if (separator === undefined || joined) return { end: true };
      const rest = this.#source.text.slice(p + separator.length).split(TEXT_JOINT)[0];
      const next = numeric
        ? LEADING_NUMERAL.exec(rest)?.[0]
        : rest.slice(0, LIST_ITEM_END.exec(rest)?.index ?? rest.length).trim();
      return next ? { next } : { end: true };
    }
    return undefined;
  }

  /** The separator of a list at `p` of `text` (lower case), an article after it included; undefined where none. */
  #listSeparator(text: string, p: number): string | undefined {
    const separator = LIST_SEPARATOR.exec(text.slice(p))?.[0];
    if (separator === undefined) return undefined;
    return separator + (ITEM_ARTICLE.exec(text.slice(p + separator.length))?.[0] ?? "");
  }

  /** The tokens of `texts`, each with `logit`, into `logits`; with `remove`, the tokens of those texts taken out. */
  #textTokens(texts: readonly string[], logit: number, logits: Map<Token, number>, remove: readonly string[]): void {
    for (const text of remove) for (const token of this.#vocab.tokensFor(text) ?? []) logits.delete(token);
    for (const text of texts)
      for (const token of this.#vocab.tokensFor(text) ?? [])
        if (!this.#vocab.banned.has(token)) logits.set(token, logit);
  }

  /**
   * An array item that is whole where the question's list has it: closing the array where the list ends there, the
   * separator where it goes on (`closers`: the tokens that end the item and the array; `separators`: that end the item
   * and go on).
   */
  #listEnd(state: ValueState, logits: Map<Token, number>, closers: string[], separators: string[]): void {
    if (!state.items || this.#mode === "strict") return;
    const list = this.#listAfter([...state.items, state.value]);
    if (!list) return;
    const logit = GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT;
    if (!list.end) {
      this.#textTokens(separators, logit, logits, []);
      // the question's list goes on: closing the array gets the malus (Gemma closed "open hole, C foot, and silver
      // headjoint" after its first item)
      this.#textTokens(closers, GROUNDING_AVOID_LOGIT, logits, []);
    } else if (!this.#askedStillToCome(state)) {
      this.#textTokens(closers, logit, logits, []);
      // past the list's end: another item gets the malus (SmolLM2 went on with "Purchase_Amount", "regression", ...)
      this.#textTokens(separators, GROUNDING_LIST_END_LOGIT, logits, []);
    } else {
      // the list is whole, and an optional argument the question asks for is still to come: `],` and not `]}`
      const [goOn, close] = [closers.filter((c) => !c.includes("}")), closers.filter((c) => c.includes("}"))];
      this.#textTokens(goOn, logit, logits, []);
      this.#textTokens(close, GROUNDING_AVOID_LOGIT, logits, []);
      this.#textTokens(separators, GROUNDING_LIST_END_LOGIT, logits, []);
    }
  }

  /**
   * Whether the question asks for an optional argument this call has not written yet: the skill being called (the
   * last `skill_name` of the reply) has an optional key the question names (`sort_by` and "sort by importance",
   * `detailed` and "with details") and the arguments so far lack it. A small model closes the arguments after the
   * required ones; then a value that ends is followed by `,` rather than `}`.
   */
  #optionalAsked(): boolean {
    if (this.#optionalKeys.size === 0) return false;
    const skill = this.#currentSkill();
    const optional = skill === undefined ? undefined : this.#optionalKeys.get(skill);
    if (!optional?.length) return false;
    const written = this.#writtenKeys();
    const numeric = this.#numericKeys.get(skill!);
    // named, given a value by the question (a place key's "in Rome, Italy"), asked for by one of its values ("in
    // Celsius" for `temp_unit`), or a number key where a numeral of the question is still unheld ("within 10 miles")
    return optional.some(
      (key) =>
        !written.has(key) &&
        (this.#named(key) ||
          this.#anchors(key).starts.length > 0 ||
          (!!numeric?.includes(key) && !this.#numeralsHeld())),
    );
  }

  /**
   * Where the question writes `value` as words of its own (letter case aside; a plural too: "ratings", "Wars"): the
   * offsets it begins at.
   */
  #questionWrites(value: string): number[] {
    const question = this.#source.text.slice(0, this.#questionChars).toLowerCase();
    const wanted = value.toLowerCase();
    const found: number[] = [];
    for (let at = question.indexOf(wanted); at !== -1; at = question.indexOf(wanted, at + 1)) {
      const before = question[at - 1];
      const after = question.slice(at + wanted.length);
      if ((before === undefined || !WORD_AT.test(before)) && /^(?:s|es)?(?![\p{L}\p{N}])/u.test(after)) found.push(at);
    }
    return found;
  }

  /**
   * Whether every numeral the question writes in digits is held by an argument written so far (as itself, a fraction
   * of it or a hundred times it: "8%" as 0.08); one in words is none ("two sets").
   */
  #numeralsHeld(): boolean {
    if (!this.#digitNumerals) {
      const question = this.#source.text.slice(0, this.#questionChars);
      const inDigits = new Set(question.replaceAll(",", "").match(/\d+(?:\.\d+)?/g));
      this.#digitNumerals = numeralsOf(question).filter((numeral) => inDigits.has(numeral));
    }
    const args = numeralsOf(this.#argumentsText()).map(Number);
    const held = (n: number) => args.some((a) => a === n || a === n / 100 || a === n * 100);
    return this.#digitNumerals.every((numeral) => held(Number(numeral)));
  }

  /** The skill the reply is calling: its last `skill_name` (read once per reply text, not once per numeral). */
  #currentSkill(): string | undefined {
    if (this.#skillOf?.text !== this.#text)
      this.#skillOf = {
        text: this.#text,
        skill: [...this.#text.matchAll(/"skill_name"\s*:\s*"([^"]*)"/g)].at(-1)?.[1],
      };
    return this.#skillOf.skill;
  }

  /**
   * Whether `numeral` can be `key`'s value: not one with a fraction or an exponent where the called skill types the
   * key `integer` (the bonus of `0.5` led SmolLM2 and Gemma into `"input_synaptic_rate":0`, which the grammar closed).
   */
  #fits(key: string, numeral: string): boolean {
    const skill = this.#currentSkill();
    const integer = skill !== undefined && (this.#integerKeys.get(skill)?.includes(key) ?? false);
    if (integer) return /^-?\d+$/.test(numeral);
    // "an annual rate of 8%" is 0.08 (7 of the 8 such values of BFCL's even questions), unless the key asks for a
    // percentage as such
    return !this.#percentOnly.has(numeral) || (skill !== undefined && !!this.#percentKeys.get(skill)?.includes(key));
  }

  /**
   * The values the question anchors to the called skill's other keys (see #anchors), those it anchors to `key` as
   * well aside: "title 'David' by Michelangelo" gives `David` to `title`, and `artist` leaves it alone.
   */
  #othersAnchors(key: string): { starts: Set<number>; numerals: Set<string> } {
    const others = { starts: new Set<number>(), numerals: new Set<string>() };
    const skill = this.#currentSkill();
    const keys = skill === undefined ? undefined : this.#argumentKeys.get(skill);
    if (!keys) return others;
    const own = this.#anchors(key);
    for (const other of keys) {
      if (other === key) continue;
      const anchors = this.#anchors(other);
      for (const p of anchors.starts) if (!own.starts.includes(p) && this.#onlyAt(p)) others.starts.add(p);
      for (const numeral of anchors.numerals) if (!own.numerals.includes(numeral)) others.numerals.add(numeral);
    }
    return others;
  }

  /** Whether the word at `p` of the source begins no other span of it (then its tokens are that value's alone). */
  #onlyAt(p: number): boolean {
    const word = /^[\p{L}\p{N}]+/u.exec(this.#source.following(p, 64))?.[0];
    return word !== undefined && this.#source.find(word).length === 1;
  }

  /**
   * At a value's end directly under `arguments` (not in an array or object of its own): where an optional argument
   * the question asks for is still to come (see #optionalAsked), the bonus of closing the value (`logit`) goes to the
   * tokens that go on (`goOn`, with `,`), and those that close the arguments (`close`, with `}`) get the malus (the
   * bonus alone did not keep Gemma from `"}` after "Purchase_Amount" when "Also apply standardization" asked for
   * `standardize`). Where instead only optional arguments the question does not ask for may still come (see
   * #onlyUnaskedToCome), that bonus goes to the tokens that close the arguments, and going on loses it. A value is not
   * closed sooner for either.
   */
  #argumentsEnd(state: ValueState, logits: Map<Token, number>, goOn: string[], close: string[], logit: number): void {
    if (state.items || state.nested || this.#mode === "strict") return;
    if (this.#optionalAsked()) {
      this.#textTokens(goOn, logit, logits, close);
      this.#textTokens(close, GROUNDING_AVOID_LOGIT, logits, []);
    } else if (this.#onlyUnaskedToCome()) {
      // every required argument is written and no optional one is asked for: closing the arguments gets the bonus,
      // going on loses it (Gemma went on with `"z":2` for a hypotenuse of 4 and 5, `"permeability":12.57`); no malus
      // on going on, which kept SmolLM2 in its string no less ("psychology related to behaviour")
      this.#textTokens(close, logit, logits, goOn);
    }
  }

  /**
   * Whether what the called skill may still take is optional arguments the question does not ask for (see
   * #optionalAsked): its required keys are all in the arguments so far, and an optional one is not.
   */
  #onlyUnaskedToCome(): boolean {
    const skill = this.#currentSkill();
    const all = skill === undefined ? undefined : this.#argumentKeys.get(skill);
    if (!all) return false;
    const optional = new Set(this.#optionalKeys.get(skill!) ?? []);
    const written = this.#writtenKeys();
    if (!all.every((key) => optional.has(key) || written.has(key)) || [...optional].every((key) => written.has(key)))
      return false;
    // a numeral the question writes in digits that no argument holds yet is one an optional argument may take
    // (Gemma's `"year":2020` for "crimes in 2020"); not one in words (`"z":2` for "the other two sides as 4 and 5")
    return this.#numeralsHeld();
  }

  /** The keys the arguments so far name (of the reply's last `arguments`). */
  #writtenKeys(): Set<string> {
    return new Set([...this.#argumentsText().matchAll(/"([^"\\]*)"\s*:/g)].map((match) => match[1]));
  }

  /** The reply from its last `"arguments"` on: the arguments written so far. */
  #argumentsText(): string {
    return this.#text.slice(this.#text.lastIndexOf('"arguments"'));
  }

  /** Whether `state` is a value directly under `arguments` (or an item of an array there) and an asked-for optional argument is still to come. */
  #askedStillToCome(state: ValueState): boolean {
    return !state.nested && this.#mode !== "strict" && this.#optionalAsked();
  }

  /** The tokens `opener` + a non-empty prefix of `text`, each with `logit` (never an escaped character's). */
  #prefixTokens(opener: string, text: string, logit: number, into: Map<Token, number>): void {
    for (let length = 1; length <= text.length && opener.length + length <= this.#vocab.maxTokenChars; length++) {
      if (NEEDS_ESCAPE(text[length - 1])) break;
      for (const token of this.#vocab.tokensFor(opener + text.slice(0, length)) ?? [])
        if (!this.#vocab.banned.has(token)) into.set(token, logit);
    }
  }

  /** The tokens that open a string with the start of a span of the source (`"New`, `:"New`), computed once per opener. */
  #quotedStarts(opener: string): Token[] {
    let tokens = this.#quotedStartTokens.get(opener);
    if (!tokens) {
      const found = new Map<Token, number>();
      for (const p of this.#source.starts)
        this.#prefixTokens(`${opener}"`, this.#source.following(p, this.#vocab.maxTokenChars), 1, found);
      this.#quotedStartTokens.set(opener, (tokens = [...found.keys()]));
    }
    return tokens;
  }

  /**
   * Tokens that write on toward a numeral of the source that begins with `value` (a `-` the model wrote before a
   * positive numeral kept: its digits are still favoured); numerals `used` says are written already (in an answer
   * so far, or as another argument's value: "12000" given to distance is not favoured for efficiency_reduction) are
   * not favoured again. Returns whether any numeral begins with `value`.
   */
  #numeralContinuations(
    value: string,
    logit: number,
    into: Map<Token, number>,
    used: (numeral: string) => boolean = (numeral) => this.#written.has(numeral),
  ): boolean {
    let any = false;
    for (const numeral of this.#source.numerals) {
      if (used(numeral)) continue;
      const signed = !numeral.startsWith("-") && value.startsWith("-") ? `-${numeral}` : numeral;
      if (!signed.startsWith(value) || signed.length <= value.length) continue;
      any = true;
      const rest = signed.slice(value.length, value.length + this.#vocab.maxTokenChars);
      for (let length = 1; length <= rest.length; length++) {
        for (const token of this.#vocab.tokensFor(rest.slice(0, length)) ?? [])
          if (!this.#vocab.banned.has(token)) into.set(token, logit);
      }
    }
    return any;
  }

  /**
   * An argument number: closed past the source's longest numeral plus a margin or in a long run of one digit; a
   * bonus toward the source's numerals and for closing on one (strict: only those, where the source has numerals).
   */
  #number(state: ValueState): Steering {
    const { maxNumeralDigits, maxDigitRun, numerals } = this.#source;
    const value = state.value;
    if (digitCount(value) > Math.max(maxNumeralDigits, 1) + GROUNDING_NUMBER_DIGIT_MARGIN)
      return { type: "close-value" };
    if (longestDigitRun(value) >= Math.max(maxDigitRun + 1, GROUNDING_MIN_DIGIT_RUN)) return { type: "close-value" };
    const strict = this.#mode === "strict" && numerals.length > 0;
    const logits = new Map<Token, number>();
    // a list may repeat an item ("[3, 4, 5, 6, 4]"): inside an array a numeral written already is favoured again;
    // a numeral the key's type cannot hold is not favoured
    const used = (numeral: string) => !this.#fits(state.key, numeral) || (!state.items && this.#written.has(numeral));
    const onTrack = this.#numeralContinuations(
      value,
      strict ? GROUNDING_STRICT_LOGIT : GROUNDING_COPY_LOGIT,
      logits,
      used,
    );
    const whole = numerals.includes(value) || (value.startsWith("-") && numerals.includes(value.slice(1)));
    if (strict && !onTrack && !whole) return { type: "close-value" };
    this.#takenMalus("", value, logits);
    // toward the numeral the question puts beside the key's word, ahead of the others (see #anchors)
    const anchored = strict ? [] : this.#anchors(state.key).numerals.filter((n) => this.#fits(state.key, n));
    const towardAnchor = anchored.filter((numeral) => numeral.startsWith(value) && numeral.length > value.length);
    if (towardAnchor.length > 0 && !state.items)
      this.#numeralContinuations(
        value,
        GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT,
        logits,
        (numeral) => !towardAnchor.includes(numeral),
      );
    // a numeral cut short ("time": 9 of "9.8 within 5 seconds") is no value of the source: closing it gets the malus
    if (!strict && onTrack && !whole && /\d$/.test(value))
      for (const token of this.#vocab.valueClosers) logits.set(token, GROUNDING_AVOID_LOGIT);
    // a whole numeral closes as readily as it goes on to a longer one ("1" of "1 year" beside "1000"), more when none
    const close = strict ? GROUNDING_STRICT_LOGIT : GROUNDING_COPY_LOGIT + (onTrack ? 0 : GROUNDING_CLOSE_LOGIT);
    if (whole && !(towardAnchor.length > 0 && !anchored.includes(value)))
      for (const token of this.#vocab.valueClosers) logits.set(token, close);
    // the numeral the question puts beside the key's word is whole: another digit gets the malus (Gemma wrote
    // `"dividends_paid":2000000` for "dividends paid of $200,000" beside a net income of $2,000,000)
    if (anchored.includes(value) && !state.items) {
      for (const [token, logit] of logits)
        if (logit > 0 && !this.#vocab.valueClosers.includes(token)) logits.set(token, GROUNDING_AVOID_LOGIT);
      for (const token of this.#vocab.valueClosers) logits.set(token, GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT);
    }
    if (whole) this.#listEnd(state, logits, ["]", "]}", "]}}", "]},", "]]", "],"], [",", ", "]);
    if (whole) this.#argumentsEnd(state, logits, [",", ', "', ',"'], ["}", "}}", "}}}", "},", "}, "], close);
    return logits.size ? { type: "bias", logits } : NONE;
  }
}
