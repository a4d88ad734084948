/** Offline evaluations: task suites, scripted and recorded models, BFCL scoring, the runner and its reports. */
export { evaluateSuite, evaluateBfcl, type EvaluateOptions, type EvaluateBfclOptions } from "./evaluate.js";
export { EvalSetupError, type EvalSetupErrorCode } from "./errors.js";
export {
  DEFAULT_EVAL_BUDGETS,
  DEFAULT_EVAL_SEEDS,
  DEFAULT_EVAL_NOW,
  DEFAULT_BFCL_BUDGETS,
  FIRST_SEED,
  SCRIPTED_CONCURRENCY,
  GGUF_CONCURRENCY,
  WORKER_GENERATE_TIMEOUT_MS,
  WORKER_EXIT_GRACE_MS,
} from "./constants.js";
export { seededRandom, hashSeed, type Random } from "./random.js";
export { loadSuite, parseSuite, parseSuiteText, formatIssuePath } from "./suite/load-suite.js";
export {
  suiteSchema,
  taskSchema,
  expectedSchema,
  dataSkillSchema,
  trajectoryStepSchema,
  SUITE_BUILTIN_SKILLS,
  type Suite,
  type SuiteTask,
  type Expected,
  type DataSkillDefinition,
  type TrajectoryStep,
} from "./suite/suite-schema.js";
export {
  checkExpected,
  answerEquals,
  answerIncludes,
  normalizeAnswer,
  callMatches,
  type ExpectationResult,
} from "./suite/check-expected.js";
export { dataSkill, normalizeLookupKey } from "./suite/data-skills.js";
export { suiteTasks } from "./suite/suite-tasks.js";
export { suiteSkills, taskRegistry } from "./suite/task-registry.js";
export {
  FAILURE_KINDS,
  FAILURE_PROFILES,
  failureProfile,
  failureProfileNames,
  checkFailureRates,
  drawFailure,
  type FailureKind,
  type FailureRates,
  type FailureProfileName,
} from "./models/failure-profiles.js";
export {
  fitFailureProfile,
  parseEvalReport,
  type FittedProfile,
  type FitBasis,
  type FitOptions,
} from "./models/fit-profile.js";
export {
  fitProfileFromReport,
  readEvalReport,
  readProfileFile,
  parseProfileFile,
  splitFitReference,
} from "./models/profile-file.js";
export {
  TrajectoryModel,
  type TrajectoryAction,
  type TrajectoryModelOptions,
  type InjectedFailure,
} from "./models/trajectory-model.js";
export {
  HeuristicModel,
  findExpression,
  findConversion,
  type HeuristicContext,
  type HeuristicLookup,
} from "./models/heuristic-model.js";
export {
  ReplayModel,
  ReplayMismatchError,
  readTrace,
  recordedSteps,
  type RecordedStep,
} from "./models/replay-model.js";
export { ChildProcessModel, ModelProcessError, type ChildProcessModelOptions } from "./models/child-process-model.js";
export type { ModelFactoryModule, WorkerServedModel, WorkerGenerateOptions } from "./models/worker-protocol.js";
export { parseModelSpec, type ModelSpec } from "./models/model-spec.js";
export { createModelProvider, type ModelProvider, type ProviderOptions } from "./runner/model-providers.js";
export { runEval, runTask, type RunEvalOptions, type EvalRuns, type EvalProgress } from "./runner/run-eval.js";
export { collectCalls } from "./runner/collect-calls.js";
export type { EvalTask, RunOutcome, Verdict } from "./runner/eval-task.js";
export type { RunRecord, RunStopReason } from "./runner/run-record.js";
export { buildReport, writeReport, type ReportInput } from "./report/build-report.js";
export { aggregateRuns, aggregateAll, convergence, categoryRates } from "./report/aggregate.js";
export { renderConvergenceSvg, escapeXml } from "./report/render-convergence-svg.js";
export { renderMarkdown } from "./report/render-markdown.js";
export { renderSummaryTable } from "./report/render-summary-table.js";
export { progressBar } from "./report/progress-bar.js";
export type {
  EvalReport,
  Aggregate,
  ConvergenceSeries,
  BfclSection,
  ExcludedQuestion,
  FailureRatesMeasured,
} from "./report/eval-report.js";
export {
  loadBfclCategory,
  bfclCheckKind,
  bfclFileName,
  type BfclCategory,
  type BfclQuestion,
  type BfclFunction,
  type BfclGroundTruth,
  type BfclCheckKind,
} from "./bfcl/bfcl-files.js";
export {
  bfclSkill,
  bfclRegistry,
  bfclParametersSchema,
  BfclConversionError,
  BFCL_SKILL_RESULT,
} from "./bfcl/bfcl-skills.js";
export {
  checkBfclCalls,
  checkBfclCall,
  standardizeString,
  jsonEqual,
  type BfclVerdict,
} from "./bfcl/check-bfcl-calls.js";
export { groundTruthCalls, materialize, type GroundTruthCalls } from "./bfcl/ground-truth.js";
export { bfclTasks, ORACLE_DONE, ORACLE_DECLINE, type BfclTasks } from "./bfcl/bfcl-tasks.js";
