/**
 * How an Agent is built and run: its options (AgentOptions, RunOptions, LoopSettings), their checks, and the system
 * prompts they give. agent.ts re-exports the types; the loop itself lives there.
 */
import { DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_RETRIES, DEFAULT_EXAMPLE_TRAJECTORY } from "../defaults.js";
import { type GroundingLever, type GroundingMode, type ModelHandle } from "../model/model-handle.js";
import { type ChatFormat } from "../prompt/chat-format.js";
import { buildSystemPrompt, type PromptStyle, type ThoughtPlacement } from "../prompt/system-prompt.js";
import { Registry } from "../skills/registry.js";
import type { Soul } from "../prompt/soul.js";
import { type AgentPolicies } from "./agent-policies.js";
import { type DispatchOptions } from "./dispatch-action.js";
import { isWorkflow, type WorkflowLike } from "./workflow/workflow.js";
import { type Validator } from "./validator.js";
import { type DecisionLever, type DecisionMode } from "../decision/step-decision.js";

/** How an Agent is built. */
export interface AgentOptions extends DispatchOptions, AgentPolicies {
  /** The model; required. */
  model: ModelHandle;
  /** The skills the model may call; required (may be empty). */
  registry: Registry;
  /** Identity at the top of the system prompt: a text, or a parsed SOUL.md (`parseSoul`). Default: prompts/soul.md. */
  soul?: string | Soul;
  /** The agent's name: spans (`invoke_agent <name>`), conversations, nested agents. Default "agent". */
  name?: string;
  /** What the agent is for (spans' `gen_ai.agent.description`). */
  description?: string;
  /** Checks run on every action, in order, after parsing. Default: none. */
  validators?: Validator[];
  /** Send the action JSON Schema so a loader constrains decoding. Default true (it removes syntax and schema errors). */
  grammar?: boolean;
  /** Tokens one step may generate. Default 512. */
  maxTokens?: number;
  /** Sampling temperature. Default: the model handle's own. */
  temperature?: number;
  /** Turn markup. Default: the model's `chatFormat`, else Gemma 3 turns. */
  chatFormat?: ChatFormat;
  /** Accept `{"calls": [...]}`: several calls in one step. Default false: small models do better with one. */
  parallelCalls?: boolean;
  /**
   * The last step of the budget (once the run has taken a step) and the step after a repeated call allow only a
   * final answer, under the grammar and in the prompt: the loop cannot end in a tool call. Default true.
   */
  finalRoundWithoutTools?: boolean;
  /** Where the action's `thought` goes: "first", "last" or "none". Default: DEFAULT_THOUGHT_PLACEMENT. */
  thought?: ThoughtPlacement;
  /** Longest `thought` under the grammar, in characters; 0: unbounded. Default: DEFAULT_MAX_THOUGHT_CHARS. */
  maxThoughtChars?: number;
  /** Longest `final_answer` under the grammar, in characters; 0: unbounded. Default: DEFAULT_MAX_ANSWER_CHARS. */
  maxAnswerChars?: number;
  /** System prompt style: "full" (skills' JSON Schemas) or "compact" (signatures). Default: DEFAULT_PROMPT_STYLE. */
  promptStyle?: PromptStyle;
  /**
   * Show one worked example conversation (call, result, answer; `prompts/example-trajectory.md`) after the action
   * format. Default: DEFAULT_EXAMPLE_TRAJECTORY.
   */
  exampleTrajectory?: boolean;
  /**
   * Document each skill's arguments one parameter a line (type, required, description, allowed values, default)
   * instead of its JSON Schema. Default: DEFAULT_PARAM_DETAILS in the full style, off in the compact one.
   */
  paramDetails?: boolean;
  /**
   * Before each step, measure the prompt with the model's tokenizer and leave out the oldest steps so that prompt +
   * reply fit the model's context (a `context-trimmed` event says what). Needs `countTokens` and `contextSize` on the
   * model. Default true.
   */
  fitContext?: boolean;
  /**
   * Ground argument and answer values in the question and the results (issue 26): each step's generate call carries
   * its source (the question, the conversation's user turns, the newest results; for a final round the results
   * first) and what not to copy (the system prompt, the runtime's notes). `off`, `soft` (a loader favours copying the
   * source and closes runaway values) or `strict` (values restricted to spans of the source, the schema's enum and
   * default values, its numerals). A model server or a scripted model ignores it. Default: DEFAULT_GROUNDING.
   */
  grounding?: GroundingMode;
  /**
   * Which parts of grounding act (`copy`, `numbers`, `strings`, `answers`; see GroundingLever): to measure each
   * alone. Default: all of them.
   */
  groundingLevers?: readonly GroundingLever[];
  /**
   * How a step's reply decides at its branch points (answer or call, which skill; issue 39): `off` (the model's own
   * choice) or `scored` (the model's log-probabilities plus each option's fit to the question: the words it shares
   * with a skill, the skill's required arguments the question gives values for). A loader that biases tokens applies
   * it (a GGUF model in this process); a model server gets the offsets' ranking as the request's schema; a scripted
   * model ignores it. Default: DEFAULT_DECISION.
   */
  decision?: DecisionMode;
  /** Which parts of the decision act (`fit`, `words`; see DecisionLever): to measure each alone. Default: all. */
  decisionLevers?: readonly DecisionLever[];
}

/** The settings that shape how the loop runs on a small model (issue 19's levers), as evaluations pass them on. */
export type LoopSettings = Pick<
  AgentOptions,
  | "finalRoundWithoutTools"
  | "thought"
  | "maxThoughtChars"
  | "maxAnswerChars"
  | "promptStyle"
  | "exampleTrajectory"
  | "paramDetails"
  | "fitContext"
  | "grounding"
  | "groundingLevers"
  | "decision"
  | "decisionLevers"
>;

/** Budgets and cancellation of one run. */
export interface RunOptions {
  /** Model calls at most. Default 8. A per-model budget (Gemma 4 E2B: 12) is the caller's to pass. */
  maxIterations?: number;
  /** Validation errors tolerated over the whole run. Default 3. */
  maxRetries?: number;
  /** Aborting stops the run promptly, also while the model generates or a skill runs. */
  signal?: AbortSignal;
}

export function checkLimit(name: string, value: unknown): void {
  if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0))
    throw new RangeError(`Agent: ${name} must be an integer >= 0 (got ${String(value)})`);
}

export type ResolvedRunOptions = Required<Pick<RunOptions, "maxIterations" | "maxRetries">> & { signal?: AbortSignal };

export function checkRunOptions(
  query: unknown,
  options: RunOptions,
  defaults: Pick<AgentOptions, "maxIterations" | "maxRetries"> = {},
): ResolvedRunOptions {
  if (typeof query !== "string" || query.trim() === "")
    throw new TypeError("Agent.run: query must be a non-empty string");
  const {
    maxIterations = defaults.maxIterations ?? DEFAULT_MAX_ITERATIONS,
    maxRetries = defaults.maxRetries ?? DEFAULT_MAX_RETRIES,
    signal,
  } = options;
  if (!Number.isInteger(maxIterations) || maxIterations < 1)
    throw new RangeError(`Agent.run: maxIterations must be an integer >= 1 (got ${String(maxIterations)})`);
  if (!Number.isInteger(maxRetries) || maxRetries < 0)
    throw new RangeError(`Agent.run: maxRetries must be an integer >= 0 (got ${String(maxRetries)})`);
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw new TypeError("Agent.run: signal must be an AbortSignal");
  return { maxIterations, maxRetries, signal };
}

/**
 * The arguments of `run` / `runStream`: `(query, options?)` or `(workflow, query, options?)`. Anything else is a caller
 * bug (TypeError).
 */
export function runArguments(
  method: string,
  first: unknown,
  second: unknown,
  third: RunOptions | undefined,
): { query: string; options: RunOptions; workflow?: WorkflowLike } {
  if (typeof first === "string") return { query: first, options: (second as RunOptions | undefined) ?? {} };
  if (!isWorkflow(first)) throw new TypeError(`Agent.${method}: give a query string, or a workflow and a query string`);
  return { query: second as string, options: third ?? {}, workflow: first };
}

/**
 * The agent's system prompt in its style and, for an agent in the full style, the compact one a run condenses to when
 * even its newest step alone leaves too little room for a reply (see fitStep): skills as signature lines, without the
 * worked example.
 */
export function systemPrompts(
  registry: Registry,
  options: AgentOptions,
  shape: { style: PromptStyle; parallelCalls: boolean; thought: ThoughtPlacement },
): { full: string; compact: string | undefined } {
  const common = {
    soul: options.soul,
    parallelCalls: shape.parallelCalls,
    thought: shape.thought,
    outputSchema: options.outputSchema,
  };
  const paramDetails = options.paramDetails;
  const exampleTrajectory = options.exampleTrajectory ?? DEFAULT_EXAMPLE_TRAJECTORY;
  return {
    full: buildSystemPrompt(registry, { ...common, style: shape.style, exampleTrajectory, paramDetails }),
    compact:
      shape.style === "full"
        ? buildSystemPrompt(registry, { ...common, style: "compact", exampleTrajectory: false, paramDetails: false })
        : undefined,
  };
}
