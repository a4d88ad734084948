/**
 * Runtime defaults of the node-llama-cpp loader (loading and running a model), each with its reason. Options of
 * `loadModel` override them per handle. Decoding's defaults (sampling, the grammar's levers) are in
 * ../decoding/defaults.ts, grounding's in ../grounding/defaults.ts.
 */

/**
 * Context window (tokens) when `contextSize` is not given, capped at what the model was trained for. An agent run's
 * prompt (system text, skill list, 8-12 steps of history) fits in 8,192 tokens; its KV cache stays well under 1 GB for
 * Gemma E2B/E4B, where the trained 32k-128k would cost several GB on a laptop.
 */
export const DEFAULT_CONTEXT_SIZE = 8192;

/**
 * Prompt tokens evaluated per batch before the abort signal is checked again: node-llama-cpp's batch size. A long
 * prompt is evaluated in these slices so that an abort lands between two of them.
 */
export const PROMPT_EVALUATION_SLICE = 512;

/**
 * The prompt cache keeps at most this many bytes of saved states (least recently used go first): 1 GiB holds the
 * system prompts of dozens of agents on a small model (Gemma 3 270M: about 18 KB a token) and several on a larger one.
 */
export const DEFAULT_PROMPT_CACHE_MAX_BYTES = 1 << 30;

/** ... and at most this many entries: one per agent (system prompt) and model in practice. */
export const DEFAULT_PROMPT_CACHE_MAX_ENTRIES = 64;

/**
 * A shared prompt opening shorter than this many tokens is not worth a state file: loading one costs about as much
 * as evaluating a few dozen tokens.
 */
export const PROMPT_CACHE_MIN_TOKENS = 64;

/**
 * Native garbage a process may gather before a full garbage collection (see NativeGarbage): node-llama-cpp's
 * samplers, whose whole-vocabulary buffers only V8's collector frees and V8 does not count. 256 MiB is a collection
 * every 6 calls on Gemma's vocabulary (about 50 ms each on a busy 2-core machine, against calls of 100 ms on the
 * fixture model and seconds on a real one), every 32 on SmolLM2's.
 */
export const NATIVE_GARBAGE_MAX_BYTES = 256 * 1024 * 1024;

/**
 * Samplers node-llama-cpp makes in one agent call (each evaluation makes one: the prompt's slices, the reply's
 * generators, speculation batches, full passes): 12 to 14 a call, measured on the fixture model over evals/basic.json
 * (budgets 1 and 3). Each holds 12 bytes a vocabulary token.
 */
export const SAMPLERS_PER_CALL = 14;
