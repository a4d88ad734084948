import { CodedError } from "../coded-error.js";

/**
 * What happens to the oldest turns when a conversation outgrows its budget (after the old skill results went first):
 * `drop_oldest` leaves them out; `summarize_oldest` has the model write a summary that stands for them.
 */
export type TrimPolicy = "drop_oldest" | "summarize_oldest";

/** The trim policies, for checks and help texts. */
export const TRIM_POLICIES: readonly TrimPolicy[] = ["drop_oldest", "summarize_oldest"];

/** An agent's conversation memory (a definition's `memory`). */
export interface MemoryOptions {
  /**
   * Most tokens a prompt may have (the model's context size bounds it too, whichever is smaller), counted with the
   * model's tokenizer (an estimate, labelled, for a model without one). Default: the model's context alone.
   */
  tokenBudget?: number;
  /** Default `drop_oldest`. */
  trimPolicy?: TrimPolicy;
}

/** The system prompt and the message alone do not fit the budget: nothing can be trimmed to make room. */
export class MemoryBudgetError extends CodedError<"over_budget"> {
  override readonly name = "MemoryBudgetError";
  constructor(message: string) {
    super("over_budget", message);
  }
}
