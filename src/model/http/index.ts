/**
 * Models on OpenAI-compatible servers (`gemma-agent/http`): llama.cpp's llama-server, vLLM, Ollama, LM Studio, OpenAI,
 * behind the ModelHandle interface. No llama.cpp in this process: importing this loads no native code.
 */
export {
  openAICompatibleModel,
  OpenAICompatibleModel,
  type OpenAICompatibleModelOptions,
  type HttpModelInfo,
  type PromptMode,
  type StructuredOutput,
} from "./openai-compatible-model.js";
export { HttpModelError, type HttpModelErrorCode, type HttpModelErrorDetails } from "./http-model-error.js";
export {
  DIALECTS,
  DIALECT_NAMES,
  isServerDialect,
  type ServerDialect,
  type DialectOption,
  type DialectTraits,
} from "./dialects.js";
export { detectDialect, listServerModels, type DetectedDialect, type ProbeTarget } from "./detect-dialect.js";
export { parseServerModelUrl, isServerUrl, formatServerModel, type ServerModelRef } from "./server-url.js";
export { messagesChatFormat } from "./messages-format.js";
export { DEFAULT_BODY_LIMITS, type HttpBodyLimits } from "./bounded-body.js";
