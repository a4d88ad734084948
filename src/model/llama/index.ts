/**
 * The node-llama-cpp loader (`gemma-agent/llama`): load a GGUF model behind the ModelHandle interface. What a user
 * needs: `loadModel` and its options, the handle it returns and what the handle reports, and the errors. The grammar
 * compiler, the runtime and the tuning defaults are internals (import them from their files inside the project).
 */
export { loadModel, type LoadModelOptions } from "./load-model.js";
export { LlamaModelHandle, type LlamaModelInfo, type LlamaSamplingDefaults } from "./llama-model-handle.js";
export type { LlamaBackend } from "./llama-runtime.js";
export { MODEL_CALL_CHANNEL, type LiveSequences, type ModelCallMessage } from "./model-call-channel.js";
export type { SequenceUse } from "./sequence-slot.js";
export { JsonSchemaGrammarError, type JsonSchemaGrammarErrorCode } from "../gbnf/json-schema-keywords.js";
export { ModelLoadError, type ModelLoadErrorCode } from "../errors.js";
