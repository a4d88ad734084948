import type { Token } from "./token.js";
import type { GroundingLever } from "../model-handle.js";
import {
  GROUNDING_AVOID_LOGIT,
  GROUNDING_CLOSE_LOGIT,
  GROUNDING_COPY_LOGIT,
  GROUNDING_STRICT_LOGIT,
} from "./defaults.js";
import type { GroundingIndex } from "./grounding-index.js";
import type { GroundingVocabulary, Steering, SteerSource } from "./steer-source.js";
import type { QuestionReading } from "./question-reading.js";
import type { SteerTokens } from "./steer-tokens.js";
import type { RuleGate } from "./rules.js";
import type { DerivedSteer } from "./derived-steer.js";
import { LEADING_NUMERAL, distinctItems } from "./grounding-words.js";

const NONE: Steering = { type: "none" };
/**
 * Words by which an item takes up an earlier call's result ("the result", "then convert that to feet", "divide it by
 * 4"); not a relative "that" ("a stock that has an expected growth rate of 7%").
 */
const RESULT_WORDS =
  /\bthe (?:results?|answer|outcome|sum|total|difference)\b|\b(?:of|from|with|use|using|take|divide|multiply|convert|add|subtract|round|double|halve|square)\s+(?:it|that|this|them|those|these)\b/i;

/** What the start of a value reads: the steer's parts (see GroundingSteer). */
export interface ValueStartParts {
  mode: "soft" | "strict";
  levers: ReadonlySet<GroundingLever>;
  source: GroundingIndex;
  vocab: GroundingVocabulary;
  q: QuestionReading;
  t: SteerTokens;
  written: ReadonlySet<string>;
  r: RuleGate;
  derived: DerivedSteer;
}

/** The grounding bias where an argument value is about to begin (see GroundingSteer). */
export class ValueStart {
  private readonly mode: "soft" | "strict";
  private readonly levers: ReadonlySet<GroundingLever>;
  private readonly source: GroundingIndex;
  private readonly vocab: GroundingVocabulary;
  private readonly q: QuestionReading;
  private readonly t: SteerTokens;
  private readonly written: ReadonlySet<string>;
  private readonly r: RuleGate;
  private readonly derived: DerivedSteer;
  /** The call takes an item of the question that refers to no result (see SteerSource.itemized). */
  readonly itemized: boolean;
  readonly previous: Readonly<Record<string, string>>;
  constructor(parts: ValueStartParts, source: SteerSource) {
    this.previous = source.previous ?? {};
    this.itemized = source.itemized === true && !RESULT_WORDS.test(source.source[0] ?? "");
    ({
      mode: this.mode,
      levers: this.levers,
      source: this.source,
      vocab: this.vocab,
      q: this.q,
      t: this.t,
      written: this.written,
      r: this.r,
      derived: this.derived,
    } = parts);
  }

  /**
   * Where an argument value is about to begin, after `opener` (jump-forward holds the opening `"` back, so a string's
   * first token may carry it, and the key's colon too: `"New`, `:"New`): a bonus for the first digits of the source's
   * numerals and for `"` with the start of a span (strict: the strict bonus, the bare `"` / `:` / `:"` included; the
   * grammar drops whichever kind the value is not), a malus for `-` when no numeral is negative.
   */
  next(opener: string, key: string, items?: readonly string[], inCalls = false): Steering {
    const logits = new Map<Token, number>();
    const strict = this.mode === "strict";
    // the copy lever steers a string's opening, the numbers lever a number's
    const copy = this.levers.has("copy");
    const numbers = this.levers.has("numbers");
    const logit = strict ? GROUNDING_STRICT_LOGIT : GROUNDING_COPY_LOGIT;
    const written = strict || !copy ? new Set<Token>() : this.t.writtenStarts(`${opener}"`);
    const named =
      strict || !copy ? new Set<Token>() : this.t.keyWordTokens(`${opener}"`, key, this.q.namingWordsOf(key));
    if (copy && (strict || this.q.unitSpans(key).length === 0))
      for (const token of this.t.quotedStarts(opener))
        if (!written.has(token) && !named.has(token)) logits.set(token, logit);
    const flag = copy && !strict ? this.q.flagValue(key) : undefined;
    if (flag && this.r.on("flag-true")) this.t.prefixTokens(opener, flag, logit, logits);
    if (flag === "false" && this.r.on("flag-true")) this.t.prefixTokens(opener, "true", GROUNDING_AVOID_LOGIT, logits);
    if (copy && strict)
      for (const text of opener ? [opener, `${opener}"`] : ['"'])
        for (const token of this.vocab.tokensFor(text) ?? []) logits.set(token, logit);
    if (numbers) {
      // (not a numeral the schema alone writes: every call of "jazz ... for the next 14 days" and "... 10 days" wrote
      // the 7 of a description's "Default is 7")
      for (const numeral of this.source.numerals)
        if (
          (!this.written.has(numeral) || !this.r.on("written-once")) &&
          this.q.fits(key, numeral) &&
          (strict || this.t.numeralCount(numeral) > 0 || !this.r.on("schema-numerals"))
        )
          this.t.prefixTokens(opener, numeral.slice(0, this.vocab.maxTokenChars), logit, logits);
      if (!this.source.numerals.some((n) => n.startsWith("-")) && this.r.on("no-negative"))
        for (const minus of this.vocab.tokensFor(`${opener}-`) ?? []) logits.set(minus, GROUNDING_AVOID_LOGIT);
      this.t.takenMalus(opener, "", logits);
    }
    if (copy && !strict) this.t.takenTextMalus(opener, logits);
    // an array's next item: of a list the question writes out, or the first numeral that begins one ("2nd, 3rd and
    // 4th"); then the key's anchors ("4th floors") are not the item's
    const next = strict || !items ? undefined : items.length ? this.q.listAfter(items)?.next : this.q.numberListStart();
    if (!strict && (next === undefined || !this.r.on("lists"))) this.anchorBias(opener, key, logits, { copy, numbers });
    if (!copy) return logits.size ? { type: "bias", logits } : NONE;
    if (!strict && !this.source.empty && this.r.on("no-empty-value")) this.t.emptyValueMalus(opener, items, logits);
    if (!strict && !items)
      for (const numeral of this.q.numeralsForNumberKeys(key))
        if (this.r.on("number-key-numerals")) this.t.prefixTokens(`${opener}"`, numeral, GROUNDING_AVOID_LOGIT, logits);
    // the next item of a list the question writes out, ahead of every other span
    if (next !== undefined && this.r.on("lists")) {
      const quoted = !LEADING_NUMERAL.test(next) || items!.some((item) => !LEADING_NUMERAL.test(item));
      this.t.prefixTokens(quoted ? `${opener}"` : opener, next, GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT, logits);
    }
    const derived = strict || items ? [] : this.derived.values(key);
    if (derived.length > 0) this.derived.only(`${opener}"`, derived, logits);
    // in a `calls` list, a value the question gives the key is no earlier call's result: the reference's `{"$ref"`
    // gets the malus (Gemma wrote `"location":{"$ref":"calls[0].result"}` for "I'm currently in Boston, MA"); nor is
    // any value of a call that takes an item of the question, unless its item refers to a result (SmolLM2 wrote
    // `"team":{"$ref":"calls[0].result"}` for the second of "Lakers and Bulls")
    const failed = strict ? [] : this.t.failedValues(this.q.currentSkill(), key);
    if (failed.length > 0 && this.r.on("failed-value")) this.t.failedMalus(`${opener}"`, "", failed, logits);
    const earlier = strict ? [] : distinctItems(items);
    if (earlier.length > 0 && this.r.on("distinct-items")) this.t.failedMalus(`${opener}"`, "", earlier, logits);
    const itemized = this.itemized && this.r.on("item-references");
    if (!strict && !items && inCalls && ((this.r.on("anchors") && this.q.givesValue(key)) || itemized))
      this.t.textTokens(
        ["{", '{"', '{"$', '{"$ref', '{"$ref"'].map((text) => opener + text),
        GROUNDING_AVOID_LOGIT,
        logits,
        [],
      );
    return logits.size ? { type: "bias", logits } : NONE;
  }

  /**
   * Where `key`'s value is about to begin (after `opener`): the values the question anchors to another key of the
   * called skill lose their copy bonus (a numeral's first digits another numeral shares keep it), and those it
   * anchors to `key` get the anchor bonus (see QuestionReading.anchors).
   */
  private anchorBias(
    opener: string,
    key: string,
    logits: Map<Token, number>,
    levers: { copy: boolean; numbers: boolean },
  ): void {
    // the values the question puts beside another key's word are that key's: no copy bonus here
    const others = this.q.othersAnchors(key);
    const theirs = new Map<Token, number>();
    if (levers.copy)
      for (const p of [...others.starts, ...this.q.innerStarts(key)])
        this.t.prefixTokens(`${opener}"`, this.source.following(p, this.vocab.maxTokenChars), 0, theirs);
    // a numeral's first digits another numeral shares ("5" of 5% and of $50000) stay favoured, and a numeral the
    // source writes twice ("5%" and "5 years")
    const free = new Set<string>();
    for (const numeral of this.source.numerals)
      if (
        (!others.numerals.has(numeral) || this.t.numeralCount(numeral) > 1) &&
        (this.t.numeralCount(numeral) > 0 || !this.r.on("schema-numerals")) &&
        this.q.fits(key, numeral)
      )
        for (let length = 1; length <= numeral.length; length++) free.add(numeral.slice(0, length));
    if (levers.numbers)
      for (const numeral of others.numerals)
        for (let length = 1; length <= numeral.length && opener.length + length <= this.vocab.maxTokenChars; length++)
          if (!free.has(numeral.slice(0, length)))
            for (const token of this.vocab.tokensFor(opener + numeral.slice(0, length)) ?? []) theirs.set(token, 0);
    if (theirs.size > 0 && this.r.on("other-keys-values")) for (const token of theirs.keys()) logits.delete(token);
    // the call before's value of this key, where this item anchors another numeral to the key: the malus on the way
    // to it (SmolLM2 wrote the first wave's `"end_range":10` again for "ending at 20 radians")
    const before = this.previous[key];
    const own = before === undefined ? [] : this.q.anchors(key).numerals;
    if (levers.numbers && own.length > 0 && !own.includes(before) && this.r.on("previous-call"))
      for (let length = 1; length <= before.length && opener.length + length <= this.vocab.maxTokenChars; length++)
        for (const token of this.vocab.tokensFor(opener + before.slice(0, length)) ?? [])
          if (!((logits.get(token) ?? 0) > 0)) logits.set(token, GROUNDING_AVOID_LOGIT);
    // the values the question puts beside the key's word, ahead of its other spans
    const anchors = this.q.anchors(key);
    const anchored = GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT;
    if (levers.copy)
      for (const p of this.t.chainAnchors(anchors.starts))
        this.t.prefixTokens(`${opener}"`, this.source.following(p, this.vocab.maxTokenChars), anchored, logits);
    // a kind's key: its noun loses to the kinds before it ("classical concert": no "con" for a concert's `genre`)
    if (levers.copy) this.t.nounMalus(`${opener}"`, this.q.kindNounOf(key), anchors.starts, logits);
    // (a numeral another argument took already too: "annual rate of 5%" and "for 5 years")
    if (levers.numbers)
      for (const numeral of anchors.numerals)
        if (this.q.fits(key, numeral) && !this.t.writtenOnce(numeral))
          this.t.prefixTokens(opener, numeral, anchored, logits);
  }
}
