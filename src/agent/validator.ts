import type { Action, RefusedReply } from "../actions/action.js";
import { renderPrompt } from "../prompt-texts.js";
import { describeThrown } from "../safe-stringify.js";
import type { AgentState } from "./agent-state.js";

/** What a validator says of an action. `feedback` is shown to the model. */
export type ValidatorResult = { ok: true } | { ok: false; feedback: string };

/**
 * A check run on every action the model writes, after parsing. A failure becomes a validation-error event with the
 * validator's name; the model sees the feedback in the next prompt, and the failure counts against maxRetries.
 */
export interface Validator {
  readonly name: string;
  check(action: Action, state: Readonly<AgentState>): ValidatorResult | Promise<ValidatorResult>;
}

/** Run the validators in order; the first failure wins. A validator that throws fails with its error as feedback. */
export async function runValidators(
  validators: readonly Validator[],
  action: Action,
  state: AgentState,
): Promise<RefusedReply | undefined> {
  for (const validator of validators) {
    let result: ValidatorResult;
    try {
      result = await validator.check(action, state);
    } catch (error) {
      result = { ok: false, feedback: describeThrown(error) };
    }
    if (!result.ok) {
      return {
        type: "validation-error",
        validatorName: validator.name,
        feedback: renderPrompt("feedback/validator", { validator: validator.name, detail: result.feedback }),
        raw: action.raw,
        ...(action.type === "final-answer" && { answer: action.answer }),
      };
    }
  }
  return undefined;
}
