import { numeralsOf } from "../../numerals.js";
import { polynomialsOf } from "./polynomials.js";

export { numeralsOf };

/** Texts joined into one: a character no value holds, so that no span runs from one text into the next. */
const SEPARATOR = "\u0000";
const WORD_CHAR = /[\p{L}\p{N}_]/u;
/** A word that joins a value to the next part of a sentence (after a space): a value ends before it. */
const JOINING_WORD =
  /^ (?:to|from|and|or|in|near|with|for|at|on|into|via|during|between|than|where|which|who|that|within|around|after|before)\b/i;
/** The longest quoted stretch that is a value (a title, a name), its quotes included; a longer one is a passage. */
const MAX_QUOTED_CHARS = 80;
/** A stretch in quotes that open after a non-letter and close before one (an apostrophe inside a word is no quote). */
const QUOTED = /(?<![\p{L}\p{N}])(['"\u2018\u201C])[^'"\u2019\u201D]+?['"\u2019\u201D](?![\p{L}\p{N}])/gu;
/**
 * An article, preposition, conjunction or copula, which a copied value does not begin with ("the Earth", "a 1kg ice
 * block", "for pasta carbonara", "are the ... in the plasma membrane").
 */
const ARTICLE = /^(?:the|an?|for|from|to|in|on|at|by|with|near|into|of|and|or|is|are)\s/i;
/**
 * A word that opens a request where a sentence begins ("Calculate ...", "Can you ...", "I'm planning ...", "You are
 * ..."): no value (SmolLM2 wrote `"state":"Calculate"`, `"key":"Can"`, `"start_point":"I'm planning a weekend
 * getaway"`).
 */
const REQUEST_OPENER =
  /^(?:calculate|compute|find|get|give|generate|provide|tell|show|check|determine|estimate|predict|search|fetch|retrieve|analy[sz]e|identify|what(?:'s)?|how|which|who|where|when|why|can|could|would|will|please|imagine|you|i(?:'m|'d|'ll)?|let's|help)(?![\p{L}\p{N}'])/iu;
/**
 * A word that orders or joins a request, before a comma ("Specifically, ...", "Secondly, ..."): no value either
 * (SmolLM2 wrote `"company_name":"Specifically"` and `"name":"Secondly"`).
 */
const DISCOURSE =
  /^(?:specifically|however|also|additionally|furthermore|moreover|then|next|finally|lastly|first(?:ly)?|second(?:ly)?|third(?:ly)?|fourth(?:ly)?)\s*,/i;

/** The longest run of one repeated digit in `text` ("5000" → 3). */
export function longestDigitRun(text: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    run = /\d/.test(text[i]) && text[i] === text[i - 1] ? run + 1 : /\d/.test(text[i]) ? 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** The digits of a numeral ("-12.50" → 4). */
export function digitCount(numeral: string): number {
  return numeral.replace(/\D/g, "").length;
}

/**
 * Texts indexed once per generate call for the grounding bias: joined into one text, with the positions where a
 * copied span may begin (a word's first character, or any character that is not a letter, digit or space) and the
 * numerals the texts hold. A span is found again by extending a set of positions one token's text at a time
 * (`advance`), never by searching the whole text per token.
 */
export class GroundingIndex {
  /** The texts, joined by a separator no span crosses. */
  readonly text: string;
  /** Positions where a span may begin. */
  readonly starts: readonly number[];
  /** Distinct numerals of the texts ("50", "-3.5", "1e3"), in order of appearance. */
  readonly numerals: readonly string[];
  #quotedRanges: (readonly [number, number])[] | undefined;
  /** The most digits of any numeral (0 without numerals). */
  readonly maxNumeralDigits: number;
  /** The longest run of one repeated digit in any numeral. */
  readonly maxDigitRun: number;

  /**
   * `skipArticles`: no span begins with an article (`the`, `a`, `an`; capitalized only where a sentence begins, so
   * that a title mid-sentence, "The Starry Night", still does): a value is "Earth", not "the Earth" (the question's
   * spans; the avoid texts keep theirs, so that a description's "The" is still penalized). Nor with a preposition, a
   * conjunction or `is`/`are` (Gemma wrote "are the 1st cell compartment in the plasma membrane", SmolLM2 "for…" for
   * "pasta carbonara"; BFCL's even first calls: Gemma 57 → 58 of 100, SmolLM2 63 both ways). `all` and `my` cost
   * "all platforms" on the even questions without a gain, and stay span starts. Nor with a word that orders the
   * request before a comma ("Specifically, ...", "Secondly, ...": see DISCOURSE), nor with one that opens a request
   * where a sentence begins ("Calculate ...", "Can you ...": see REQUEST_OPENER).
   */
  constructor(texts: readonly string[], options: { skipArticles?: boolean } = {}) {
    this.text = texts.join(SEPARATOR);
    const starts: number[] = [];
    for (let p = 0; p < this.text.length; p++)
      if (GroundingIndex.#startsSpan(this.text, p) && !(options.skipArticles && GroundingIndex.#article(this.text, p)))
        starts.push(p);
    this.starts = starts;
    const numerals = new Set<string>();
    for (const text of texts) for (const numeral of numeralsOf(text)) numerals.add(numeral);
    // "-5" in "3-5" is a range, not a negative number: there (a hyphen right after a letter or digit) both readings;
    // " -4" after a space is negative alone (SmolLM2 wrote `"c":4` for "coefficients 2, 3 and -4")
    for (const text of texts)
      for (const match of text.matchAll(/(?<=[\p{L}\p{N}])-(\d+(?:\.\d+)?)/gu))
        if (numerals.has(`-${match[1]}`)) numerals.add(match[1]);
    // a polynomial's coefficients, signed and written or not: "5x^2 - 7x + 3" holds -7, "x^2 - 1" 1 (see polynomials.ts)
    for (const text of texts)
      for (const polynomial of polynomialsOf(text)) for (const c of polynomial.coefficients.values()) numerals.add(c);
    this.numerals = [...numerals];
    this.maxNumeralDigits = Math.max(0, ...this.numerals.map(digitCount));
    this.maxDigitRun = Math.max(0, ...this.numerals.map(longestDigitRun));
  }

  /**
   * Whether a word no value begins with begins at `p`: an article, preposition, conjunction or copula (lower case
   * anywhere, capitalized where a text or a sentence begins), a word that orders the request before a comma
   * (DISCOURSE), or one that opens it where a sentence begins (REQUEST_OPENER).
   */
  static #article(text: string, p: number): boolean {
    if (p > 0 && WORD_CHAR.test(text[p - 1])) return false;
    if (DISCOURSE.test(text.slice(p, p + 16))) return true;
    const before = text.slice(Math.max(0, p - 4), p);
    const sentenceStart = p === 0 || before.endsWith(SEPARATOR) || /(?:^|[.!?:]\s+|\n\s*)["'\u201C]?$/u.test(before);
    if (sentenceStart && REQUEST_OPENER.test(text.slice(p, p + 12))) return true;
    if (!ARTICLE.test(text.slice(p, p + 6))) return false;
    return text[p] !== text[p].toUpperCase() || sentenceStart;
  }

  static #startsSpan(text: string, p: number): boolean {
    const ch = text[p];
    // a value does not begin with a sentence's or a bracket's closing punctuation (Gemma wrote the list item ".")
    if (ch === SEPARATOR || /[\s.,;:!?)\]}]/.test(ch)) return false;
    return p === 0 || !WORD_CHAR.test(text[p - 1]) || !WORD_CHAR.test(ch);
  }

  /** Whether the source holds no text. */
  get empty(): boolean {
    return this.text.replaceAll(SEPARATOR, "").trim() === "";
  }

  /** The positions after `piece` for each of `positions` where the text continues with `piece`. */
  advance(positions: readonly number[], piece: string): number[] {
    const next: number[] = [];
    for (const p of positions) if (this.text.startsWith(piece, p)) next.push(p + piece.length);
    return next;
  }

  /** The end positions of the spans equal to `value` that begin at a span start (the start positions for ""). */
  find(value: string): number[] {
    return value === "" ? [...this.starts] : this.advance(this.starts, value);
  }

  /**
   * Whether a span ending at `p` ends where the source has a boundary: at the end of a text, or before a character
   * that is neither a letter, a digit nor a space (`"New York"` in `"New York, NY"` ends at a boundary, `"New"` does not).
   */
  endsAtBoundary(p: number): boolean {
    const next = this.text[p];
    if (next === undefined || next === SEPARATOR || (!WORD_CHAR.test(next) && !/[ ]/.test(next))) return true;
    // before a joining word, outside quotes: "New York | to Los Angeles", "British Pounds | to Japanese Yen", "2x^2 |
    // at x = 1" ("of" joins names: "Law of Universal Gravitation"; a quoted title keeps its words: 'Ticket to Ride')
    return next === " " && JOINING_WORD.test(this.text.slice(p, p + 12)) && !this.quoted(p);
  }

  /**
   * Whether a span ending at `p` lies inside a quoted stretch of the text ('Ticket to Ride', "Purchase_Amount"),
   * after its opening quote and before its closing one: "'Guardian Sword|+'" is, "'Guardian Sword+|'" is not.
   */
  quoted(p: number): boolean {
    this.#quotedRanges ??= [...this.text.matchAll(QUOTED)]
      // no quote runs from one text into the next, nor is a question written in quotes a quoted value (BFCL wraps
      // many in them: no name of "Can you help me find four restaurants in New York that ..." could close)
      .filter((m) => !m[0].includes(SEPARATOR) && m[0].length <= MAX_QUOTED_CHARS)
      .map((m) => [m.index, m.index + m[0].length] as const);
    return this.#quotedRanges.some(([from, to]) => p > from + 1 && p < to - 1);
  }

  /** Whether a span ending at `p` ends a word: at the end of a text, or before a character that is not a letter or digit. */
  endsWord(p: number): boolean {
    const next = this.text[p];
    return next === undefined || !WORD_CHAR.test(next);
  }

  /** The text that follows position `p`, up to `max` characters, stopping at the end of its text. */
  following(p: number, max: number): string {
    const rest = this.text.slice(p, p + max);
    const end = rest.indexOf(SEPARATOR);
    return end === -1 ? rest : rest.slice(0, end);
  }
}
