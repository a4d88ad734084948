import { numeralsOf } from "./grounding-index.js";
import { argumentsOf, writtenKeysOf, writtenStringsOf } from "./key-anchors.js";
import type { QuestionReading } from "./question-reading.js";

/**
 * Which of the called skill's optional arguments the question asks for, and whether the arguments so far leave one
 * to come (read from the reply so far, QuestionReading.text): where a value ends, ValueEnds goes on to an asked one or
 * closes the arguments where only unasked ones remain; the steer keeps an unasked key from beginning before an asked
 * one.
 */
export class OptionalKeys {
  readonly #q: QuestionReading;
  /** The question's numerals that it writes in digits (see numeralsHeld), read once. */
  #digitNumerals?: string[];

  constructor(q: QuestionReading) {
    this.#q = q;
  }

  /**
   * Whether the question asks for an optional argument this call has not written yet: the skill being called (the
   * last `skill_name` of the reply) has an optional key the question names (`sort_by` and "sort by importance",
   * `detailed` and "with details") and the arguments so far lack it. A small model closes the arguments after the
   * required ones; then a value that ends is followed by `,` rather than `}`.
   */
  optionalAsked(): boolean {
    if (this.#q.optionalKeys.size === 0) return false;
    const skill = this.#q.currentSkill();
    const optional = skill === undefined ? undefined : this.#q.optionalKeys.get(skill);
    if (!optional?.length) return false;
    const toCome = new Set(this.#toCome(skill!));
    const numeric = this.#q.numericKeys.get(skill!);
    return optional.some((key) => toCome.has(key) && this.asked(key, numeric));
  }

  /**
   * The called skill's keys that may still come: those past the last key the arguments so far write, in the schema's
   * order (the grammar writes them in that order: an optional key skipped is gone; Gemma went on to
   * `"time_years":100` where `}` was all the grammar left besides digits and `,` was asked for).
   */
  #toCome(skill: string): string[] {
    const written = writtenKeysOf(this.#q.text);
    const all = this.#q.argumentKeys.get(skill);
    // no order known: every optional key not written
    if (!all) return (this.#q.optionalKeys.get(skill) ?? []).filter((key) => !written.has(key));
    const last = Math.max(-1, ...all.map((key, i) => (written.has(key) ? i : -1)));
    return all.slice(last + 1);
  }

  /**
   * Whether the question asks for optional `key` of the called skill (whose number keys are `numeric`): named (a number
   * key not after a negation), given a value (a place key's "in Rome, Italy"), asked for by one of its values ("in
   * Celsius" for `temp_unit`), or a number key where a numeral of the question is still unheld ("within 10 miles").
   */
  asked(key: string, numeric: readonly string[] | undefined): boolean {
    // an anchored value another argument holds already asks for nothing ("in Premier League" for `location` once
    // `"league":"Premier League"` is written)
    const held = writtenStringsOf(this.#q.text).map((value) => value.toLowerCase());
    const free = (p: number) =>
      !held.some((value) => this.#q.source.following(p, value.length).toLowerCase() === value);
    // (a number key named after a negation asks for none: "he will not make any additional contributions" for
    // `contribution`, where both test models wrote 2, the start of another item's 200)
    const number = !!numeric?.includes(key);
    const named = this.#q.named(key) && !(number && this.#q.flagValue(key) === "false");
    return named || this.#q.anchors(key).starts.some(free) || (number && !this.numeralsHeld());
  }

  /**
   * The optional keys of the called skill the question does not ask for (see asked) and the arguments so far lack,
   * where a key that is asked for (a required one, or an optional one the question asks for) is still to come; else
   * none. The grammar writes keys in the schema's order, so an unasked key that begins first takes the asked one's
   * value: both models wrote `"timeZone":"2025-03-01"` before `from` for "weeks from 2025-03-01 to 2025-05-24".
   */
  unaskedBeforeAsked(): string[] {
    const skill = this.#q.currentSkill();
    const all = skill === undefined ? undefined : this.#q.argumentKeys.get(skill);
    const optional = new Set(skill === undefined ? [] : (this.#q.optionalKeys.get(skill) ?? []));
    if (!all || optional.size === 0) return [];
    const numeric = this.#q.numericKeys.get(skill!);
    const toCome = this.#toCome(skill!);
    const unasked = toCome.filter((key) => optional.has(key) && !this.asked(key, numeric));
    return unasked.length < toCome.length ? unasked : [];
  }

  /**
   * Whether every numeral the question writes in digits is held by an argument written so far (as itself, a fraction
   * of it or a hundred times it: "8%" as 0.08); one in words is none ("two sets").
   */
  numeralsHeld(): boolean {
    if (!this.#digitNumerals) {
      const question = this.#q.source.text.slice(0, this.#q.questionChars);
      const inDigits = new Set(question.replaceAll(",", "").match(/\d+(?:\.\d+)?/g));
      this.#digitNumerals = numeralsOf(question).filter((numeral) => inDigits.has(numeral));
    }
    const args = numeralsOf(argumentsOf(this.#q.text)).map(Number);
    const held = (n: number) => args.some((a) => a === n || a === n / 100 || a === n * 100);
    return this.#digitNumerals.every((numeral) => held(Number(numeral)));
  }

  /**
   * Whether what the called skill may still take is optional arguments the question does not ask for (see
   * optionalAsked): its required keys are all in the arguments so far, and an optional one is not.
   */
  onlyUnaskedToCome(): boolean {
    const skill = this.#q.currentSkill();
    const all = skill === undefined ? undefined : this.#q.argumentKeys.get(skill);
    if (!all) return false;
    const optional = new Set(this.#q.optionalKeys.get(skill!) ?? []);
    const written = writtenKeysOf(this.#q.text);
    if (
      !all.every((key) => optional.has(key) || written.has(key)) ||
      !this.#toCome(skill!).some((key) => optional.has(key))
    )
      return false;
    // a numeral the question writes in digits that no argument holds yet is one an optional argument may take
    // (Gemma's `"year":2020` for "crimes in 2020"); not one in words (`"z":2` for "the other two sides as 4 and 5")
    return this.numeralsHeld();
  }
}
