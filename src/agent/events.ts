import type { CallSkillAction, CallSkillsAction, FinalAnswerAction, RefusedReply } from "../actions/action.js";
import type { DecisionBranch } from "../model/model-handle.js";

/** Fields every event carries. */
export interface EventBase {
  /** The iteration (model call) the event belongs to, from 1. */
  step: number;
  /** Milliseconds since the run started. */
  at: number;
  /** Nesting depth: 0 for the run's own agent, 1+ for events forwarded from an agent used as a skill. */
  depth?: number;
  /**
   * `workflow` on the events a workflow's own code made (see `Agent.run(workflow, query)`): its `ctx.call`s and
   * `ctx.agent`s (`call-skill`), the answer it returned (`final-answer`) and the validation errors of its `ctx.ask`s.
   * They carry no model reply of their own (a workflow's model calls are `model-call` events). Absent: the loop's.
   */
  origin?: "workflow";
}

export type CallSkillEvent = EventBase &
  CallSkillAction & {
    /** Set when the approval hook corrected the arguments: what the model wrote. */
    originalArguments?: Record<string, unknown>;
    /** Position of the call inside a parallel-calls action. */
    callIndex?: number;
    /**
     * The exact call (skill and arguments) was made before in this run and succeeded: it did not run again, the model
     * was shown the earlier result, and it is not a new call (evaluations do not count it).
     */
    repeated?: true;
  };
export type CallSkillsEvent = EventBase & CallSkillsAction;
export type FinalAnswerEvent = EventBase & FinalAnswerAction;
export type ValidationErrorEvent = EventBase & RefusedReply;

/** A skill ran and returned; `result` is the text the model sees (rendered, capped). */
export interface ObservationEvent extends EventBase {
  type: "observation";
  skillName: string;
  result: string;
  /** The result was longer than the cap and was cut. */
  truncated?: boolean;
  /** A warning shown to the model with the result (e.g. the same call gave the same result before). */
  warning?: string;
  callIndex?: number;
}

/**
 * How a step's reply was decided at its branch points (answer or call, which skill, another call in a list), where
 * the model handle scored them (AgentOptions.decision: a GGUF model in this process): each option's log-probability
 * under the model alone, its offset, and the option taken. Comes before the step's reply event.
 */
export interface DecisionEvent extends EventBase {
  type: "decision";
  branches: DecisionBranch[];
}

/** A skill failed, was refused by a guard, timed out or was blocked; the model sees `message` and the skill list. */
export interface ToolErrorEvent extends EventBase {
  type: "tool-error";
  skillName: string;
  message: string;
  availableSkills: string[];
  /** The guard that refused the call (`arguments`, `scope`, `approval`, `repetition`, a custom guard's name). */
  guard?: string;
  /** Shown to the model after the message: this exact call already failed the same way (what to change). */
  warning?: string;
  callIndex?: number;
}

/**
 * The next step is a final round: its grammar allows only a final answer and the model is told to answer now.
 * `reason`: `budget` (the last step of the iteration budget), `repeat` (the model repeated a call whose result it
 * had, or a call kept failing the same way and was blocked) or `done` (the decision found nothing left to call for:
 * every item of the question has its call and no result lets another skill run; AgentOptions.decision).
 */
export interface FinalRoundEvent extends EventBase {
  type: "final-round";
  reason: "budget" | "repeat" | "done";
}

/**
 * Earlier steps were left out of the prompt so that the prompt and the reply budget fit the model's context. The
 * system prompt, the question and the newest step are never dropped. `droppedSteps` counts the oldest steps left out
 * from now on (cumulative); the tokens are the prompt's before and after, measured with the model's tokenizer.
 */
export interface ContextTrimmedEvent extends EventBase {
  type: "context-trimmed";
  droppedSteps: number;
  promptTokensBefore: number;
  promptTokensAfter: number;
  contextSize: number;
  /** Tokens left for the reply (less than the step's maxTokens only when nothing more could be dropped). */
  replyTokens: number;
  /**
   * With a conversation (`Agent.invoke`): how far its earlier turns are trimmed, as a level of memory/history.ts (old
   * skill results taken out first, then whole old turns left out); `droppedSteps` then counts this turn's steps only.
   */
  historyLevel?: number;
  /** The memory's token budget the prompt was fitted to, when the agent has one. */
  tokenBudget?: number;
  /** The counts are estimates: the model has no tokenizer (see memory/token-counter.ts). */
  estimated?: true;
  /**
   * `compact` when the system prompt is in the compact style (skills as signature lines) from this step on: even with
   * every earlier step left out, the full one left too little room for a reply, so the run condensed it (set on that
   * event and on every later one of the run; `promptTokensBefore` is then the full prompt's count, on that event).
   */
  promptStyle?: "compact";
}

/** The iteration budget ran out without an answer. */
export interface MaxIterationsEvent extends EventBase {
  type: "max-iterations";
  iterations: number;
  /** One line on the last thing the model did. */
  lastActionSummary: string;
  /** A deep copy of the run's state at that point; later changes to the state do not show in it. */
  partialState: StateSnapshot;
}

/** The model call itself failed (threw). */
export interface ModelErrorEvent extends EventBase {
  type: "model-error";
  message: string;
}

/** The run was aborted through its signal. */
export interface AbortedEvent extends EventBase {
  type: "aborted";
  reason: string;
}

/** The token counts of one model call, as the call reported them (absent when the model reports none). */
export interface ModelCallTokens {
  /** Tokens in the prompt. */
  prompt: number;
  /** Tokens of the prompt that were evaluated (the rest came from the KV cache). */
  evaluatedPrompt: number;
  /** Tokens generated. */
  generated: number;
}

/**
 * One model call a workflow made (`ctx.ask`): what was asked, the reply verbatim, and its cost. Every attempt is one
 * event; an attempt whose reply failed its schema is followed by a `validation-error` (origin `workflow`) and, within
 * the run's retry budget, by the next attempt.
 */
export interface ModelCallEvent extends EventBase {
  type: "model-call";
  /** The text asked (ctx.ask's prompt), before chat markup. */
  prompt: string;
  /** The system text of the call, when it had one. */
  system?: string;
  /** The label the workflow gave the call (ctx.ask's `name`, e.g. a pattern's `classify`). */
  name?: string;
  /** The model's reply, verbatim. */
  raw: string;
  /** The call had a schema: its reply was constrained by it (when the grammar is on) and validated against it. */
  structured?: true;
  /** What the reply parsed to, when it had a schema and passed it. */
  value?: unknown;
  /** 1 for the first try of an ask, 2 and on for the retries after a validation error. */
  attempt: number;
  /** This call's tokens, when the model reports them. */
  tokens?: ModelCallTokens;
  /** Wall time of the call, ms. */
  ms: number;
}

/** A workflow threw: the run ends with `stopReason: "workflow_error"` (its skill and model failures are events too). */
export interface WorkflowErrorEvent extends EventBase {
  type: "workflow-error";
  /** The workflow's name. */
  workflow: string;
  /** What it threw, as text. */
  message: string;
}

/**
 * A milestone a workflow recorded (`ctx.note`): the route a router took, a gate that stopped a chain, the counts of a
 * vote, an evaluator's verdict. Informational: nothing reads it back.
 */
export interface WorkflowNoteEvent extends EventBase {
  type: "workflow-note";
  /** What kind of milestone: `route`, `gate`, `votes`, `critique`, ... */
  label: string;
  /** One line for people. */
  message: string;
  /** The milestone as plain JSON data. */
  data?: unknown;
}

/** Which of an agent's constraints (a definition's `constraints`) a run exceeded. */
export type ConstraintName = "max_latency_ms" | "max_total_tokens" | "forbidden_pattern";

/**
 * A run exceeded one of its agent's constraints (latency, total tokens, an answer matching a forbidden pattern): it
 * ends with `stopReason: "constraint_violated"`. Local models cost no money: their budget is tokens and time.
 */
export interface ConstraintViolatedEvent extends EventBase {
  type: "constraint-violated";
  constraint: ConstraintName;
  /** The limit: milliseconds, tokens, or the pattern as written. */
  limit: number | string;
  /** What the run reached: milliseconds or tokens (absent for a pattern). */
  actual?: number;
  /** The answer that matched the forbidden pattern (it is not the run's answer). */
  answer?: string;
  /** One line saying which constraint and by how much. */
  message: string;
}

/**
 * Something that did not stop the run but that its caller should know: `answer_at_max_iterations` (the budget ran
 * out and, as the agent's `onMaxIterations: "warn_and_return"` asks, the last answer candidate is returned),
 * `summary_failed` (the model could not summarize old turns: they were left out instead).
 */
export interface WarningEvent extends EventBase {
  type: "warning";
  code: "answer_at_max_iterations" | "summary_failed";
  message: string;
}

/**
 * The oldest turns of a conversation left its prompt and a summary the model wrote stands for them (`trim_policy:
 * summarize_oldest`); the summary's tokens count in the budget like any other text.
 */
export interface MemorySummarizedEvent extends EventBase {
  type: "memory-summarized";
  /** Turns the summary now stands for, counted from the conversation's start (an earlier summary's included). */
  summarizedTurns: number;
  /** `index` of the newest turn it stands for. */
  covers: number;
  summaryTokens: number;
  /** The counts are estimates (the model has no tokenizer). */
  estimated?: true;
}

/** Every event a run emits. */
export type AgentEvent =
  | CallSkillEvent
  | CallSkillsEvent
  | FinalAnswerEvent
  | ObservationEvent
  | ToolErrorEvent
  | ValidationErrorEvent
  | MaxIterationsEvent
  | ModelErrorEvent
  | AbortedEvent
  | FinalRoundEvent
  | ContextTrimmedEvent
  | ModelCallEvent
  | WorkflowErrorEvent
  | WorkflowNoteEvent
  | ConstraintViolatedEvent
  | WarningEvent
  | MemorySummarizedEvent
  | DecisionEvent;

/** The `type` names of events. */
export type AgentEventType = AgentEvent["type"];

/**
 * Why a run stopped. `workflow_error`: a workflow (not the loop) threw; `constraint_violated`: the run exceeded one of
 * its agent's constraints (a `constraint-violated` event says which).
 */
export type StopReason =
  | "answer"
  | "max_iterations"
  | "retries_exhausted"
  | "model_error"
  | "aborted"
  | "workflow_error"
  | "constraint_violated";

/** Counters of one run. */
export interface RunStats {
  modelCalls: number;
  skillCalls: number;
  validationErrors: number;
  /** Validation errors by `errorType` (or validator name when there is none). */
  validationErrorsByType: Record<string, number>;
  toolErrors: number;
  /** Replies whose final answer was empty (the small-model short-circuit). */
  emptyAnswers: number;
  /** Calls identical (skill and arguments) to an earlier call of the run, whether it succeeded or failed. */
  repeatedCalls: number;
  /** Steps whose grammar allowed only a final answer (see FinalRoundEvent). */
  finalRounds: number;
  /** Steps before which older steps were dropped from the prompt to fit the context. */
  contextTrims: number;
  /** From the model handle's stats, when it has them. */
  promptTokens: number;
  evaluatedPromptTokens: number;
  generatedTokens: number;
  /** Wall time of model calls, ms. */
  modelMs: number;
}

/** A plain, deep-copied picture of a run's state. */
export interface StateSnapshot {
  query: string;
  iterations: number;
  retries: number;
  answer?: string;
  stopReason?: StopReason;
  events: AgentEvent[];
  stats: RunStats;
}

/** Events without the `step` and `at` the stream adds. */
export type EventInput = AgentEvent extends infer E
  ? E extends AgentEvent
    ? Omit<E, "step" | "at"> & Partial<EventBase>
    : never
  : never;

/** An event that carries one model reply (one step): see {@link modelReplyOf}. */
export type ModelReplyEvent =
  CallSkillEvent | CallSkillsEvent | FinalAnswerEvent | ValidationErrorEvent | ModelCallEvent;

/**
 * The event as a model reply, or undefined when it is none. A reply is carried by a `call-skills`, `final-answer` or
 * `validation-error` event, or a `call-skill` that is not one call of a parallel `call-skills` reply (those carry a
 * `callIndex` and repeat a reply already carried), or a workflow's `model-call`. Events a workflow's code made
 * (`origin: "workflow"`) carry none. Each reply's `raw` is the text the model wrote.
 */
export function modelReplyOf(event: AgentEvent): ModelReplyEvent | undefined {
  if (event.origin === "workflow") return undefined;
  switch (event.type) {
    case "call-skill":
      return event.callIndex === undefined ? event : undefined;
    case "call-skills":
    case "final-answer":
    case "validation-error":
    case "model-call":
      return event;
    default:
      return undefined;
  }
}

/**
 * Whether the event belongs to the run of the agent at nesting depth `depth` (default 0, the top agent), and not to
 * an agent it used as a skill (whose events are forwarded with a greater depth).
 */
export function isOwnEvent(event: AgentEvent, depth = 0): boolean {
  return (event.depth ?? 0) === depth;
}
