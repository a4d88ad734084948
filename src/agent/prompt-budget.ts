import { DEFAULT_FIT_CONTEXT, DEFAULT_MAX_TOKENS_PER_STEP, MIN_REPLY_TOKENS } from "../defaults.js";
import type { ModelHandle } from "../model/model-handle.js";
import { MemoryBudgetError, type MemoryOptions } from "../memory/memory-options.js";
import { tokenCounter, type TokenCounter } from "../memory/token-counter.js";

/** How many tokens a step's prompt may have, and how they are counted. */
export interface PromptBudget {
  counter: TokenCounter;
  /** The model's context (Infinity when it does not say: only the token budget applies). */
  contextSize: number;
  /** The memory's token budget, when the agent has one. */
  tokenBudget?: number;
  /** Tokens a step's reply wants, and how far a constrained one may run past them. */
  replyTokens: number;
  replyOverrun: number;
  /** Most tokens a prompt may have with the whole reply budget left: min(token budget, context - reply - overrun). */
  limit: number;
}

/** What of the agent's options the budget depends on. */
export interface BudgetSettings {
  fitContext?: boolean;
  maxTokens?: number;
  memory?: MemoryOptions;
  /** Replies are constrained by a grammar (they may run past maxTokens by the model's replyOverrun). */
  grammar: boolean;
}

/**
 * The prompt budget of an agent on `model`, or undefined when prompts are not fitted: fitting is off, or the model
 * can neither count tokens with a context size nor has the agent a memory token budget (which an estimate can keep).
 */
export function promptBudget(model: ModelHandle, settings: BudgetSettings): PromptBudget | undefined {
  if (!(settings.fitContext ?? DEFAULT_FIT_CONTEXT)) return undefined;
  const tokenBudget = settings.memory?.tokenBudget;
  const measured = typeof model.countTokens === "function" && model.contextSize! > 0;
  if (!measured && tokenBudget === undefined) return undefined;
  const contextSize = model.contextSize! > 0 ? model.contextSize! : Infinity;
  const replyTokens = settings.maxTokens ?? DEFAULT_MAX_TOKENS_PER_STEP;
  const replyOverrun = settings.grammar ? (model.replyOverrun ?? 0) : 0;
  return {
    counter: tokenCounter(model),
    contextSize,
    ...(tokenBudget !== undefined && { tokenBudget }),
    replyTokens,
    replyOverrun,
    limit: Math.min(tokenBudget ?? Infinity, contextSize - replyTokens - replyOverrun),
  };
}

/**
 * Refuse, before any generation, a first prompt that cannot fit whatever is trimmed: the system prompt and the message
 * alone over the token budget, or leaving under MIN_REPLY_TOKENS of the context for a reply. `condensed` is the same
 * first prompt with the compact system prompt a run falls back on (see fitStep): when it fits, nothing is refused.
 * Throws MemoryBudgetError (about `prompt`).
 */
export async function checkFirstPrompt(budget: PromptBudget, prompt: string, condensed?: string): Promise<void> {
  const problem = await firstPromptProblem(budget, prompt);
  if (!problem || (condensed !== undefined && !(await firstPromptProblem(budget, condensed)))) return;
  throw problem;
}

/** Why `prompt` cannot be a first prompt under `budget`, or undefined when it can. */
async function firstPromptProblem(budget: PromptBudget, prompt: string): Promise<MemoryBudgetError | undefined> {
  const tokens = await budget.counter.count(prompt);
  const counted = `${tokens} tokens (${budget.counter.label})`;
  if (budget.tokenBudget !== undefined && tokens > budget.tokenBudget)
    return new MemoryBudgetError(
      `the system prompt and the message alone need ${counted}, more than the memory's token budget of ${budget.tokenBudget}: raise memory.token_budget, or shorten the soul, the tools or the message`,
    );
  if (budget.contextSize - tokens < MIN_REPLY_TOKENS)
    return new MemoryBudgetError(
      `the system prompt and the message alone need ${counted}, which leaves under ${MIN_REPLY_TOKENS} of the model's ${budget.contextSize}-token context for a reply: use a larger context size, or shorten the soul, the tools or the message`,
    );
  return undefined;
}
