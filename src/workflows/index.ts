/** Workflows: code-driven runs (`agent.run(workflow, query)`) and the five patterns, as small composable steps. */
export { defineWorkflow } from "./define-workflow.js";
export {
  prompt,
  runStep,
  inputText,
  type Step,
  type StepFunction,
  type NamedStep,
  type PromptStep,
  type AgentStep,
} from "./step.js";
export { chain, type ChainOptions, type Gate, type GateVerdict } from "./chain.js";
export { router, type RouterOptions, type ClassifyOptions } from "./router.js";
export { parallel, type ParallelOptions, type VoteResult } from "./parallel.js";
export {
  orchestratorWorkers,
  renderResults,
  type OrchestratorWorkersOptions,
  type WorkerResult,
} from "./orchestrator-workers.js";
export type { PromptSpec } from "./prompt-spec.js";
export {
  evaluatorOptimizer,
  critiqueSchema,
  type Critique,
  type DraftRequest,
  type DraftReview,
  type EvaluatorOptimizerOptions,
} from "./evaluator-optimizer.js";
export {
  isWorkflow,
  isWorkflowStop,
  workflowName,
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
} from "../agent/workflow/workflow.js";
