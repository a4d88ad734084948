import { deriveValues } from "./derived-values.js";
import type { GroundingIndex } from "./grounding-index.js";
import type { SteerSource } from "./steer-source.js";
import type { RuleGate } from "./rules.js";
import {
  CAPITALIZED_WORD_BEFORE,
  GENERIC_FLAG_WORDS,
  NOT_A_UNIT,
  PLACE_BEFORE,
  PLACE_OF,
  PLACE_WORDS,
  TEXT_JOINT,
  conversionSide,
  keyWords,
  exponentOnlyNumerals,
  percentOnlyNumerals,
} from "./grounding-words.js";
import { numeralsOf } from "./grounding-index.js";
import { headWordAnchors, writesAt, writtenKeysOf, writtenSpans } from "./key-anchors.js";
import { listAfter, mostListItems } from "./question-lists.js";
import { namedAnchors } from "./named-anchors.js";
import { arithmeticStretches } from "../../skills/builtin/evaluate-expression.js";

/**
 * A negation at most three words before a word, in the same clause ("do not include the impact of", "not",
 * "without"; not the "No" of "Case No 28473, their history").
 */
const NEGATED_BEFORE =
  /\b(?:not|no(?!\.?\s*[\d#])|never|without|exclud\w*|don't|doesn't|isn't|aren't|won't|shouldn't)\s+(?:[^\s,;]+\s+){0,3}$/;

/**
 * What one call's question says for its argument values, read once per key and skill: the values a key's word
 * anchors (see anchors), the names and units it writes, its lists, its arithmetic, which optional arguments it asks
 * for, which numerals fit which key. The steer (grounding-steer.ts) keeps the reply so far in `text` and asks.
 */
export class QuestionReading {
  readonly source: GroundingIndex;
  /** Which rules act (see GROUNDING_RULES). */
  readonly r: RuleGate;
  readonly optionalKeys: ReadonlyMap<string, readonly string[]>;
  readonly argumentKeys: ReadonlyMap<string, readonly string[]>;
  readonly integerKeys: ReadonlyMap<string, readonly string[]>;
  readonly numericKeys: ReadonlyMap<string, readonly string[]>;
  readonly formulaKeys: ReadonlyMap<string, readonly string[]>;
  /** The most items a list of the question can hold (see mostListItems), found once. */
  listBound?: number;
  /** The question's arithmetic stretches (see arithmeticStretches), found once. */
  stretches?: [number, number][];
  readonly askedBy: ReadonlyMap<string, Readonly<Record<string, readonly string[]>>>;
  /** Each skill's keys whose description spells a date format, with it (see SteerSource.dateFormats). */
  readonly dateFormats: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** derivedValues by skill and key, read once. */
  readonly derived = new Map<string, string[]>();
  /** Each skill's currency keys (see SteerSource.currencyKeys). */
  readonly currencyKeys: ReadonlyMap<string, readonly string[]>;
  /** Each skill's number keys with the unit their description names (see SteerSource.keyUnits). */
  readonly keyUnits: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Each skill's keys that take a kind of a noun, with the noun (see SteerSource.kindNouns). */
  readonly kindNouns: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Each skill's number keys that take a polynomial's coefficient, with its power (see SteerSource.keyPowers). */
  readonly keyPowers: ReadonlyMap<string, Readonly<Record<string, number>>>;
  readonly percentKeys: ReadonlyMap<string, readonly string[]>;
  /** Numerals the question writes only as a percentage ("8%"): their fraction (0.08) is the value (see fits). */
  readonly percentOnly: ReadonlySet<string>;
  /** Numerals the question writes only as an exponent ("m/s^2"): no number's value (see fits). */
  readonly exponentOnly: ReadonlySet<string>;
  /** The reply so far. */
  text = "";
  /** The skill the reply so far calls, and the text it was read from (see currentSkill). */
  skillOf: { text: string; skill: string | undefined } | undefined;
  /** The question's first numeral that begins a list (see numberListStart); "" where none. */
  listStart: string | undefined;
  /** The source's words, lower case (see named). */
  sourceWords: Set<string> | undefined;
  /** The question's words, lower case (see stemWritten). */
  questionWords: Set<string> | undefined;
  /** How many characters of the source's text are the question's (the schema's values follow them). */
  readonly questionChars: number;
  /** Each unit key's units (see unitSpans), computed once per skill and key. */
  readonly units = new Map<string, [number, number][]>();
  /** Each skill and key's starts of other keys' schema values (see otherKeysSchemaStarts). */
  readonly otherKeysSchema = new Map<string, number[]>();
  /** Each skill's foreign starts (see foreignStarts). */
  readonly foreign = new Map<string, number[]>();
  /** Each key's anchored values (see anchors), computed once per key. */
  readonly anchored = new Map<string, { starts: number[]; numerals: string[] }>();

  /**
   * For an expression key, where the question's words begin inside one of its arithmetic stretches: no value begins
   * there with a bonus (both test models wrote "1764" for "the square root of 1764", and "12, 18, 27 and 43" for "the
   * average of ...").
   */
  innerStarts(key: string): number[] {
    if (!this.isFormula(key)) return [];
    return this.source.starts.filter((p) => this.insideStretch(p));
  }

  /**
   * For a conversion's unit key (see conversionSide) of a skill that takes the quantity in a number key: the units the
   * question writes for its side (see conversionUnits), each as [start, end) offsets to its last word ("US gallons"
   * up to "to liters", "kilograms" up to "is"). Gemma closed "US" and "mil"; empty for any other key.
   */
  unitSpans(key: string): [number, number][] {
    const skill = this.currentSkill();
    const memo = `${skill ?? ""}\u0000${key}`;
    let spans = this.units.get(memo);
    if (spans) return spans;
    const numeric = skill === undefined ? undefined : this.numericKeys.get(skill);
    const text = this.source.text;
    spans =
      !conversionSide(key) || !numeric?.length || numeric.includes(key)
        ? []
        : this.anchors(key).starts.map((start): [number, number] => {
            const first = /^(?:°\s?)?\p{L}+/u.exec(text.slice(start, start + 40));
            let end = start + (first?.[0].length ?? 0);
            for (let next; (next = /^[ -](\p{L}+)/u.exec(text.slice(end, end + 40))) && !NOT_A_UNIT.test(next[1]);)
              end += next[0].length;
            return [start, end];
          });
    if (spans.length > 0 && !this.r.on("units")) spans = [];
    this.units.set(memo, spans);
    return spans;
  }

  /** The positions of `positions` inside one of `units` or at its end (past its start). */
  inUnits(units: readonly [number, number][], positions: readonly number[]): number[] {
    return positions.filter((p) => units.some(([start, end]) => p > start && p <= end));
  }

  /** Whether `key` of the called skill takes an arithmetic expression (see formulaKey). */
  isFormula(key: string): boolean {
    const skill = this.currentSkill();
    return skill !== undefined && (this.formulaKeys.get(skill)?.includes(key) ?? false);
  }

  /** The question's arithmetic stretches (see arithmeticStretches), as [start, end) offsets of the source's text. */
  arithmetic(): [number, number][] {
    return (this.stretches ??= arithmeticStretches(this.source.text.slice(0, this.questionChars)));
  }

  /** Whether `p` lies inside an arithmetic stretch of the question, past its start and before its end. */
  insideStretch(p: number): boolean {
    return this.arithmetic().some(([start, end]) => p > start && p < end);
  }

  /**
   * Whether a span ending at `p` stops inside a name: its last word is capitalized and the source goes on with a
   * space and another capitalized word ("Yellowstone| National Park", "Apple| Inc."). Gemma closed "Yellowstone".
   */
  nameGoesOn(p: number): boolean {
    const text = this.source.text;
    return /^ \p{Lu}/u.test(text.slice(p, p + 2)) && CAPITALIZED_WORD_BEFORE.test(text.slice(Math.max(0, p - 40), p));
  }

  /**
   * Whether `p` begins a word inside a name: a capitalized word right after another one that does not begin its
   * sentence ("Carlsen" of "Magnus Carlsen", "Park" of "Yellowstone National Park"). A value does not begin there
   * (Gemma wrote `"player_name":"Carlsen"`).
   */
  insideName(p: number): boolean {
    const text = this.source.text;
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
  numeralsForNumberKeys(key: string): string[] {
    const skill = this.currentSkill();
    const numeric = skill === undefined ? undefined : this.numericKeys.get(skill);
    if (!numeric?.length || numeric.includes(key)) return [];
    const question = this.source.text.slice(0, this.questionChars);
    // a conversion's unit begins with no numeral, the quantity's own written or not (SmolLM2's `"from":"150"` after
    // `"value":150` for "How many kilograms is 150 pounds?")
    if (conversionSide(key)) return [...new Set(numeralsOf(question))];
    const written = writtenKeysOf(this.text);
    const open = numeric.filter((other) => !written.has(other));
    if (open.length === 0) return [];
    return [...new Set(numeralsOf(question))].filter(
      (numeral) =>
        open.some((other) => this.fits(other, numeral)) &&
        new RegExp(`(?<=^|[\\s($])${numeral.replaceAll(".", "\\.")}(?=[\\s?.!,;:)]|$)`, "u").test(question),
    );
  }

  /**
   * Where the names of the question begin that hold a word of `key` (4 letters or more; not `name` or a generic one)
   * capitalized as one of their words: "Hilton Hotel" and "Hotel Paradise" for `hotel_name`, "English Premier League"
   * for `league`. Gemma wrote the city ("Chicago", "Las Vegas") as the hotel's name.
   */
  namesHolding(key: string): number[] {
    const text = this.source.text.slice(0, this.questionChars);
    const starts = new Set<number>();
    for (const word of keyWords(key)) {
      if (word.length < 4 || word === "name" || GENERIC_FLAG_WORDS.has(word)) continue;
      const capitalized = word[0].toUpperCase() + word.slice(1);
      const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${capitalized}(?![\\p{L}\\p{N}])`, "gu");
      for (const match of text.matchAll(pattern)) {
        let start = match.index;
        while (this.insideName(start)) start = text.lastIndexOf(" ", start - 2) + 1;
        // one word alone is no name ("Hotel" that begins a sentence)
        if (start < match.index || this.nameGoesOn(match.index + word.length)) starts.add(start);
      }
    }
    return [...starts];
  }

  /** Whether `key` takes a place (its head word is one of PLACE_WORDS). */
  isPlaceKey(key: string): boolean {
    return PLACE_WORDS.has(keyWords(key).at(-1) ?? "");
  }

  /**
   * Words that name what a key's value is, not the value (see SteerTokens.keyWordTokens): the noun a kind's key sorts
   * (see kindNounOf) and the words of the called skill's name ("musical" of `musical_ticket.buy` for "the Mamma Mia
   * musical", "painting" of `painting.create_custom` for "a painting of a sunset"; Gemma wrote both as the value).
   */
  namingWordsOf(key: string): string[] {
    const skill = this.currentSkill();
    const own = skill === undefined || !this.r.on("key-word-malus") ? [] : keyWords(skill.replace(/\./g, "_"));
    return [...this.kindNounOf(key), ...own];
  }

  /** The noun `key` of the called skill takes a kind of (see kindNoun), as a list of none or one. */
  kindNounOf(key: string): string[] {
    const noun = this.kindNouns.get(this.currentSkill() ?? "")?.[key];
    return noun === undefined ? [] : [noun];
  }

  /** Whether the source goes on at `p` with a comma and a capitalized name: a place's region ("Denver, Colorado"). */
  regionAfter(p: number): boolean {
    return /^, \p{Lu}/u.test(this.source.following(p, 3));
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
  anchors(key: string): { starts: number[]; numerals: string[] } {
    const skill = this.currentSkill();
    const memo = `${skill ?? ""}\u0000${key}`;
    const known = this.anchored.get(memo);
    if (known) return known;
    const found = { starts: [] as number[], numerals: [] as string[] };
    this.anchored.set(memo, found);
    const keys = skill === undefined ? [] : (this.argumentKeys.get(skill) ?? []);
    const text = this.source.text.slice(0, this.questionChars);
    namedAnchors(this, key, skill, keys, text, found);
    const numeric = skill !== undefined && !!this.numericKeys.get(skill)?.includes(key);
    const read = headWordAnchors(this.r, text, key, keys, numeric, found);
    if (read === "no-head") return found;
    if (read === "shared") {
      found.numerals = found.numerals.filter((numeral) => this.source.numerals.includes(numeral));
      return found;
    }
    if (
      this.isPlaceKey(key) &&
      !keys.some((other) => other !== key && this.isPlaceKey(other)) &&
      this.r.on("place-anchors")
    ) {
      const places = [...text.matchAll(PLACE_BEFORE)];
      // none: the name after "of" ("the King of France", "within 50km of Denver, Colorado")
      for (const match of places.length > 0 ? places : text.matchAll(PLACE_OF))
        found.starts.push(match.index + match[0].length);
    }
    found.numerals = found.numerals.filter((numeral) => this.source.numerals.includes(numeral));
    return found;
  }

  /**
   * Whether the question names `key`: a word of it (4 letters or more, not a generic one such as `include`) begins a
   * word of the question, its plural `s` aside (`include_dissent` and "... with dissent", `details` and "in detail").
   * A flag the question names is nearly always meant on (an unnamed one is left alone), and an optional argument it
   * names is nearly always meant given.
   */
  named(key: string): boolean {
    this.sourceWords ??= new Set(this.source.text.toLowerCase().match(/\p{L}+/gu) ?? []);
    // a word another key of the skill holds names neither: "4 light years" names `distance_in_light_years`, not
    // `speed_of_light` (both test models wrote `"speed_of_light":4`)
    const skill = this.currentSkill();
    const others = (skill === undefined ? undefined : this.argumentKeys.get(skill))?.filter((other) => other !== key);
    const theirs = new Set(others?.flatMap((other) => keyWords(other)));
    const stems = keyWords(key)
      .filter((word) => word.length >= 4 && !GENERIC_FLAG_WORDS.has(word) && !theirs.has(word))
      .map((word) => word.replace(/s$/, "").slice(0, 6));
    return stems.some((stem) => [...this.sourceWords!].some((word) => word.startsWith(stem)));
  }

  /**
   * The value the question asks of a flag it names (see named): "false" where its first word of the key (an item's
   * own clause comes first) follows a negation within three words ("if we do not include the impact of human activities", "What if the process is not
   * isothermal?"), else "true"; undefined where it names none. Both test models wrote `true` for both.
   */
  flagValue(key: string): "true" | "false" | undefined {
    if (!this.named(key)) return undefined;
    const question = this.source.text.slice(0, this.questionChars).toLowerCase();
    const stems = keyWords(key).filter((word) => word.length >= 4 && !GENERIC_FLAG_WORDS.has(word));
    const found = stems.map((word) => question.indexOf(word.replace(/s$/, "").slice(0, 6))).filter((at) => at >= 0);
    if (found.length === 0) return "true";
    const at = Math.min(...found);
    const before = question.slice(Math.max(0, at - 40), at);
    return NEGATED_BEFORE.test(before) ? "false" : "true";
  }

  /**
   * Where `items` (an array's items, in order) follow a list the question writes out ("[3, 4, 5, 6, 4]", "C, F and
   * G", "'Age', 'Income' and 'Education'"; letter case aside): the item that comes next there, or `end` when the list
   * ends with them. Undefined where they follow no list. Numbers go on only with a number.
   */
  listAfter(items: readonly string[]): { next?: string; end?: true } | undefined {
    return listAfter(this.source.text, items);
  }

  /** The most items a list of the question can hold (see mostListItems), read once. */
  mostListItems(): number {
    return (this.listBound ??= mostListItems(this.source.text.slice(0, this.questionChars)));
  }

  /**
   * The first numeral of the question that begins a list of numbers it writes out (see listAfter: "for 2nd, 3rd and
   * 4th floors": 2), the first item of a number array; undefined where it writes none.
   */
  numberListStart(): string | undefined {
    if (this.listStart === undefined) {
      const question = this.source.text.slice(0, this.questionChars);
      this.listStart = numeralsOf(question).find((numeral) => listAfter(question, [numeral])?.next !== undefined) ?? "";
    }
    return this.listStart || undefined;
  }

  /**
   * Where `items` (an array's items, in order; the last one just written) end with a value of the key's own that the
   * question writes (its items' `enum`, its description's literals; see askingValues and anchors): `end` once every
   * such value is written, else going on (no `next`). Undefined where the last item is none of them. SmolLM2 wrote
   * `["Camping","Scenic View","Trails","Picnic Areas","Scenic View",...]` for "allows camping and has scenic views".
   */
  askedList(key: string, items: readonly string[]): { end?: true } | undefined {
    const skill = this.currentSkill();
    const values = (skill !== undefined && this.askedBy.get(skill)?.[key]) || [];
    const asked = values
      .filter((value) => this.questionWrites(value).length > 0 || this.stemWritten(value))
      .map((value) => value.toLowerCase());
    const written = new Set(items.map((item) => item.toLowerCase()));
    if (!asked.includes(items.at(-1)?.toLowerCase() ?? "")) return undefined;
    return asked.every((value) => written.has(value)) ? { end: true } : {};
  }

  /** Whether the question gives `key` a value of its own: one it anchors to the key's word (see anchors), or the key named. */
  givesValue(key: string): boolean {
    const { starts, numerals } = this.anchors(key);
    return starts.length > 0 || numerals.length > 0 || this.named(key);
  }

  /** The called skill's derived values for `key` (see deriveValues), read once per skill and key. */
  derivedValues(key: string): string[] {
    const skill = this.currentSkill();
    if (skill === undefined) return [];
    const memo = `${skill}\u0000${key}`;
    let values = this.derived.get(memo);
    if (!values) {
      const text = this.source.text.slice(0, this.questionChars);
      const currency = this.currencyKeys.get(skill)?.includes(key) ?? false;
      this.derived.set(memo, (values = deriveValues(text, key, this.dateFormats.get(skill)?.[key], currency)));
    }
    return values;
  }

  /**
   * Whether the question writes a word that `value` (one word, 6 letters or more) begins with, short of at most three
   * letters: "detail" for 'detailed', "analy" no (too short).
   */
  stemWritten(value: string): boolean {
    if (!/^\p{L}{6,}$/u.test(value)) return false;
    this.questionWords ??= new Set(
      this.source.text
        .slice(0, this.questionChars)
        .toLowerCase()
        .match(/\p{L}+/gu) ?? [],
    );
    const wanted = value.toLowerCase();
    return [...this.questionWords].some(
      (word) => word.length >= 5 && wanted.length - word.length <= 3 && wanted.startsWith(word),
    );
  }

  /**
   * Whether `value` (a string written so far) is a question's word that one of `key`'s own values begins and goes on
   * from (see stemWritten): "detail" of 'detailed' is no value yet (SmolLM2 closed it).
   */
  shortOfAsked(key: string, value: string): boolean {
    const skill = this.currentSkill();
    const wanted = value.toLowerCase();
    if (wanted.length < 5) return false;
    return ((skill !== undefined && this.askedBy.get(skill)?.[key]) || []).some(
      (own) => own.length > value.length && own.toLowerCase().startsWith(wanted) && this.stemWritten(own),
    );
  }

  /** Where the schema's values (past the question in the source) write `value` whole: the offsets it begins at. */
  schemaWrites(value: string): number[] {
    return this.source
      .find(value)
      .map((end) => end - value.length)
      .filter((start) => start >= this.questionChars && this.source.endsAtBoundary(start + value.length));
  }

  /** Where the question writes `value` as words of its own (see writesAt): the offsets it begins at. */
  questionWrites(value: string): number[] {
    return writesAt(this.source.text.slice(0, this.questionChars), value);
  }

  /** Where the question writes `value` (see writtenSpans): each span's start and end. */
  questionSpans(value: string): [number, number][] {
    return writtenSpans(this.source.text.slice(0, this.questionChars), value);
  }

  /** The skill the reply is calling: its last `skill_name` (read once per reply text, not once per numeral). */
  currentSkill(): string | undefined {
    if (this.skillOf?.text !== this.text)
      this.skillOf = {
        text: this.text,
        skill: [...this.text.matchAll(/"skill_name"\s*:\s*"([^"]*)"/g)].at(-1)?.[1],
      };
    return this.skillOf.skill;
  }

  /**
   * Whether `numeral` can be `key`'s value: not one the question writes only as an exponent ("m/s^2"), not one with
   * a fraction or an exponent where the called skill types the key `integer` (the bonus of `0.5` led SmolLM2 and Gemma into `"input_synaptic_rate":0`, which the grammar closed).
   */
  fits(key: string, numeral: string): boolean {
    const skill = this.currentSkill();
    const integer = skill !== undefined && (this.integerKeys.get(skill)?.includes(key) ?? false);
    if (this.exponentOnly.has(numeral) && this.r.on("number-fits")) return false;
    if (integer) return /^-?\d+$/.test(numeral) || !this.r.on("number-fits");
    // "an annual rate of 8%" is 0.08 (7 of the 8 such values of BFCL's even questions), unless the key asks for a
    // percentage as such
    return (
      !this.percentOnly.has(numeral) ||
      (skill !== undefined && !!this.percentKeys.get(skill)?.includes(key)) ||
      !this.r.on("number-fits")
    );
  }

  /**
   * The values the question anchors to the called skill's other keys (see anchors), those it anchors to `key` as
   * well aside: "title 'David' by Michelangelo" gives `David` to `title`, and `artist` leaves it alone.
   */
  othersAnchors(key: string): { starts: Set<number>; numerals: Set<string> } {
    const others = { starts: new Set<number>(), numerals: new Set<string>() };
    const skill = this.currentSkill();
    const keys = skill === undefined ? undefined : this.argumentKeys.get(skill);
    if (!keys) return others;
    const own = this.anchors(key);
    for (const other of keys) {
      if (other === key) continue;
      const anchors = this.anchors(other);
      for (const p of anchors.starts) if (!own.starts.includes(p) && this.onlyAt(p)) others.starts.add(p);
      for (const numeral of anchors.numerals) if (!own.numerals.includes(numeral)) others.numerals.add(numeral);
    }
    return others;
  }

  /**
   * The source's span starts inside the schema's values (past the question) that are no value of the called skill's
   * (see askingValues: another skill's enum or literal, or a default): they get no copy bonus in its arguments. Both
   * test models wrote another skill's "Texas Holdem" as a crime's type. Empty where no skill is called yet.
   */
  foreignStarts(): number[] {
    const skill = this.currentSkill();
    const values = skill === undefined ? undefined : this.askedBy.get(skill);
    if (!values) return [];
    const memo = this.foreign.get(skill!);
    if (memo) return memo;
    const own = new Set(Object.values(values).flat());
    const text = this.source.text;
    const starts = this.source.starts.filter((p) => {
      if (p < this.questionChars) return false;
      const from = text.lastIndexOf(TEXT_JOINT, p) + 1;
      const to = text.indexOf(TEXT_JOINT, p);
      return !own.has(text.slice(from, to === -1 ? undefined : to).trim());
    });
    this.foreign.set(skill!, starts);
    return starts;
  }

  /**
   * The source's span starts inside the schema's values (past the question) that are another key's value of the
   * called skill and not `key`'s (see askingValues): a value of `key` does not follow them ("M" went on as the `day`
   * enum's "Monday" in a `museum_name`). Empty where no skill is called yet.
   */
  otherKeysSchemaStarts(key: string): number[] {
    const skill = this.currentSkill();
    const values = skill === undefined ? undefined : this.askedBy.get(skill);
    if (!values) return [];
    const memo = `${skill}\u0000${key}`;
    const known = this.otherKeysSchema.get(memo);
    if (known) return known;
    const own = new Set(values[key] ?? []);
    const theirs = new Set(Object.entries(values).flatMap(([other, list]) => (other === key ? [] : list)));
    const text = this.source.text;
    const starts = this.source.starts.filter((p) => {
      if (p < this.questionChars) return false;
      const from = text.lastIndexOf(TEXT_JOINT, p) + 1;
      const to = text.indexOf(TEXT_JOINT, p);
      const value = text.slice(from, to === -1 ? undefined : to).trim();
      return theirs.has(value) && !own.has(value);
    });
    this.otherKeysSchema.set(memo, starts);
    return starts;
  }

  /**
   * Whether the source goes on at `p` (a word's end), past a joining word ("in", "at", "on", "of", "from", "to",
   * "near", "for", a comma), with a value the question anchors to another key than `key` (see othersAnchors).
   */
  beforeOthers(key: string, p: number): boolean {
    if (p >= this.questionChars) return false;
    const join = /^(?:,?\s+(?:in|at|on|of|from|to|near|for)\b)?\s+(?:the\s+)?/i.exec(this.source.text.slice(p, p + 16));
    if (!join) return false;
    // a place goes on with no number: "London| 2022/08/16" (SmolLM2 wrote the date into the `location`)
    if (this.isPlaceKey(key) && /^\s+\d/.test(this.source.text.slice(p, p + 3))) return true;
    // a kind closes before its noun: "single| room" for `room_type`
    const [noun] = this.kindNounOf(key);
    if (noun && new RegExp(`^\\s+${noun}`, "i").test(this.source.text.slice(p, p + noun.length + 2))) return true;
    return this.othersAnchors(key).starts.has(p + join[0].length);
  }

  /** Whether the word at `p` of the source begins no other span of it (then its tokens are that value's alone). */
  onlyAt(p: number): boolean {
    const word = /^[\p{L}\p{N}]+/u.exec(this.source.following(p, 64))?.[0];
    return word !== undefined && this.source.find(word).length === 1;
  }

  constructor(source: SteerSource, index: GroundingIndex, rules: RuleGate) {
    this.r = rules;
    this.source = index;
    this.questionChars = source.source.join(TEXT_JOINT).length;
    this.optionalKeys = source.optionalKeys ?? new Map();
    this.argumentKeys = source.argumentKeys ?? new Map();
    this.integerKeys = source.integerKeys ?? new Map();
    this.numericKeys = source.numericKeys ?? new Map();
    this.formulaKeys = source.formulaKeys ?? new Map();
    this.askedBy = source.askedBy ?? new Map();
    this.dateFormats = source.dateFormats ?? new Map();
    this.currencyKeys = source.currencyKeys ?? new Map();
    this.keyUnits = source.keyUnits ?? new Map();
    this.kindNouns = source.kindNouns ?? new Map();
    this.keyPowers = source.keyPowers ?? new Map();
    this.percentKeys = source.percentKeys ?? new Map();
    this.percentOnly = percentOnlyNumerals(source.source[0] ?? "");
    this.exponentOnly = exponentOnlyNumerals(source.source[0] ?? "");
  }
}
