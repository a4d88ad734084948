/**
 * Runtime defaults of the OpenAI-compatible server handle (`gemma-agent/http`), each with its reason. Options of
 * `openAICompatibleModel` override them per handle.
 */

/**
 * A request that receives nothing for this long (no response headers, then no streamed piece) is given up: a CPU
 * server evaluating a long first prompt sends no token for tens of seconds; two minutes without a byte is a hung one.
 */
export const DEFAULT_HTTP_TIMEOUT_MS = 120_000;

/**
 * Retries of one request after a connection error, a 429 or a 503 (never after another 4xx, which a retry would only
 * repeat). 3 rides out a server restart or a short overload; more would only delay the error a person must act on.
 */
export const DEFAULT_HTTP_RETRIES = 3;

/**
 * Backoff before retry n (0-based): a random wait between 0 and min(RETRY_MAX_DELAY_MS, RETRY_BASE_DELAY_MS * 2^n)
 * ("full jitter"), so that the clients of one restarted server do not all come back in the same millisecond. A
 * server's `Retry-After` wins when it asks for longer (capped by RETRY_MAX_DELAY_MS).
 */
export const RETRY_BASE_DELAY_MS = 250;
export const RETRY_MAX_DELAY_MS = 8_000;

/**
 * Requests one handle has in flight at once; more wait in the handle. A single-slot llama-server queues what it
 * cannot run anyway; 4 keeps a server with parallel slots busy without flooding it.
 */
export const DEFAULT_HTTP_MAX_CONCURRENCY = 4;

/** Each probe of the server (dialect detection, the model list, `doctor`) is given this long. */
export const PROBE_TIMEOUT_MS = 5_000;

/** How a server error's body is shown in a message: at most this many characters of it. */
export const ERROR_BODY_CHARS = 300;

/** Compiled grammars kept per handle: an agent sends the same few action schemas (normal, answer-only) every step. */
export const GBNF_CACHE_SIZE = 16;
