import type { Token } from "./token.js";
import { GROUNDING_AVOID_LOGIT, GROUNDING_CLOSE_LOGIT, GROUNDING_COPY_LOGIT } from "./defaults.js";
import type { ValueState } from "./grounding-words.js";
import type { GroundingVocabulary } from "./steer-source.js";
import type { RuleGate } from "./rules.js";
import type { SteerTokens } from "./steer-tokens.js";
import type { ValueEnds } from "./value-ends.js";

/**
 * The grounding steer's part for derived values (see deriveValues in derived-values.ts), under the `anchors` rule: the value so far the
 * start of one of them, going on with it gets the anchored bonus, closing gets it once the value is whole and the
 * malus short of it (both models wrote "1915" or "June01 2023" for a date "in yyyy-mm-dd format", "Euros" for
 * `from_currency`); a value not yet begun is offered only those (see only).
 */
export class DerivedSteer {
  readonly #values: (key: string) => string[];
  readonly #t: SteerTokens;
  readonly #vocab: GroundingVocabulary;
  readonly #ends: ValueEnds;
  readonly #r: RuleGate;

  constructor(
    values: (key: string) => string[],
    t: SteerTokens,
    vocab: GroundingVocabulary,
    ends: ValueEnds,
    r: RuleGate,
  ) {
    this.#values = values;
    this.#t = t;
    this.#vocab = vocab;
    this.#ends = ends;
    this.#r = r;
  }

  /** The key's derived values, where the rule acts (none where it does not). */
  values(key: string): string[] {
    const values = this.#values(key);
    return values.length > 0 && this.#r.on("anchors") ? values : [];
  }

  /** Inside a string value (see the class). */
  onValue(state: ValueState, logits: Map<Token, number>): void {
    if (state.items || state.nested) return;
    const values = this.#values(state.key).filter((value) => value.startsWith(state.value));
    if (values.length === 0 || !this.#r.on("anchors")) return;
    const whole = values.includes(state.value);
    this.only(
      "",
      values.filter((value) => value !== state.value).map((value) => value.slice(state.value.length)),
      logits,
    );
    for (const token of this.#vocab.stringClosers)
      logits.set(token, whole ? GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT : GROUNDING_AVOID_LOGIT);
    // whole: on to an asked optional argument, or the arguments' end where only unasked ones remain (both models went
    // on to `"amount":1000` after "JPY" for "the exchange rate from British Pounds to Japanese Yen")
    if (whole)
      this.#ends.argumentsEnd(
        state,
        logits,
        ['",', '", "', '","'],
        ['"}', '"}}', '"}}}', '"},'],
        GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT,
      );
  }

  /**
   * `opener` + the start of one of `values` gets the anchored bonus, and no other token keeps a bonus: the question's
   * spans are no value in the key's form.
   */
  only(opener: string, values: readonly string[], logits: Map<Token, number>): void {
    const ours = new Map<Token, number>();
    for (const value of values) this.#t.prefixTokens(opener, value, GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT, ours);
    for (const [token, logit] of logits) if (logit > 0 && !ours.has(token)) logits.delete(token);
    for (const [token, logit] of ours) logits.set(token, logit);
  }
}
