/** The node-llama-cpp loader: GGUF models behind the ModelHandle interface. */
export { loadModel, type LoadModelOptions } from "./load-model.js";
export { LlamaModelHandle, type LlamaModelInfo, type LlamaSamplingDefaults } from "./llama-model-handle.js";
export { jsonSchemaToGbnf, gbnfLiteral, JsonSchemaGrammarError } from "./json-schema-to-gbnf.js";
export { GrammarCache } from "./grammar-cache.js";
export { canonicalSchemaKey } from "./canonical-json.js";
export { defaultThreadCount } from "./threads.js";
export { getLlamaRuntime, backendOf, type LlamaBackend, type LlamaRuntime } from "./llama-runtime.js";
export { toModelLoadError } from "./load-errors.js";
export { modelChatFormat } from "./model-chat-format.js";
export { classifyTokens, type TokenClasses } from "./token-classes.js";
export {
  DEFAULT_CONTEXT_SIZE,
  DEFAULT_MAX_TOKENS,
  DEFAULT_TEMPERATURE,
  DEFAULT_TOP_K,
  DEFAULT_TOP_P,
  GRAMMAR_WRAP_UP_TOKENS,
  GRAMMAR_CACHE_SIZE,
  PROMPT_EVALUATION_SLICE,
  WRAP_UP_LOGIT_BIAS,
} from "./defaults.js";
