import type { Token } from "./token.js";
import type { Candidates, DecisionSteer } from "./decision-steer.js";
import type { Steering } from "./grounding-steer.js";

/** What steers one constrained reply token by token: the decision at its branch points, grounding in its values. */
export interface ReplySteer {
  /** The bias for the token after `text` (the whole reply so far, only ever extended). */
  next(text: string): Steering;
  /** The token picked after the last `next`, with the candidates where the sampler read them. */
  picked(token: Token, candidates: Candidates | undefined): void;
}

const NONE: Steering = { type: "none" };

/**
 * The decision and grounding of one reply as one steer: both read every text; at a branch point the decision's bias
 * is the one taken (grounding steers values, which no branch point is in), elsewhere grounding's, with the decision's
 * offsets on the tokens that end a call of a `calls` list where a value may end.
 */
export function replySteer(
  decision: DecisionSteer | undefined,
  grounding: { next(text: string): Steering } | undefined,
): ReplySteer {
  return {
    next(text) {
      const values = grounding?.next(text) ?? NONE;
      const choice = decision?.next(text);
      if (!choice) return values;
      if (values.type === "none") return choice;
      if (values.type !== "bias" || choice.type !== "bias") return values;
      // a value's end inside a `calls` list: grounding's bias, the list's offsets on the tokens that close the call;
      // where grounding keeps the arguments open (a malus on closing them: an optional argument the question asks for
      // is still to come), the best of those tokens keeps that malus and the others fall below it (the list's +10 on
      // `}},` had every call of a parallel reply leave out the `region` the question named)
      const merged = new Map(values.logits);
      const top = Math.max(...choice.logits.values());
      for (const [token, offset] of choice.logits) {
        const kept = values.logits.get(token);
        merged.set(token, kept !== undefined && kept < 0 ? kept + offset - top : offset);
      }
      return { type: "bias", logits: merged };
    },
    picked(token, candidates) {
      decision?.picked(token, candidates);
    },
  };
}
