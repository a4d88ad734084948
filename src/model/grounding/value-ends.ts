import type { Token } from "./token.js";
import {
  GROUNDING_MIN_DIGIT_RUN,
  GROUNDING_NUMBER_DIGIT_MARGIN,
  GROUNDING_AVOID_LOGIT,
  GROUNDING_CLOSE_LOGIT,
  GROUNDING_COPY_LOGIT,
  GROUNDING_LIST_END_LOGIT,
} from "./defaults.js";
import type { ValueState } from "./grounding-words.js";
import type { QuestionReading } from "./question-reading.js";
import type { OptionalKeys } from "./optional-keys.js";
import type { RuleGate } from "./rules.js";
import type { SteerTokens } from "./steer-tokens.js";

/**
 * Where an argument value ends, what comes next: an array's next item or its end where the question's list goes on or
 * ends (the `lists` rule), and the arguments going on to an optional argument the question asks for or closing when
 * only unasked ones remain (the `arguments-end` rule). grounding-steer.ts asks at each value's end.
 */
export class ValueEnds {
  readonly mode: "soft" | "strict";
  readonly q: QuestionReading;
  readonly t: SteerTokens;
  readonly r: RuleGate;
  readonly optional: OptionalKeys;

  constructor(mode: "soft" | "strict", q: QuestionReading, optional: OptionalKeys, t: SteerTokens, r: RuleGate) {
    this.mode = mode;
    this.q = q;
    this.optional = optional;
    this.t = t;
    this.r = r;
  }
  /**
   * An array item that is whole where the question's list has it: closing the array where the list ends there, the
   * separator where it goes on (`closers`: the tokens that end the item and the array; `separators`: that end the item
   * and go on).
   */
  listEnd(state: ValueState, logits: Map<Token, number>, closers: string[], separators: string[]): void {
    if (!state.items || this.mode === "strict") return;
    const items = [...state.items, state.value];
    // past the most items a list of the question holds, a list of texts that follows none of them ends (both models
    // wrote 12 items and more for "points, assists, rebounds, and minutes")
    const bound =
      state.kind === "string" && items.length >= this.q.mostListItems() && this.r.on("list-bound")
        ? ({ end: true } as const)
        : undefined;
    const list = this.q.listAfter(items) ?? this.q.askedList(state.key, items) ?? bound;
    if (!list || (list !== bound && !this.r.on("lists"))) return;
    const logit = GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT;
    if (!list.end) {
      this.t.textTokens(separators, logit, logits, []);
      // the question's list goes on: closing the array gets the malus (Gemma closed "open hole, C foot, and silver
      // headjoint" after its first item, and "timings, exhibitions, and accessibility" past a malus of 4)
      this.t.textTokens(closers, GROUNDING_LIST_END_LOGIT, logits, []);
    } else if (!this.#askedStillToCome(state)) {
      this.t.textTokens(closers, logit, logits, []);
      // past the list's end: another item gets the malus (SmolLM2 went on with "Purchase_Amount", "regression", ...)
      this.t.textTokens(separators, GROUNDING_LIST_END_LOGIT, logits, []);
    } else {
      // the list is whole, and an optional argument the question asks for is still to come: `],` and not `]}`
      const [goOn, close] = [closers.filter((c) => !c.includes("}")), closers.filter((c) => c.includes("}"))];
      this.t.textTokens(goOn, logit, logits, []);
      this.t.textTokens(close, GROUNDING_AVOID_LOGIT, logits, []);
      this.t.textTokens(separators, GROUNDING_LIST_END_LOGIT, logits, []);
    }
  }

  /**
   * At a value's end directly under `arguments` (not in an array or object of its own): where an optional argument
   * the question asks for is still to come (see OptionalKeys.optionalAsked), the bonus of closing the value (`logit`) goes to the
   * tokens that go on (`goOn`, with `,`), and those that close the arguments (`close`, with `}`) get the malus (the
   * bonus alone did not keep Gemma from `"}` after "Purchase_Amount" when "Also apply standardization" asked for
   * `standardize`). Where instead only optional arguments the question does not ask for may still come (see
   * OptionalKeys.onlyUnaskedToCome), that bonus goes to the tokens that close the arguments, and going on loses it. A value is not
   * closed sooner for either.
   */
  argumentsEnd(
    state: ValueState,
    logits: Map<Token, number>,
    goOn: string[],
    close: string[],
    logit: number,
    closed = false,
  ): void {
    if (state.items || state.nested || this.mode === "strict") return;
    // in a `calls` list the arguments' `}` comes with its call's: Gemma writes `}},` and `}}]` as one token each
    // (`"quantity":5}},` left out the `region` the question named, in every call of a parallel reply)
    close = [...close, ...close.filter((text) => /^"?\}$/.test(text)).flatMap((text) => [`${text}},`, `${text}}]`])];
    if (this.optional.optionalAsked()) {
      if (!this.r.on("arguments-end")) return;
      this.t.textTokens(goOn, logit, logits, close);
      this.t.textTokens(close, GROUNDING_AVOID_LOGIT, logits, []);
    } else if (this.optional.onlyUnaskedToCome() && this.r.on("arguments-end")) {
      // every required argument is written and no optional one is asked for: closing the arguments gets the bonus,
      // going on loses it (Gemma went on with `"z":2` for a hypotenuse of 4 and 5, `"permeability":12.57`); no malus
      // on going on, which kept SmolLM2 in its string no less ("psychology related to behaviour")
      this.t.textTokens(close, logit, logits, goOn);
      // a value already closed (its quote or `]` written): going on gets the malus too; no string to stay in now
      // (Gemma went on with `"location":"Premier League"` after `"league":"Premier League"`)
      if (closed) this.t.textTokens(goOn, GROUNDING_AVOID_LOGIT, logits, []);
    }
  }

  /** Whether `state` is a value directly under `arguments` (or an item of an array there) and an asked-for optional argument is still to come. */
  #askedStillToCome(state: ValueState): boolean {
    return !state.nested && this.mode !== "strict" && this.optional.optionalAsked() && this.r.on("arguments-end");
  }

  /**
   * A string off the source that ends in a run of one digit longer than the source's (`Safeway 1000000000…`), or in
   * more digits than the source's longest numeral plus the margin (`Safeway 1010101010…`): a number's runaway.
   */
  digitRunaway(state: ValueState): boolean {
    if (state.positions.length > 0) return false;
    const run = /(\d)\1*$/.exec(state.value)?.[0].length ?? 0;
    const digits = /\d*$/.exec(state.value)![0].length;
    return (
      run >= Math.max(this.q.source.maxDigitRun + 1, GROUNDING_MIN_DIGIT_RUN) ||
      digits > Math.max(this.q.source.maxNumeralDigits, 1) + GROUNDING_NUMBER_DIGIT_MARGIN
    );
  }
}
