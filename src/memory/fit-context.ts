import { CodedError } from "../coded-error.js";
import { MIN_REPLY_TOKENS, MIN_WRAP_UP_TOKENS } from "../defaults.js";

/**
 * What a step needs to know to fit its prompt into the model's context (and, with a memory, its token budget). The
 * prompt can be rendered at increasing trim levels, each leaving out more of the oldest material: for a run, level k
 * leaves out the k oldest steps; for a conversation, the first levels trim its history (old skill results, then old
 * turns: see memory/history.ts) and the next ones the run's steps.
 */
export interface FitInput {
  /** The prompt at trim level `drop`. */
  render(drop: number): string;
  /** Tokens of a whole prompt, as the model counts them. */
  countTokens(prompt: string): number | Promise<number>;
  contextSize: number;
  /** Tokens the step wants for its reply, and how far past them a constrained reply may run. */
  replyTokens: number;
  replyOverrun: number;
  /** The level already reached (it only grows: what was dropped stays dropped, so the KV cache stays valid longer). */
  dropped: number;
  /** Levels there are plus one (for a run: its steps so far); the last (the newest step) is never dropped. */
  steps: number;
  /** Most tokens the prompt may have (a conversation's token budget). Default: no limit but the context. */
  promptBudget?: number;
  /**
   * Trim in large chunks: once a trim is needed, go on through the first `levels` levels (a conversation's history)
   * until the prompt has at most `tokens` tokens, so that the next turns fit without trimming (each trim costs the
   * model one re-evaluation of the prompt).
   */
  trimTarget?: { tokens: number; levels: number };
  /** The system prompt is already in the compact style (the error's advice then leaves that out). */
  compact?: boolean;
  /**
   * A trim is under way whose prompt changed at the level reached (a summary took the place of the turns it left
   * out): fit it, to `trimTarget`, even when it fits as it is, and return the fit rather than undefined.
   */
  trimming?: boolean;
}

/** How a step fits: the trim level, prompt tokens before and after, tokens left for the reply. */
export interface ContextFit {
  droppedSteps: number;
  promptTokensBefore: number;
  promptTokensAfter: number;
  replyTokens: number;
}

/**
 * Even with every earlier step left out, the prompt leaves less than MIN_REPLY_TOKENS for a reply (code
 * `context_overflow`). The loop turns it into a `model-error` event; a caller of fitContext may switch on the code.
 */
export class ContextOverflowError extends CodedError<"context_overflow"> {
  override readonly name = "ContextOverflowError";
  /** Tokens of the prompt as it was first measured, before anything was left out. */
  readonly promptTokensBefore: number;

  constructor(message: string, promptTokensBefore: number) {
    super("context_overflow", message);
    this.promptTokensBefore = promptTokensBefore;
  }
}

/**
 * Keep prompt + reply (+ overrun) inside the context, and the prompt inside `promptBudget`: go to the lowest trim
 * level that makes the whole reply budget fit (further, to `trimTarget`, when one is given); when the last level is
 * still too large, shrink the reply budget, down to MIN_REPLY_TOKENS, and then the room kept for the overrun, down to
 * MIN_WRAP_UP_TOKENS. Returns undefined when the prompt fits as it is (unless `trimming`).
 */
export async function fitContext(input: FitInput): Promise<ContextFit | undefined> {
  const room = (tokens: number) => input.contextSize - tokens - input.replyOverrun;
  const budget = input.promptBudget ?? Infinity;
  const fits = (tokens: number) => room(tokens) >= input.replyTokens && tokens <= budget;
  let drop = input.dropped;
  const before = await input.countTokens(input.render(drop));
  let tokens = before;
  if (fits(tokens) && !input.trimming) return undefined;
  const maxDrop = Math.max(input.dropped, input.steps - 1);
  while (drop < maxDrop && !fits(tokens)) tokens = await input.countTokens(input.render(++drop));
  const target = input.trimTarget;
  if (target)
    while (drop < Math.min(maxDrop, target.levels) && tokens > target.tokens)
      tokens = await input.countTokens(input.render(++drop));
  let replyTokens = Math.min(input.replyTokens, room(tokens));
  // a step that asks for fewer reply tokens than MIN_REPLY_TOKENS needs only those
  const minReply = Math.min(MIN_REPLY_TOKENS, input.replyTokens);
  // Still short: keep only MIN_WRAP_UP_TOKENS of the overrun (closing a cut JSON value takes a few tokens).
  if (replyTokens < minReply)
    replyTokens = Math.min(
      input.replyTokens,
      room(tokens) + input.replyOverrun - Math.min(input.replyOverrun, MIN_WRAP_UP_TOKENS),
    );
  if (replyTokens < minReply) {
    const advice = input.compact
      ? "use a larger context size or fewer skills (the system prompt is already in the compact style)"
      : "use a larger context size, a shorter system prompt (compact style) or fewer skills";
    throw new ContextOverflowError(
      `the prompt needs ${tokens} tokens even with ${drop} earlier step(s) left out, which leaves ${Math.max(0, replyTokens)} of the ${input.contextSize}-token context for the reply (at least ${minReply} needed); ${advice}`,
      before,
    );
  }
  if (tokens > budget)
    throw new ContextOverflowError(
      `the prompt needs ${tokens} tokens even with all the older material left out (${drop} trim step(s)), over the memory's token budget of ${budget}; raise memory.token_budget or shorten the system prompt, the message or the skills' results`,
      before,
    );
  return { droppedSteps: drop, promptTokensBefore: before, promptTokensAfter: tokens, replyTokens };
}
