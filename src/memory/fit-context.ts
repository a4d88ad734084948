import { MIN_REPLY_TOKENS, MIN_WRAP_UP_TOKENS } from "../defaults.js";

/** What a step needs to know to fit its prompt into the model's context. */
export interface FitInput {
  /** The prompt with the `drop` oldest steps left out. */
  render(drop: number): string;
  /** Tokens of a whole prompt, as the model counts them. */
  countTokens(prompt: string): number | Promise<number>;
  contextSize: number;
  /** Tokens the step wants for its reply, and how far past them a constrained reply may run. */
  replyTokens: number;
  replyOverrun: number;
  /** Steps already left out (the count only grows: what was dropped stays dropped, so the KV cache stays valid longer). */
  dropped: number;
  /** Steps so far; the newest is never dropped. */
  steps: number;
}

/** How a step fits: steps to leave out, prompt tokens before and after, tokens left for the reply. */
export interface ContextFit {
  droppedSteps: number;
  promptTokensBefore: number;
  promptTokensAfter: number;
  replyTokens: number;
}

/** Even with every earlier step left out, the prompt leaves less than MIN_REPLY_TOKENS for a reply. */
export class ContextOverflowError extends Error {
  override readonly name = "ContextOverflowError";
}

/**
 * Keep prompt + reply (+ overrun) inside the context: leave out the fewest oldest steps that make the whole reply
 * budget fit; when the newest step alone is still too large, shrink the reply budget, down to MIN_REPLY_TOKENS, and
 * then the room kept for the overrun, down to MIN_WRAP_UP_TOKENS.
 * Returns undefined when the prompt fits as it is.
 */
export async function fitContext(input: FitInput): Promise<ContextFit | undefined> {
  const room = (tokens: number) => input.contextSize - tokens - input.replyOverrun;
  let drop = input.dropped;
  const before = await input.countTokens(input.render(drop));
  let tokens = before;
  if (room(tokens) >= input.replyTokens) return undefined;
  const maxDrop = Math.max(input.dropped, input.steps - 1);
  while (drop < maxDrop && room(tokens) < input.replyTokens) tokens = await input.countTokens(input.render(++drop));
  let replyTokens = Math.min(input.replyTokens, room(tokens));
  // Still short: keep only MIN_WRAP_UP_TOKENS of the overrun (closing a cut JSON value takes a few tokens).
  if (replyTokens < MIN_REPLY_TOKENS)
    replyTokens = Math.min(
      input.replyTokens,
      room(tokens) + input.replyOverrun - Math.min(input.replyOverrun, MIN_WRAP_UP_TOKENS),
    );
  if (replyTokens < MIN_REPLY_TOKENS) {
    throw new ContextOverflowError(
      `the prompt needs ${tokens} tokens even with ${drop} earlier step(s) left out, which leaves ${Math.max(0, replyTokens)} of the ${input.contextSize}-token context for the reply (at least ${MIN_REPLY_TOKENS} needed); use a larger context size, a shorter system prompt (compact style) or fewer skills`,
    );
  }
  return { droppedSteps: drop, promptTokensBefore: before, promptTokensAfter: tokens, replyTokens };
}
