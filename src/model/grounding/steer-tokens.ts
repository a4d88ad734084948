import type { Token } from "./token.js";
import {
  GROUNDING_AVOID_LOGIT,
  GROUNDING_COPY_LOGIT,
  GROUNDING_MAX_POSITIONS,
  GROUNDING_REFUSED_LOGIT,
  GROUNDING_OTHER_ITEM_LOGIT,
} from "./defaults.js";
import { GroundingIndex, numeralsOf } from "./grounding-index.js";
import { echoedNumerals, keyWords, LEADING_NUMERAL, NEEDS_ESCAPE, punctuationStrings } from "./grounding-words.js";
import type { QuestionReading } from "./question-reading.js";
import type { RuleGate } from "./rules.js";
import type { GroundingVocabulary, SteerSource } from "./steer-source.js";
import type { FailedValue } from "../model-handle.js";

/** A text as written, in lower case, and (at a value's start) with its first letter in upper case. */
function cased(text: string, start: boolean): Set<string> {
  const lower = text.toLowerCase();
  return new Set([text, lower, ...(start ? [lower.charAt(0).toUpperCase() + lower.slice(1)] : [])]);
}

/**
 * The tokens one call's steer biases, looked up in the model's vocabulary and kept: those that copy on a span of the
 * source, begin a value at a span's start, the newest result's or an avoided text's, a written value or a quoted one,
 * go on with a numeral; and the values earlier calls took. grounding-steer.ts decides which get what logit.
 */
/** The pronoun "I" where a span starts: "I would", "I'm", "I've" (not "India", "I-95"). */
const PRONOUN_I = /^I(?:'\p{Ll}+)?(?![\p{L}\p{N}-])/u;

export class SteerTokens {
  readonly source: GroundingIndex;
  readonly q: QuestionReading;
  readonly vocab: GroundingVocabulary;
  /** Which rules act (see GROUNDING_RULES). */
  readonly r: RuleGate;
  /** The argument values this reply has written so far (the steer's own set, shared). */
  readonly written: Set<string>;
  /** The avoid texts, indexed (kept in the vocabulary's memo across calls). */
  readonly avoid: GroundingIndex;
  /** Where a value may begin (see valueStarts), read once. */
  starts: number[] | undefined;
  startTokens: Map<Token, number> | undefined;
  avoidStartTokens: Set<Token> | undefined;
  /** The avoid texts, as the key of what the vocabulary's memo keeps for them. */
  readonly avoidKey: string;
  readonly quotedStartTokens = new Map<string, Token[]>();
  /** The source's numerals that only echo the question, where the results bring numerals of their own. */
  readonly echoed: ReadonlySet<string>;
  /** Numerals earlier calls wrote that the source does not hold (see SteerSource.taken). */
  readonly taken: readonly string[];
  /** Texts earlier calls wrote that the first source text does not hold: no string value begins with one. */
  readonly takenTexts: readonly string[];
  /** Final answers refused as the prompt's own text (see GroundingOptions.refused). */
  readonly refused: readonly string[];
  /** The call is one of a `calls` list over the question's items (see SteerSource.itemized). */
  readonly itemized: boolean;
  /** Values of calls that failed with an error that quotes them (see GroundingOptions.failed). */
  readonly failed: readonly FailedValue[];
  /** Where the source begins with the newest result (a final round, an answer after a chain): its length; else 0. */
  readonly newestChars: number;
  newestStartTokens: Map<Token, number> | undefined;
  #numeralCounts: Map<string, number> | undefined;
  readonly #texts: readonly string[];
  /**
   * How many times the source's texts write `numeral` (as numeralsOf reads it: "5%" is 5 and 0.05); a numeral the
   * schema alone writes (a default) counts 0.
   */
  numeralCount(numeral: string): number {
    if (!this.#numeralCounts) {
      this.#numeralCounts = new Map();
      for (const n of this.#texts.flatMap(numeralsOf))
        this.#numeralCounts.set(n, (this.#numeralCounts.get(n) ?? 0) + 1);
    }
    return this.#numeralCounts.get(numeral) ?? 0;
  }

  /**
   * Whether this reply wrote `numeral` already and the source writes it once: the one place it stands was taken, so
   * no other key is anchored there ("paying $1000 per year ... for 20" gave `years` the 1000 of `payment_per_year`).
   */
  writtenOnce(numeral: string): boolean {
    return this.written.has(numeral) && this.numeralCount(numeral) <= 1 && this.r.on("written-once");
  }

  /** Tokens that copy on from each of `positions` (the first `max` of them), each with `logit`. */
  continuations(
    index: GroundingIndex,
    positions: readonly number[],
    logit: number,
    into: Map<Token, number>,
    max = GROUNDING_MAX_POSITIONS,
    skip?: RegExp,
  ): void {
    const { maxTokenChars, banned } = this.vocab;
    for (const p of positions.length > max ? positions.slice(0, max) : positions) {
      const following = index.following(p, maxTokenChars);
      for (let length = 1; length <= following.length; length++) {
        const piece = following.slice(0, length);
        if (NEEDS_ESCAPE(piece[length - 1])) break;
        if (skip?.test(piece)) continue;
        for (const token of this.vocab.tokensFor(piece) ?? []) if (!banned.has(token)) into.set(token, logit);
      }
    }
  }

  /**
   * As continuations from each [position, end) of `spans`, going no further than `end`, but the longest token that
   * goes on gets `logit` and the shorter ones `shorter`: a split the tokenizer never makes (" " then "/" for " /")
   * leaves the model without its own next piece (Gemma wrote "60 " then "\u2219", past +16 on "/").
   */
  longestContinuations(
    index: GroundingIndex,
    spans: readonly (readonly [number, number])[],
    logit: number,
    shorter: number,
    into: Map<Token, number>,
  ): void {
    const { maxTokenChars, banned } = this.vocab;
    for (const [p, end] of spans.slice(0, GROUNDING_MAX_POSITIONS)) {
      const following = index.following(p, Math.min(maxTokenChars, end - p));
      let escape = 0;
      while (escape < following.length && !NEEDS_ESCAPE(following[escape])) escape++;
      let longest = true;
      for (let length = escape; length > 0; length--) {
        const piece = following.slice(0, length);
        const tokens = (this.vocab.tokensFor(piece) ?? []).filter((token) => !banned.has(token));
        for (const token of tokens) into.set(token, Math.max(into.get(token) ?? -Infinity, longest ? logit : shorter));
        if (tokens.length > 0) longest = false;
      }
    }
  }

  /** The tokens that begin a span of the source, computed once per call (a value's first token). */
  sourceStarts(): Map<Token, number> {
    if (!this.startTokens) {
      this.startTokens = new Map();
      this.continuations(this.source, this.valueStarts(), 1, this.startTokens, Infinity);
    }
    return this.startTokens;
  }

  /**
   * Where a value may begin: the source's span starts, none inside a name (the `inside-name` rule). A value's first
   * token follows only these: "M" of "Metropolitan Museum of Art" went on as "Museum of Art" for SmolLM2 when it
   * followed the start at "Museum" as well.
   */
  valueStarts(): number[] {
    if (!this.starts) {
      const outside = this.source.starts.filter((p) => !this.q.insideName(p));
      const starts =
        outside.length < this.source.starts.length && !this.r.on("inside-name") ? [...this.source.starts] : outside;
      // nor the pronoun "I" ("I would like", "I'm"): both test models wrote `"start_point":"I"`, `"key":"I"`
      const text = this.source.text;
      // (a quoted text's first word is the text's: "'I love the food here!'" is a value whole)
      const pronoun = (p: number) =>
        PRONOUN_I.test(text.slice(p, p + 4)) && !/['"]/.test(text[p - 1] ?? "") && !this.source.quoted(p);
      const others = starts.filter((p) => !pronoun(p));
      this.starts = others.length < starts.length && this.r.on("no-pronoun") ? others : starts;
    }
    return [...this.starts];
  }

  /**
   * A number an earlier call wrote that the source does not hold (the earlier item's, the value a conversion
   * converted before its result): the tokens that go on to it from `value` get the malus, unless they go on to a
   * numeral of the source too. Gemma wrote the first call's 10 again for "then convert that to feet", the first
   * triangle's base for the second's.
   */
  takenMalus(opener: string, value: string, logits: Map<Token, number>): void {
    if (this.taken.length === 0 || !this.r.on("taken")) return;
    for (const numeral of this.taken) {
      if (!numeral.startsWith(value) || numeral.length <= value.length) continue;
      const rest = numeral.slice(value.length, value.length + this.vocab.maxTokenChars);
      for (let length = 1; length <= rest.length; length++)
        for (const token of this.vocab.tokensFor(opener + rest.slice(0, length)) ?? [])
          if (!((logits.get(token) ?? 0) > 0)) logits.set(token, this.takenLogit);
    }
  }

  /**
   * A text an earlier call wrote, where this call's own source (its item, the result it chains on) lacks it: the
   * tokens that begin it get the malus, unless they begin a span of the source too (the earlier item's value; the hop
   * before: "Alice" again for the manager of Alice's manager, after "Bob"). `quoted`: the value's opening `"` is still
   * to come (else it was written, and the tokens begin the text without it).
   */
  takenTextMalus(opener: string, logits: Map<Token, number>, quoted = true): void {
    if (this.takenTexts.length === 0 || !this.r.on("taken")) return;
    for (const text of this.takenTexts) {
      const prefix = new Map<Token, number>();
      this.prefixTokens(
        quoted ? `${opener}"` : opener,
        text.slice(0, this.vocab.maxTokenChars),
        this.takenLogit,
        prefix,
      );
      for (const [token, malus] of prefix) if (!((logits.get(token) ?? 0) > 0)) logits.set(token, malus);
    }
  }

  /**
   * The malus of a taken value: in a call of a `calls` list over the question's items, another item's value (see
   * GROUNDING_OTHER_ITEM_LOGIT); otherwise the avoid malus.
   */
  get takenLogit(): number {
    return this.itemized ? GROUNDING_OTHER_ITEM_LOGIT : GROUNDING_AVOID_LOGIT;
  }

  /** The values `skill`'s `key` failed with (see GroundingOptions.failed). */
  failedValues(skill: string | undefined, key: string): string[] {
    return this.failed.filter((f) => f.skill === skill && f.key === key).map((f) => f.value);
  }

  /**
   * A string value about to be one a call failed with (see failedValues): the refused malus on the token that completes
   * it (after `opener` where the value is about to begin: jump-forward's held-back `"`), alone or with its closing
   * quote, and on closing once it is written (letter case aside). Gemma wrote `"product":"widgets"` three times after
   * `no entry for "widgets"; known: widget, gadget, gizmo`.
   */
  failedMalus(opener: string, value: string, failed: readonly string[], logits: Map<Token, number>): void {
    const lower = value.toLowerCase();
    for (const text of failed) {
      if (text.toLowerCase() === lower)
        for (const token of this.vocab.stringClosers) logits.set(token, GROUNDING_REFUSED_LOGIT);
      if (!text.toLowerCase().startsWith(lower) || text.length <= value.length) continue;
      const rest = `${value === "" ? opener : ""}${text.slice(value.length)}`;
      for (const piece of cased(rest, value === ""))
        for (const end of ["", '"', '",', '"}', '"}}'])
          for (const token of this.vocab.tokensFor(piece + end) ?? []) logits.set(token, GROUNDING_REFUSED_LOGIT);
    }
  }

  /**
   * A final answer that goes on with one the run refused already (see GroundingOptions.refused): each token that
   * continues it gets the refused malus (letter case aside), source or not.
   */
  refusedMalus(value: string, logits: Map<Token, number>): void {
    const lower = value.toLowerCase();
    for (const text of this.refused) {
      if (!text.toLowerCase().startsWith(lower) || text.length <= value.length) continue;
      const rest = text.slice(value.length, value.length + this.vocab.maxTokenChars);
      for (let length = 1; length <= rest.length; length++)
        for (const piece of cased(rest.slice(0, length), value === ""))
          for (const token of this.vocab.tokensFor(piece) ?? []) logits.set(token, GROUNDING_REFUSED_LOGIT);
    }
  }

  /**
   * Inside a string value that copies the source, after a word or a space: a digit the source does not write there (a token that begins
   * with one, a space before it or not, and has no bonus) gets the malus. Gemma wrote "New York 1000" for a
   * `location`; a name's own digits ("Maroon 5") copy on with their bonus, and a derived value (a date the question
   * writes in words) sets its own after this.
   */
  digitMalus(value: string, logits: Map<Token, number>): void {
    if (!/[\p{L}\s]$/u.test(value)) return;
    for (let digit = 0; digit <= 9; digit++)
      for (const text of /\s$/.test(value) ? [`${digit}`] : [`${digit}`, ` ${digit}`])
        for (const token of this.vocab.tokensFor(text) ?? [])
          if (!((logits.get(token) ?? 0) > 0)) logits.set(token, GROUNDING_AVOID_LOGIT);
  }

  /**
   * Inside a string value: the tokens that begin a taken text as the value's next word (see takenTextMalus) get the
   * malus, unless the source goes on that way. A parallel call's place began as its own item's ("San" of "Santa
   * Clara") and went on as another item's ("San Mateo").
   */
  takenWordMalus(value: string, logits: Map<Token, number>): void {
    if (this.takenTexts.length === 0 || !/[\p{L}\p{N}]\s?$/u.test(value) || !this.r.on("taken")) return;
    const space = /\s$/.test(value) ? "" : " ";
    for (const text of this.takenTexts) {
      const head = space + text.slice(0, this.vocab.maxTokenChars - space.length);
      for (let length = space.length + 2; length <= head.length; length++)
        for (const token of this.vocab.tokensFor(head.slice(0, length)) ?? [])
          if (!((logits.get(token) ?? 0) > 0)) logits.set(token, this.takenLogit);
    }
  }

  /**
   * A key's anchors (`starts`), where the newest result comes first (a chain: see newestChars) and an anchor past it
   * begins a value an earlier call took: that is the hop before's value, and the newest result's beginning takes its
   * place (both models wrote "Alice" again for "the manager of the manager of Alice's manager", after "Bob"). The
   * anchors as they are otherwise.
   */
  chainAnchors(starts: readonly number[]): readonly number[] {
    // (a call of a `calls` list reads its own item first, no result: see SteerSource.itemized)
    if (this.newestChars === 0 || this.itemized || this.takenTexts.length === 0) return starts;
    const took = (p: number) =>
      this.takenTexts.some((text) => this.source.following(p, text.length).toLowerCase() === text.toLowerCase());
    const hop = starts.filter((p) => p >= this.newestChars && took(p));
    if (hop.length === 0 || !this.r.on("chain-anchor")) return starts;
    return [0, ...starts.filter((p) => !hop.includes(p))];
  }

  /** The tokens that begin a span of the newest result (see newestChars), computed once per call. */
  newestStarts(): Map<Token, number> {
    if (!this.newestStartTokens) {
      this.newestStartTokens = new Map();
      // the question's numerals the result only echoes (`"value":20` of "20 pounds") are no part of it to begin with
      const echoes = (p: number) => {
        const numeral = LEADING_NUMERAL.exec(this.source.text.slice(p, p + 32))?.[0];
        return numeral !== undefined && this.echoed.has(numeral);
      };
      const starts = this.source.starts.filter((p) => p < this.newestChars && !echoes(p));
      this.continuations(this.source, starts, 1, this.newestStartTokens, Infinity);
    }
    return this.newestStartTokens;
  }

  /**
   * The tokens that begin, after `opener`, a string this reply gave another argument already: not favoured again for
   * the next one (`state: "San Francisco"` after `city: "San Francisco"`), though the model may still write them.
   */
  writtenStarts(opener: string): Set<Token> {
    const tokens = new Map<Token, number>();
    for (const value of this.written) if (!/^-?\d/.test(value)) this.prefixTokens(opener, value, 1, tokens);
    return tokens.size > 0 && this.r.on("written-once") ? new Set(tokens.keys()) : new Set();
  }

  /** The tokens that begin a span of the avoid texts (a word of the instructions), computed once per call. */
  avoidStarts(): Set<Token> {
    this.avoidStartTokens ??= this.memo(`avoid-starts\u0001${this.avoidKey}`, () => {
      const tokens = new Map<Token, number>();
      this.continuations(this.avoid, this.avoid.starts, 1, tokens, Infinity);
      return new Set(tokens.keys());
    });
    return this.avoidStartTokens;
  }

  memo<T>(key: string, compute: () => T): T {
    return this.vocab.memo ? this.vocab.memo(key, compute) : compute();
  }

  /**
   * The tokens that write, after `opener`, one of the key's own words whole (`cell` for `cell_type`, `Crime` for
   * `crime`): a value that begins with its key's word is most often that word alone, the question's noun beside the
   * value it names ("the structure of human cell"), so it gets no copy bonus but a malus, even where the question
   * holds it. `also`: more such words (the noun a kind's key sorts: "crime" for a crime's `type`).
   */
  keyWordTokens(opener: string, key: string, also: readonly string[] = []): Set<Token> {
    const tokens = new Set<Token>();
    for (const word of [...keyWords(key), ...also])
      for (const text of [word, word[0].toUpperCase() + word.slice(1)])
        for (const token of this.vocab.tokensFor(opener + text) ?? [])
          if (!this.vocab.banned.has(token)) tokens.add(token);
    return tokens.size > 0 && this.r.on("key-word-malus") ? tokens : new Set();
  }

  /** The tokens of `texts`, each with `logit`, into `logits`; with `remove`, the tokens of those texts taken out. */
  textTokens(texts: readonly string[], logit: number, logits: Map<Token, number>, remove: readonly string[]): void {
    for (const text of remove) for (const token of this.vocab.tokensFor(text) ?? []) logits.delete(token);
    for (const text of texts)
      for (const token of this.vocab.tokensFor(text) ?? []) if (!this.vocab.banned.has(token)) logits.set(token, logit);
  }

  /**
   * The `anchors` rule's malus on a kind's noun (see kindNoun): the tokens that write, after `opener`, a prefix of one
   * of `nouns` (capitalized too) that none of the source's spans at `keep` (the key's anchors) begins with: "con" of
   * "concert" for a concert's `genre` where "classical" is anchored. Nothing where no anchor is kept.
   */
  nounMalus(opener: string, nouns: readonly string[], keep: readonly number[], logits: Map<Token, number>): void {
    if (nouns.length === 0 || keep.length === 0 || !this.r.on("anchors")) return;
    const kept = new Map<Token, number>();
    for (const p of keep) this.prefixTokens(opener, this.source.following(p, this.vocab.maxTokenChars), 0, kept);
    const hit = new Map<Token, number>();
    for (const noun of nouns)
      for (const text of [noun, noun[0].toUpperCase() + noun.slice(1)])
        this.prefixTokens(opener, text, GROUNDING_AVOID_LOGIT, hit);
    for (const [token, logit] of hit) if (!kept.has(token)) logits.set(token, logit);
  }

  /** The tokens `opener` + a non-empty prefix of `text`, each with `logit` (never an escaped character's). */
  prefixTokens(opener: string, text: string, logit: number, into: Map<Token, number>): void {
    for (let length = 1; length <= text.length && opener.length + length <= this.vocab.maxTokenChars; length++) {
      if (NEEDS_ESCAPE(text[length - 1])) break;
      for (const token of this.vocab.tokensFor(opener + text.slice(0, length)) ?? [])
        if (!this.vocab.banned.has(token)) into.set(token, logit);
    }
  }

  /** The tokens that open a string with the start of a span of the source (`"New`, `:"New`), computed once per opener. */
  quotedStarts(opener: string): Token[] {
    let tokens = this.quotedStartTokens.get(opener);
    if (!tokens) {
      const found = new Map<Token, number>();
      for (const p of this.source.starts)
        this.prefixTokens(`${opener}"`, this.source.following(p, this.vocab.maxTokenChars), 1, found);
      this.quotedStartTokens.set(opener, (tokens = [...found.keys()]));
    }
    return tokens;
  }

  /**
   * Tokens that write on toward a numeral of the source that begins with `value` (a `-` the model wrote before a
   * positive numeral kept: its digits are still favoured); numerals `used` says are written already (in an answer
   * so far, or as another argument's value: "12000" given to distance is not favoured for efficiency_reduction) are
   * not favoured again. Returns whether any numeral begins with `value`.
   */
  numeralContinuations(
    value: string,
    logit: number,
    into: Map<Token, number>,
    used: (numeral: string) => boolean = (numeral) => this.written.has(numeral),
  ): boolean {
    let any = false;
    for (const numeral of this.source.numerals) {
      if (used(numeral)) continue;
      const signed = !numeral.startsWith("-") && value.startsWith("-") ? `-${numeral}` : numeral;
      if (!signed.startsWith(value) || signed.length <= value.length) continue;
      any = true;
      const rest = signed.slice(value.length, value.length + this.vocab.maxTokenChars);
      for (let length = 1; length <= rest.length; length++) {
        for (const token of this.vocab.tokensFor(rest.slice(0, length)) ?? [])
          if (!this.vocab.banned.has(token)) into.set(token, logit);
      }
    }
    return any;
  }

  constructor(
    source: SteerSource,
    vocab: GroundingVocabulary,
    index: GroundingIndex,
    q: QuestionReading,
    written: Set<string>,
    rules: RuleGate,
  ) {
    this.r = rules;
    this.source = index;
    this.q = q;
    this.vocab = vocab;
    this.written = written;
    this.#texts = source.source;
    this.refused = source.refused ?? [];
    this.failed = source.failed ?? [];
    this.itemized = source.itemized === true;
    const first = source.source[0];
    this.newestChars =
      source.question !== undefined && source.source.length > 1 && first !== source.question ? first.length : 0;
    this.echoed = echoedNumerals(index.numerals, source.question);
    const taken = [...new Set(source.taken ?? [])];
    this.taken = taken.filter((value) => LEADING_NUMERAL.exec(value)?.[0] === value && !index.numerals.includes(value));
    const own = (source.source[0] ?? "").toLowerCase();
    this.takenTexts = taken.filter(
      (value) =>
        LEADING_NUMERAL.exec(value)?.[0] !== value && value.trim() !== "" && !own.includes(value.toLowerCase()),
    );
    const avoid = source.avoid ?? [];
    this.avoidKey = avoid.join("\u0000");
    this.avoid = this.memo(`avoid-index\u0001${this.avoidKey}`, () => new GroundingIndex(avoid));
  }

  /**
   * An argument's list or string left empty (`"predictors":[]` for "'Age', 'Income' and 'Education'", SmolLM2 in 8
   * of the even half's failures) is no value the question gives: where a list opens (`items` empty) its closing `]`,
   * and where a value begins the tokens `[]` and `""`, get the malus. The grammar still allows them; an empty value
   * the question asks for is rare.
   */
  emptyValueMalus(opener: string, items: readonly string[] | undefined, logits: Map<Token, number>): void {
    // (an object closed at once is none either: Gemma wrote `"gradeDict":{}` for five subjects' grades)
    const texts = [`${opener}[]`, "[]", `${opener}{}`, "{}", ...punctuationStrings([opener, ""], true)];
    if (items?.length === 0) texts.push("]", "],", "]}", "]}}", `${opener}]`);
    this.punctuationMalus(texts, logits);
  }

  /**
   * The malus on punctuation that would make a value of none (see emptyValueMalus), but not on a token a span the key
   * is anchored to begins with (a bonus above the copy bonus): an expression's "(" of "(12.5 + 7.5) * 3" (both models
   * wrote "12.5 + 7.5").
   */
  punctuationMalus(texts: readonly string[], logits: Map<Token, number>): void {
    const favoured = new Set([...logits].filter(([, logit]) => logit > GROUNDING_COPY_LOGIT).map(([token]) => token));
    const hit = new Map<Token, number>();
    this.textTokens(texts, GROUNDING_AVOID_LOGIT, hit, []);
    for (const [token, logit] of hit) if (!favoured.has(token)) logits.set(token, logit);
  }
}
