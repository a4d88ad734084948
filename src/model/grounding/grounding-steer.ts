import type { Token } from "./token.js";
import { GROUNDING_LEVERS, type GroundingLever } from "../model-handle.js";
import {
  GROUNDING_ANSWER_COPY_LOGIT,
  GROUNDING_AVOID_LOGIT,
  GROUNDING_CLOSE_LOGIT,
  GROUNDING_COPY_LOGIT,
  GROUNDING_MID_WORD_LOGIT,
  GROUNDING_MIN_DIGIT_RUN,
  GROUNDING_MIN_STRING_CHARS,
  GROUNDING_NUMBER_DIGIT_MARGIN,
  GROUNDING_STRICT_LOGIT,
} from "./defaults.js";
import { digitCount, GroundingIndex, longestDigitRun } from "./grounding-index.js";
import { JsonValueTracker, type JsonValuePosition } from "./json-value-tracker.js";

export type { GroundingVocabulary, Steering, SteerSource } from "./steer-source.js";
import type { GroundingVocabulary, Steering, SteerSource } from "./steer-source.js";
import { QuestionReading } from "./question-reading.js";
import { atArgumentsTop, lastClosedValue } from "./key-anchors.js";
import { SteerTokens } from "./steer-tokens.js";
import { RuleGate } from "./rules.js";
import { ValueEnds } from "./value-ends.js";
import { OptionalKeys } from "./optional-keys.js";
import { DerivedSteer } from "./derived-steer.js";
import { ValueStart } from "./value-start.js";
import { OtherKeysValues } from "./other-keys-values.js";
import {
  JSON_PUNCTUATION,
  type ValueState,
  WORD_AT,
  distinctItems,
  punctuationStrings,
  roleOf,
} from "./grounding-words.js";

const NONE: Steering = { type: "none" };
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
  /** What the question says, read once per key and skill (see QuestionReading). */
  readonly #q: QuestionReading;
  /** Which rules act (see GROUNDING_RULES), and which were asked. */
  readonly #r: RuleGate;
  /** Which optional arguments the question asks for (see OptionalKeys). */
  readonly #optional: OptionalKeys;
  /** Values the question gives another key or skill (see OtherKeysValues). */
  readonly #others: OtherKeysValues;
  /** What may come after a value (see ValueEnds). */
  readonly #ends: ValueEnds;
  /** A value the question writes in another form (see DerivedSteer). */
  readonly #derived: DerivedSteer;
  /** Where a value is about to begin (see ValueStart). */
  readonly #start: ValueStart;
  /** The tokens that copy, begin or close the values it steers toward (see SteerTokens). */
  readonly #t: SteerTokens;
  readonly #mode: "soft" | "strict";
  readonly #levers: ReadonlySet<GroundingLever>;
  readonly #source: GroundingIndex;
  readonly #vocab: GroundingVocabulary;
  readonly #tracker = new JsonValueTracker();
  readonly #stringBound: number;
  #value: ValueState | undefined;
  /** The last value written, once it is done (see #afterArgument: a list closed after its last item). */
  #lastValue: ValueState | undefined;
  /** The argument values this reply has written so far: a numeral used once is not favoured for another argument. */
  readonly #written = new Set<string>();
  constructor(source: SteerSource, vocab: GroundingVocabulary) {
    this.#mode = source.mode;
    this.#levers = new Set(source.levers ?? GROUNDING_LEVERS);
    this.#source = new GroundingIndex([...source.source, ...(source.schemaValues ?? [])], { skipArticles: true });
    this.#r = new RuleGate(source.rulesOff, source.onRule);
    this.#q = new QuestionReading(source, this.#source, this.#r);
    this.#vocab = vocab;
    this.#t = new SteerTokens(source, vocab, this.#source, this.#q, this.#written, this.#r);
    this.#optional = new OptionalKeys(this.#q);
    this.#ends = new ValueEnds(this.#mode, this.#q, this.#optional, this.#t, this.#r);
    this.#others = new OtherKeysValues(this.#q, this.#t, this.#source, vocab, this.#r);
    this.#derived = new DerivedSteer((key) => this.#q.derivedValues(key), this.#t, vocab, this.#ends, this.#r);
    const parts = { mode: this.#mode, levers: this.#levers, source: this.#source, vocab, q: this.#q, t: this.#t };
    this.#start = new ValueStart({ ...parts, written: this.#written, r: this.#r, derived: this.#derived }, source);
    this.#stringBound = Math.max(GROUNDING_MIN_STRING_CHARS, ...source.source.map((t) => t.length));
  }

  /** The bias for the token after `text` (the whole reply so far, only ever extended). */
  next(text: string): Steering {
    this.#q.text = text;
    const position = this.#tracker.update(text);
    const role = position && roleOf(position.path);
    const lever = this.#levers;
    if (!position || !role) {
      this.#settle(text);
      const after = lever.has("copy") ? this.#afterArgument(text) : NONE;
      this.#leaveValue();
      return after.type === "none" && lever.has("copy") ? this.#keyStart(text) : after;
    }
    const state = this.#follow(position, role);
    if (state.kind === "pending")
      return state.role === "argument" && (lever.has("copy") || lever.has("numbers"))
        ? this.#start.next(position.opener ?? "", state.key, position.items, position.path[0] === "calls")
        : NONE;
    if (state.kind === "number") return lever.has("numbers") ? this.#number(state) : NONE;
    if (state.role === "answer") return lever.has("answers") ? this.#answer(state) : NONE;
    return this.#string(state);
  }

  /**
   * Right after an argument's string or list closed directly under `arguments` (`"target":"Purchase_Amount"`, `[7,8]`),
   * where `,` or `}` comes next: when an optional argument the question asks for is still to come (see
   * OptionalKeys.optionalAsked), `,` gets the bonus and `}` the malus. Gemma writes the closing quote alone and then `}`: the
   * string's own closers never came up.
   */
  #afterArgument(text: string): Steering {
    const value = this.#value ?? this.#lastValue;
    if (!value || value.role !== "argument") return NONE;
    const justClosed = this.#value !== undefined && value.kind === "string" && text.endsWith('"');
    if (justClosed && value.items && this.#r.on("lists")) {
      // an item string just closed, the bare `,` or `]` next: the list steering, as on `",` and `"]`
      const logits = new Map<Token, number>();
      this.#ends.listEnd(value, logits, ["]", "]}", "]}}", "]},", "],"], [",", ", ", ',"', ', "']);
      return logits.size ? { type: "bias", logits } : NONE;
    }
    // a list's bare `]` (after a number item its value is still the current one, after a string item the last one)
    const closed = value.items ? text.endsWith("]") : justClosed;
    if (value.nested || !closed) return NONE;
    const logits = new Map<Token, number>();
    // a list's `]`: the list is whole, its arguments' end as after any value
    this.#ends.argumentsEnd(
      { ...value, items: undefined },
      logits,
      [",", ', "', ',"'],
      ["}", "}}", "}}}", "},", "}, "],
      GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT,
      true,
    );
    return logits.size ? { type: "bias", logits } : NONE;
  }

  /**
   * Where an argument's key is about to begin directly under `arguments` (after `{` or `,`, its quote or not): the
   * optional keys the question does not ask for get the malus while a required or asked key is still to come. The
   * grammar writes keys in the schema's order, an optional one or the next: Gemma and SmolLM2 wrote
   * `"team":"Basketball"` before the required `"sport"` for "the profile of basketball player Lebron James".
   */
  #keyStart(text: string): Steering {
    if (this.#mode === "strict") return NONE;
    const tail = /[{,]\s*("?)$/.exec(text);
    if (!tail || !atArgumentsTop(text.slice(0, text.length - tail[1].length))) return NONE;
    const unasked = this.#optional.unaskedBeforeAsked();
    if (unasked.length === 0 || !this.#r.on("arguments-end")) return NONE;
    const logits = new Map<Token, number>();
    for (const key of unasked) this.#t.prefixTokens(tail[1] ? "" : '"', `${key}"`, GROUNDING_AVOID_LOGIT, logits);
    return logits.size ? { type: "bias", logits } : NONE;
  }

  /** The bonus of closing a string (see #closeLogit), none short of the key's own value (see #shortOfAsked). */
  #stringCloseLogit(state: ValueState): number | undefined {
    const close = this.#closeLogit(state);
    return close !== undefined && this.#shortOfAsked(state) ? undefined : close;
  }

  /** Whether the value is a question's word that the key's own value begins ("detail" of 'detailed'): not closed. */
  #shortOfAsked(state: ValueState): boolean {
    return state.value !== "" && this.#q.shortOfAsked(state.key, state.value) && this.#r.on("anchors");
  }

  /**
   * The string value being followed, whole: where the grammar left the reply one way on (the rest of an enum value,
   * "Violin Lessons" after its "V"), the steer was not asked, so the value it follows is short of what `text` closed.
   * Without this an enum list's items read ["V"] and never ended (SmolLM2 wrote "Violin Lessons" five times).
   */
  #settle(text: string): void {
    const state = this.#value;
    if (state?.kind !== "string") return;
    const closed = lastClosedValue(text);
    if (closed === undefined || closed.length <= state.value.length || !closed.startsWith(state.value)) return;
    this.#extend(state, closed.slice(state.value.length));
    state.value = closed;
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
      this.#settle(this.#q.text);
      this.#leaveValue();
      this.#value = {
        kind: position.kind,
        ...role,
        value: "",
        positions: [],
        items: position.items,
        nested: position.path.length > position.path.indexOf("arguments") + 2,
      };
      this.#value.positions = position.kind === "string" ? this.#others.starts(role.key, this.#t.valueStarts()) : [];
    }
    const state = this.#value!;
    const piece = position.value.slice(state.value.length);
    if (piece !== "" && state.kind === "string") this.#extend(state, piece);
    state.value = position.value;
    return state;
  }

  /**
   * Follow the spans of the source through `piece`; after a boundary a soft argument value that left the source may
   * begin another span (an answer does not: SmolLM2 then wrote "17.17.17…").
   */
  #extend(state: ValueState, piece: string): void {
    state.positions = this.#source.advance(state.positions, piece);
    if (!/[^\p{L}\p{N}_]$/u.test(piece)) return;
    if (state.role === "argument" && this.#mode === "soft" && state.positions.length === 0)
      state.positions = [...this.#source.starts];
  }

  /** An argument string: copy bonus, boundary close, the start malus (soft); spans only (strict); the length bound. */
  #string(state: ValueState): Steering {
    const bounded = this.#levers.has("strings");
    if (bounded && state.value.length >= this.#stringBound && this.#r.on("string-bound"))
      return { type: "close-string" };
    if (bounded && this.#ends.digitRunaway(state) && this.#r.on("digit-runaway")) return { type: "close-string" };
    if (!this.#levers.has("copy")) return NONE;
    if (this.#mode === "strict" && !this.#source.empty) return this.#strictString(state);
    const logits = new Map<Token, number>();
    if (state.value === "") this.#startMalus(state.key, logits);
    if (state.value === "") this.#stringStart(state, logits);
    else this.#copyInside(state, logits);
    const close = this.#stringCloseLogit(state);
    const closing = close ?? (this.#shortOfAsked(state) ? GROUNDING_AVOID_LOGIT : undefined);
    if (closing !== undefined) for (const token of this.#vocab.stringClosers) logits.set(token, closing);
    if (close !== undefined) this.#others.closeBeforeOthers(state, logits);
    // an empty string is no value the question gives (SmolLM2's `"target":""`, `[""]` once lists could not be empty),
    // nor is one of punctuation alone (`[","]`)
    if (!/[\p{L}\p{N}]/u.test(state.value) && this.#r.on("no-empty-value")) {
      for (const token of this.#vocab.stringClosers) logits.set(token, GROUNDING_AVOID_LOGIT);
      this.#t.punctuationMalus(punctuationStrings([""], false), logits);
    }
    this.#derived.onValue(state, logits);
    if (state.value !== "")
      this.#ends.listEnd(state, logits, ['"]', '"]}', '"]}}', '"]},', '"],'], ['",', '", "', '","']);
    if (close !== undefined)
      this.#ends.argumentsEnd(state, logits, ['",', '", "', '","'], ['"}', '"}}', '"}}}', '"},'], close);
    this.#unitGoesOn(state, logits);
    this.#failedMalus(state, logits);
    return logits.size ? { type: "bias", logits } : NONE;
  }

  /** A unit of several words closes at its last one (SmolLM2's "from":"US" for "5 US gallons"). */
  #unitGoesOn(state: ValueState, logits: Map<Token, number>): void {
    const units = this.#q.unitSpans(state.key);
    const inUnit = this.#q.inUnits(units, state.positions);
    const wordInside = (p: number) =>
      units.some(([start, end]) => p > start && p < end) && this.#source.text[p] === " ";
    if (inUnit.length > 0 && inUnit.every(wordInside) && this.#r.on("units"))
      for (const token of this.#vocab.stringClosers) logits.set(token, GROUNDING_AVOID_LOGIT);
  }

  /**
   * A value a call of the run failed with gets the malus (see SteerTokens.failedMalus); so does a list's item that
   * writes an earlier item of the list again (`distinct-items`).
   */
  #failedMalus(state: ValueState, logits: Map<Token, number>): void {
    const failed = this.#t.failedValues(this.#q.currentSkill(), state.key);
    if (failed.length > 0 && this.#r.on("failed-value")) this.#t.failedMalus("", state.value, failed, logits);
    const earlier = distinctItems(state.items);
    if (earlier.length > 0 && this.#r.on("distinct-items")) this.#t.failedMalus("", state.value, earlier, logits);
  }

  /**
   * A string's first token: the copy bonus on the source's span starts (a unit only where the question writes one),
   * the key's anchors more (in a chain, see SteerTokens.chainAnchors); none on other keys' values and on strings this
   * reply wrote already, the malus on the key's own words.
   */
  #stringStart(state: ValueState, logits: Map<Token, number>): void {
    const copy = this.#t.sourceStarts().keys();
    // a conversion's unit: only where the question writes one (SmolLM2's "from":"many" for "How many grams is 12
    // ounces?")
    const only = this.#q.unitSpans(state.key).length > 0;
    const written = this.#t.writtenStarts("");
    const named = this.#t.keyWordTokens("", state.key, this.#q.namingWordsOf(state.key));
    if (!only)
      for (const token of copy) if (!written.has(token) && !named.has(token)) logits.set(token, GROUNDING_COPY_LOGIT);
    const others = new Map<Token, number>();
    this.#t.continuations(
      this.#source,
      [...this.#q.othersAnchors(state.key).starts, ...this.#q.innerStarts(state.key)],
      0,
      others,
    );
    if (others.size > 0 && this.#r.on("other-keys-values")) for (const token of others.keys()) logits.delete(token);
    this.#others.foreignMalus(logits);
    const anchored = new Map<Token, number>();
    const starts = this.#t.chainAnchors(this.#q.anchors(state.key).starts);
    this.#t.continuations(this.#source, starts, GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT, anchored);
    // the key's own words get the malus, unless an anchored value begins with them ("Hotel Paradise", `hotel_name`)
    for (const token of named) logits.set(token, GROUNDING_AVOID_LOGIT);
    for (const [token, logit] of anchored) logits.set(token, logit);
    this.#t.nounMalus("", this.#q.kindNounOf(state.key), this.#q.anchors(state.key).starts, logits);
    // (a string opened by a `"` of its own begins a value too: Gemma's "Hello" of another item's 'Hello World')
    this.#t.takenTextMalus("", logits, false);
    if (!state.items)
      for (const numeral of this.#q.numeralsForNumberKeys(state.key))
        if (this.#r.on("number-key-numerals")) this.#t.prefixTokens("", numeral, GROUNDING_AVOID_LOGIT, logits);
  }

  /** Inside a string value: the copy bonus on, and the malus on another item's next word and on a stray digit. */
  #copyInside(state: ValueState, logits: Map<Token, number>): void {
    this.#copyOn(state, logits);
    this.#t.takenWordMalus(state.value, logits);
    if (state.positions.length > 0 && this.#r.on("string-digits")) this.#t.digitMalus(state.value, logits);
  }

  /**
   * The copy bonus on from the spans the value follows; more where the value is in the middle of a word of the source
   * and no whole word of it (see GROUNDING_MID_WORD_LOGIT).
   */
  #copyOn(whole: ValueState, logits: Map<Token, number>): void {
    if (this.#q.isFormula(whole.key) && this.#r.on("formula")) return this.#formulaOn(whole, logits);
    // a unit the value copies goes on as that unit, not as another word it begins ("m" of "milliliters", not "many")
    const inUnit = this.#q.inUnits(this.#q.unitSpans(whole.key), whole.positions);
    const state = inUnit.length > 0 ? { ...whole, positions: inUnit } : whole;
    // only where the value is no whole word of the source yet: "C" of "C major" may close ("Compose" holds it too)
    const midWord = WORD_AT.test(state.value.at(-1) ?? "") && !state.positions.some((p) => this.#source.endsWord(p));
    const inWord = midWord && this.#r.on("mid-word") ? state.positions : [];
    // a place's name goes on with its region ("Denver, Colorado"), ahead of closing at the comma
    const regions = this.#q.isPlaceKey(state.key) ? state.positions.filter((p) => this.#q.regionAfter(p)) : [];
    const region = regions.length > 0 && this.#r.on("place-region") ? regions : [];
    this.#t.continuations(this.#source, state.positions, GROUNDING_COPY_LOGIT, logits);
    if (inWord.length > 0) this.#t.continuations(this.#source, inWord, GROUNDING_MID_WORD_LOGIT, logits);
    // a value begun on the key's anchor goes on as the anchored span, ahead of the others it also follows ("S" of
    // "shortest" beside `route_preference`'s "Shortest" and "Scenic": both test models went on to "Scenic")
    const onAnchor = this.#onAnchor(state);
    const base = inWord.length > 0 ? GROUNDING_MID_WORD_LOGIT : GROUNDING_COPY_LOGIT;
    if (onAnchor.length > 0 && this.#r.on("anchors"))
      this.#t.continuations(this.#source, onAnchor, base + GROUNDING_CLOSE_LOGIT, logits);
    if (region.length > 0)
      this.#t.continuations(this.#source, region, GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT, logits);
    // a name goes on to its last word ("Yellowstone National Park", "Magnus Carlsen"), and a quoted text to its
    // closing quote ('Guardian Sword+'), ahead of closing
    const name = state.positions.filter((p) => this.#q.nameGoesOn(p) || this.#source.quoted(p));
    if (name.length > 0 && this.#r.on("name-goes-on"))
      this.#t.continuations(this.#source, name, GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT, logits);
  }

  /**
   * The positions a string value follows from one of its key's anchors (see QuestionReading.anchors), where it follows
   * other spans too; else none.
   */
  #onAnchor(state: ValueState): number[] {
    if (state.positions.length < 2) return [];
    const starts = new Set(this.#q.anchors(state.key).starts);
    if (starts.size === 0) return [];
    const on = state.positions.filter((p) => starts.has(p - state.value.length));
    return on.length < state.positions.length ? on : [];
  }

  /**
   * An expression's copy bonus (`expression` of the calculator): inside one of the question's arithmetic stretches,
   * on to its end ("17 times 23 plus 4", not "17*23" closed where "23" ends a word), its longest next token as strongly
   * as the middle of a word (SmolLM2 left "466566 / 1000" for "466566  #1000", Gemma "60 / 4" for "60 ∙ 4", both past
   * the copy bonus); elsewhere only digits and symbols copy on ("3.5", not "3.5 hours": the words would be an error;
   * nor a sentence's "?": "sqrt(1764)?").
   */
  #formulaOn(state: ValueState, logits: Map<Token, number>): void {
    const inside = state.positions.filter((p) => this.#q.insideStretch(p));
    const spans = inside.map(
      (p) => [p, this.#q.arithmetic().find(([start, end]) => p > start && p < end)![1]] as const,
    );
    const shorter = GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT;
    this.#t.longestContinuations(this.#source, spans, GROUNDING_MID_WORD_LOGIT, shorter, logits);
    const rest = state.positions.filter((p) => !this.#q.insideStretch(p));
    this.#t.continuations(this.#source, rest, GROUNDING_COPY_LOGIT, logits, undefined, /\p{L}|\s$|[?!;:]/u);
  }

  /**
   * The bonus of closing a soft argument string: as much as copying on where the value ends a word of the source (the
   * bias does not push a value past its word: "Google" of "Google in California"), more at a boundary (",", the end).
   */
  #closeLogit(state: ValueState): number | undefined {
    if (state.value === "") return undefined;
    // an expression closes where an arithmetic stretch of the question ends, nowhere else with a bonus
    if (this.#q.isFormula(state.key) && this.#r.on("formula"))
      return state.positions.some((p) => this.#q.arithmetic().some(([, end]) => p === end))
        ? GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT
        : undefined;
    // inside a name, a quoted text or a unit the question writes whole: no bonus for closing before its end
    const units = this.#q.unitSpans(state.key);
    const inName = (p: number) => this.#q.nameGoesOn(p) || this.#source.quoted(p);
    const inUnit = (p: number) => units.some(([start, end]) => p > start && p < end);
    // (the units rule was asked by unitSpans; the names rule where a name holds a position units do not)
    if (
      state.positions.length > 0 &&
      state.positions.every((p) => inName(p) || inUnit(p)) &&
      (state.positions.every(inUnit) || this.#r.on("name-goes-on"))
    )
      return undefined;
    if (
      this.#q.isPlaceKey(state.key) &&
      state.positions.some((p) => this.#q.regionAfter(p)) &&
      this.#r.on("place-region")
    )
      return GROUNDING_COPY_LOGIT;
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
    if (state.value === "")
      for (const token of this.#t.sourceStarts().keys()) logits.set(token, GROUNDING_STRICT_LOGIT);
    else this.#t.continuations(this.#source, state.positions, GROUNDING_STRICT_LOGIT, logits);
    if (state.value !== "" && state.positions.some((p) => this.#source.endsWord(p)))
      for (const token of this.#vocab.stringClosers) logits.set(token, GROUNDING_STRICT_LOGIT);
    return { type: "bias", logits };
  }

  /**
   * At a value's start: a malus for the first tokens of the key's own name and of the avoid texts' words (`string`
   * from a schema, `The` of a description), where the source does not begin a span with them.
   */
  #startMalus(key: string, logits: Map<Token, number>): void {
    if (!this.#r.on("start-malus")) return;
    const sourceStarts = this.#t.sourceStarts();
    const keyIndex = new GroundingIndex([key, key.replaceAll("_", " ")]);
    const keyTokens = new Map<Token, number>();
    this.#t.continuations(keyIndex, [0, key.length + 1], GROUNDING_AVOID_LOGIT, keyTokens);
    for (const token of [...keyTokens.keys(), ...this.#t.avoidStarts()])
      if (!sourceStarts.has(token)) logits.set(token, GROUNDING_AVOID_LOGIT);
  }

  /**
   * A final answer: a gentle copy bonus toward the results and the question, the start malus; no length bound, but a
   * number's runaway closes it.
   */
  #answer(state: ValueState): Steering {
    // a runaway number ends the answer (SmolLM2: "150.0000000000000001", "5.555555555555555555555555")
    if (this.#ends.digitRunaway(state) && this.#r.on("digit-runaway")) return { type: "close-string" };
    const logits = new Map<Token, number>();
    if (state.value === "") this.#startMalus(state.key, logits);
    const copy = state.value === "" ? this.#t.sourceStarts().keys() : undefined;
    if (copy) for (const token of copy) logits.set(token, GROUNDING_ANSWER_COPY_LOGIT);
    // where the source begins with the newest result, an answer that begins with it gets more: it is what the last
    // call was for (Gemma answered "Japan" for the capital of the country where Mount Fuji is, after "Tokyo")
    if (copy && this.#t.newestChars > 0 && this.#r.on("answer-newest"))
      for (const token of this.#t.newestStarts().keys())
        logits.set(token, GROUNDING_ANSWER_COPY_LOGIT + GROUNDING_CLOSE_LOGIT);
    else
      this.#t.continuations(
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
    if ((state.value === "" || /[\s(]$/.test(state.value)) && this.#r.on("answer-numerals"))
      this.#t.numeralContinuations(
        "",
        GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT,
        logits,
        (numeral) => state.value.includes(numeral) || this.#t.echoed.has(numeral),
      );
    if (this.#t.refused.length > 0 && this.#r.on("refused-answer")) this.#t.refusedMalus(state.value, logits);
    return logits.size ? { type: "bias", logits } : NONE;
  }

  /**
   * An argument number: closed past the source's longest numeral plus a margin or in a long run of one digit; a
   * bonus toward the source's numerals and for closing on one (strict: only those, where the source has numerals).
   */
  #number(state: ValueState): Steering {
    const { maxNumeralDigits, maxDigitRun, numerals } = this.#source;
    const value = state.value;
    if (
      (digitCount(value) > Math.max(maxNumeralDigits, 1) + GROUNDING_NUMBER_DIGIT_MARGIN ||
        longestDigitRun(value) >= Math.max(maxDigitRun + 1, GROUNDING_MIN_DIGIT_RUN)) &&
      this.#r.on("number-bounds")
    )
      return { type: "close-value" };
    const strict = this.#mode === "strict" && numerals.length > 0;
    const logits = new Map<Token, number>();
    // a list may repeat an item ("[3, 4, 5, 6, 4]"): inside an array a numeral written already is favoured again;
    // a numeral the key's type cannot hold is not favoured
    const used = (numeral: string) =>
      !this.#q.fits(state.key, numeral) || (!state.items && this.#written.has(numeral) && this.#r.on("written-once"));
    const onTrack = this.#t.numeralContinuations(
      value,
      strict ? GROUNDING_STRICT_LOGIT : GROUNDING_COPY_LOGIT,
      logits,
      used,
    );
    const whole = numerals.includes(value) || (value.startsWith("-") && numerals.includes(value.slice(1)));
    if (strict && !onTrack && !whole) return { type: "close-value" };
    this.#t.takenMalus("", value, logits);
    // toward the numeral the question puts beside the key's word, ahead of the others (see QuestionReading.anchors)
    const anchored = strict
      ? []
      : this.#q.anchors(state.key).numerals.filter((n) => this.#q.fits(state.key, n) && !this.#t.writtenOnce(n));
    const towardAnchor = anchored.filter((numeral) => numeral.startsWith(value) && numeral.length > value.length);
    if (towardAnchor.length > 0 && !state.items)
      this.#t.numeralContinuations(
        value,
        GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT,
        logits,
        (numeral) => !towardAnchor.includes(numeral),
      );
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
    // the first digits of the source's numerals, and no numeral: closing there gets the malus (Gemma closed "14 days"
    // at 1, where the default it wanted, 7, had no bonus)
    if (!strict && onTrack && !whole && value !== "" && value !== "-" && this.#r.on("numeral-prefix"))
      for (const token of this.#vocab.valueClosers) logits.set(token, GROUNDING_AVOID_LOGIT);
    if (whole) this.#ends.listEnd(state, logits, ["]", "]}", "]}}", "]},", "]]", "],"], [",", ", "]);
    if (whole) this.#ends.argumentsEnd(state, logits, [",", ', "', ',"'], ["}", "}}", "}}}", "},", "}, "], close);
    return logits.size ? { type: "bias", logits } : NONE;
  }
}
