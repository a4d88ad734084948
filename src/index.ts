/** gemma-agent's public API. Test doubles are in `gemma-agent/testing`. */
export {
  Agent,
  AgentState,
  EventStream,
  summarizeEvent,
  agentAsSkill,
  type AgentAsSkillOptions,
  type AgentOptions,
  type RunOptions,
  type AgentEvent,
  type AgentEventType,
  type StopReason,
  type RunStats,
  type StateSnapshot,
  type Validator,
  type ValidatorResult,
} from "./agent/index.js";
export type {
  CallSkillEvent,
  CallSkillsEvent,
  FinalAnswerEvent,
  ObservationEvent,
  ToolErrorEvent,
  ValidationErrorEvent,
  MaxIterationsEvent,
  ModelErrorEvent,
  AbortedEvent,
} from "./agent/index.js";
export {
  parseAction,
  buildActionJsonSchema,
  type Action,
  type CallSkillAction,
  type FinalAnswerAction,
  type ParsedReply,
  type RefusedReply,
  type ValidationErrorObservation,
} from "./actions/index.js";
export {
  defineSkill,
  Registry,
  type Skill,
  type SkillContext,
  type ApprovalDecision,
  type ApprovalHook,
  type Guard,
} from "./skills/index.js";
export {
  gemma3ChatFormat,
  gemma4ChatFormat,
  neutralizeControlText,
  type ChatFormat,
  type ChatMessage,
} from "./prompt/index.js";
export type { ModelHandle, GenerateOptions, GenerationStats, ModelInfo, JsonSchema } from "./model/index.js";
export { ModelLoadError, DownloadError, type ModelLoadErrorCode, type DownloadErrorCode } from "./model/index.js";
export {
  loadCatalog,
  findCatalogEntry,
  defaultModelAlias,
  budgetsFor,
  modelsDir,
  modelsDirs,
  listLocalModels,
  resolveModelFile,
  pullModel,
  type CatalogEntry,
  type ModelBudgets,
  type PullProgress,
  type PullResult,
} from "./model/index.js";
export {
  builtinSkills,
  BUILTIN_SKILL_NAMES,
  createFileSkills,
  AllowDirError,
  FileAccessError,
  type BuiltinSkillsOptions,
} from "./skills/builtin/index.js";
