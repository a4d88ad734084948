import type { Token } from "./token.js";
import { GROUNDING_AVOID_LOGIT, GROUNDING_CLOSE_LOGIT, GROUNDING_COPY_LOGIT } from "./defaults.js";
import type { GroundingIndex } from "./grounding-index.js";
import type { ValueState } from "./grounding-words.js";
import type { QuestionReading } from "./question-reading.js";
import type { RuleGate } from "./rules.js";
import type { GroundingVocabulary } from "./steer-source.js";
import type { SteerTokens } from "./steer-tokens.js";

/**
 * The grounding steer's part for the `other-keys-values` rule: a value the question gives another key of the called
 * skill ends this one's, and a value only another skill's schema offers gets no copy bonus here.
 */
export class OtherKeysValues {
  readonly #q: QuestionReading;
  readonly #t: SteerTokens;
  readonly #source: GroundingIndex;
  readonly #vocab: GroundingVocabulary;
  readonly #r: RuleGate;
  /** Each skill's tokens that begin only another skill's schema values (see foreignMalus). */
  readonly #foreignTokens = new Map<string, Token[]>();

  constructor(q: QuestionReading, t: SteerTokens, source: GroundingIndex, vocab: GroundingVocabulary, r: RuleGate) {
    this.#q = q;
    this.#t = t;
    this.#source = source;
    this.#vocab = vocab;
    this.#r = r;
  }

  /** `starts` (where a value may begin) less the other keys' schema values (see QuestionReading.otherKeysSchemaStarts). */
  starts(key: string, starts: number[]): number[] {
    const theirs = new Set(this.#q.otherKeysSchemaStarts(key));
    return theirs.size > 0 && this.#r.on("other-keys-values") ? starts.filter((p) => !theirs.has(p)) : starts;
  }

  /**
   * A whole word that the source follows with another key's value ("Natural History Museum| in London" for `museum`
   * beside `city`): going on gets the malus, closing the bonus (SmolLM2 wrote the city into the museum's name).
   */
  closeBeforeOthers(state: ValueState, logits: Map<Token, number>): void {
    if (state.positions.length === 0 || !state.positions.every((p) => this.#q.beforeOthers(state.key, p))) return;
    if (!this.#r.on("other-keys-values")) return;
    const on = new Map<Token, number>();
    this.#t.continuations(this.#source, state.positions, GROUNDING_AVOID_LOGIT, on);
    for (const [token, logit] of on) logits.set(token, logit);
    for (const token of this.#vocab.stringClosers) logits.set(token, GROUNDING_COPY_LOGIT + GROUNDING_CLOSE_LOGIT);
  }

  /**
   * At a value's start: the tokens that begin only another skill's schema values (see QuestionReading.foreignStarts),
   * none of the question's spans nor the called skill's values, lose their copy bonus.
   */
  foreignMalus(logits: Map<Token, number>): void {
    const skill = this.#q.currentSkill();
    const foreign = this.#q.foreignStarts();
    if (skill === undefined || foreign.length === 0) return;
    let only = this.#foreignTokens.get(skill);
    if (!only) {
      const theirs = new Map<Token, number>();
      this.#t.continuations(this.#source, foreign, 0, theirs, Infinity);
      const set = new Set(foreign);
      const ours = new Map<Token, number>();
      const rest = this.#source.starts.filter((p) => !set.has(p));
      this.#t.continuations(this.#source, rest, 0, ours, Infinity);
      this.#foreignTokens.set(skill, (only = [...theirs.keys()].filter((token) => !ours.has(token))));
    }
    const hit = only.filter((token) => logits.has(token));
    if (hit.length > 0 && this.#r.on("other-keys-values")) for (const token of hit) logits.delete(token);
  }
}
