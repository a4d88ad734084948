import type { CallSkillAction, CallSkillsAction, FinalAnswerAction, ValidationErrorObservation } from "../actions/action.js";

/** Fields every event carries. */
export interface EventBase {
  /** The iteration (model call) the event belongs to, from 1. */
  step: number;
  /** Milliseconds since the run started. */
  at: number;
  /** Nesting depth: 0 for the run's own agent, 1+ for events forwarded from an agent used as a skill. */
  depth?: number;
}

export type CallSkillEvent = EventBase & CallSkillAction & {
  /** Set when the approval hook corrected the arguments: what the model wrote. */
  originalArguments?: Record<string, unknown>;
  /** Position of the call inside a parallel-calls action. */
  callIndex?: number;
};
export type CallSkillsEvent = EventBase & CallSkillsAction;
export type FinalAnswerEvent = EventBase & FinalAnswerAction;
export type ValidationErrorEvent = EventBase & ValidationErrorObservation;

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

/** A skill failed, was refused by a guard, timed out or was blocked; the model sees `message` and the skill list. */
export interface ToolErrorEvent extends EventBase {
  type: "tool-error";
  skillName: string;
  message: string;
  availableSkills: string[];
  /** The guard that refused the call (`arguments`, `scope`, `approval`, `repetition`, a custom guard's name). */
  guard?: string;
  callIndex?: number;
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
  | AbortedEvent;

/** The `type` names of events. */
export type AgentEventType = AgentEvent["type"];

/** Why a run stopped. */
export type StopReason = "answer" | "max_iterations" | "retries_exhausted" | "model_error" | "aborted";

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
  /** Calls identical (skill and arguments) to an earlier call of the run. */
  repeatedCalls: number;
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
export type EventInput = AgentEvent extends infer E ? (E extends AgentEvent ? Omit<E, "step" | "at"> & Partial<EventBase> : never) : never;
