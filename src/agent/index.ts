export { Agent, type AgentOptions, type RunOptions } from "./agent.js";
export { AgentState, emptyRunStats } from "./agent-state.js";
export { EventStream } from "./event-stream.js";
export type {
  AgentEvent,
  AgentEventType,
  AbortedEvent,
  CallSkillEvent,
  CallSkillsEvent,
  EventBase,
  FinalAnswerEvent,
  MaxIterationsEvent,
  ModelErrorEvent,
  ObservationEvent,
  RunStats,
  StateSnapshot,
  StopReason,
  ToolErrorEvent,
  ValidationErrorEvent,
  ModelReplyEvent,
  ModelCallEvent,
  ModelCallTokens,
  WorkflowErrorEvent,
  WorkflowNoteEvent,
  ConstraintName,
  ConstraintViolatedEvent,
  ContextTrimmedEvent,
  FinalRoundEvent,
  MemorySummarizedEvent,
  WarningEvent,
} from "./events.js";
export type { InvokeOptions, InvokeResult, TurnTokens } from "./invoke.js";
export { LatencyExceeded, type AgentConstraints } from "./run-limits.js";
export type { RunUsage } from "./agent-state.js";
export { isOwnEvent, modelReplyOf } from "./events.js";
export { runValidators, type Validator, type ValidatorResult } from "./validator.js";
export { summarizeEvent } from "./summarize-event.js";
export { buildMessages, observationText } from "./build-messages.js";
export type { DispatchOptions } from "./dispatch-action.js";
export { agentAsSkill, type AgentAsSkillOptions } from "./agent-as-skill.js";
export { canonicalJson, callFingerprint, RepetitionTracker } from "./repetition.js";
export {
  isWorkflow,
  isWorkflowStop,
  workflowName,
  workflowOfModule,
  WorkflowCallError,
  WorkflowStop,
  type AgentCallOptions,
  type AgentSpec,
  type AgentTarget,
  type AskOptions,
  type NestedAgent,
  type Workflow,
  type WorkflowContext,
  type WorkflowFunction,
  type WorkflowLike,
  type WorkflowStateView,
} from "./workflow/workflow.js";
