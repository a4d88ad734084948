/** Models without llama.cpp: the ModelHandle contract, the catalog, the models directory, downloads, GGUF headers. */
export type {
  ModelHandle,
  GenerateOptions,
  GenerationStats,
  CallStats,
  GroundingMode,
  GroundingLever,
  GroundingOptions,
  FailedValue,
  ModelInfo,
  JsonSchema,
} from "./model-handle.js";
export { GROUNDING_LEVERS } from "./model-handle.js";
export { ModelLoadError, DownloadError, type ModelLoadErrorCode, type DownloadErrorCode } from "./errors.js";
export {
  loadCatalog,
  findCatalogEntry,
  catalogFileFor,
  defaultModelAlias,
  budgetsFor,
  splitModelSpec,
  type Catalog,
  type CatalogEntry,
  type CatalogFile,
  type ModelBudgets,
} from "./catalog.js";
export {
  modelsDir,
  modelsDirs,
  listLocalModels,
  catalogDownloadStatus,
  type LocalModel,
  type CatalogDownloadStatus,
} from "./models-dir.js";
export { resolveModelFile, isModelPath, type ResolvedModel, type ResolveModelOptions } from "./resolve-model.js";
export { pullModel, type PullOptions, type PullProgress, type PullResult } from "./download/pull-model.js";
export { readGgufHeader, GgufHeaderError, type GgufHeader } from "./gguf/gguf-header.js";
