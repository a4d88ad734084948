/**
 * The decision's defaults (see src/decision/step-decision.ts), each with its reason. Chosen on even-numbered BFCL
 * question ids only; the odd ones are reported (docs/results/decision.md).
 */

/** The weights of a skill's fit score and how it becomes a logit offset (see fitScore and stepDecision). */
export interface DecisionWeights {
  /** Per content word of the question that the skill's name holds. */
  nameWords: number;
  /** Per word the description holds (and the name does not). */
  descriptionWords: number;
  /** Per word the arguments' names, descriptions or enum values hold (and neither of the others). */
  parameterWords: number;
  /** Times the share of the name's words that the question holds. */
  nameCoverage: number;
  /** Times the share of required arguments the question gives a value for. */
  grounded: number;
  /** Per argument whose value the question writes in its own kind or as an enum value (at most 2; see SkillFit.exact). */
  exact: number;
  /** The score at which calling and answering are even (before the model's own log-probabilities). */
  threshold: number;
  /** Logits per point of score, among skills. */
  scale: number;
  /** Logits per point of the best skill's score below (answer) or above (call) the threshold, between the two. */
  actionScale: number;
  /** Logits for the skill a call's item names by a word of its own ("the median and variance"). */
  namedBonus: number;
  /** Logits that move a run on after a result: calling for an item left or a chain, answering once none is left. */
  progress: number;
  /** Logits for a `calls` list where the question holds several items (against one call where it holds one), and for its length. */
  listBonus: number;
}

/**
 * The weights. The five fit weights are a logistic fit of "a call is wanted" (BFCL simple_python, multiple, parallel,
 * parallel_multiple) against "none is" (irrelevance) on the even-numbered questions (AUC 0.96): a word of the name
 * counts five times one of the description, and a required argument the question gives a value for counts most. The
 * threshold is where, on those questions, 72-74% of irrelevance is answered while 97-98% of the others still call.
 * Among skills, `scale` 8 logits a point: on even-numbered BFCL multiple questions Gemma 3 270M alone picked the right
 * skill in 59 of 100, fit alone in 95, both at 8 in 94; the model's log-probabilities decide only near-ties of fit.
 * `actionScale` (answer or call) is larger still: the model's own log-probability of `final_answer` at a reply's
 * start was below its 64 most likely tokens on 133 of 142 questions, so it tells nothing there.
 */
export const DECISION_WEIGHTS: DecisionWeights = {
  nameWords: 1.6,
  descriptionWords: 0.3,
  parameterWords: 0.7,
  nameCoverage: 1.6,
  grounded: 3.3,
  exact: 2,
  threshold: 4.5,
  scale: 8,
  actionScale: 30,
  namedBonus: 6,
  progress: 20,
  listBonus: 10,
};
