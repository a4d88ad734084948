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

/**
 * The total time one request may take, as a multiple of its idle timeout, when no total is given: the idle timer alone
 * lets a server that sends one byte a second keep a request open for ever. 5 x the default 2 min is 10 min, longer
 * than a CPU server takes to evaluate a long prompt and stream the default 512 tokens at a few tokens a second; with
 * `--http-timeout 3` it is 15 s. `--http-total-timeout` (option `totalTimeoutMs`) sets it outright.
 */
export const HTTP_TOTAL_TIMEOUT_FACTOR = 5;

/** Each probe of the server (dialect detection, the model list, `doctor`) is given this long without a byte. */
export const PROBE_TIMEOUT_MS = 5_000;

/**
 * ... and this long in all, however it trickles: a probe's answer is a few kilobytes (llama-server's `/props`, with
 * its chat template, is the largest) that any server sends at once.
 */
export const PROBE_TOTAL_TIMEOUT_MS = 10_000;

/**
 * `doctor --server`'s structured-output check (a 64-token request) is given this long in all unless
 * `--http-total-timeout` (or `--http-timeout`) says otherwise: a cold server that loads the model on its first request
 * (Ollama) answers well within it; a server that trickles one byte a second no longer holds `doctor` for 10 minutes.
 */
export const DOCTOR_TOTAL_TIMEOUT_MS = 120_000;

/** How a server error's body is shown in a message: at most this many characters of it. */
export const ERROR_BODY_CHARS = 300;

/**
 * The bounds on what a server sends, each on the bytes as decoded (after gzip, deflate or brotli: a 2 MB gzip bomb
 * that inflates to 2 GiB stops at the same bound as a plain body, having inflated no more than it). A body past a
 * bound is given up (`too_large`), its connection closed. Each is an option (`limits`) of the handle.
 *
 * A JSON answer read whole (the probes, the model list, `/tokenize`, `/apply-template`): `/tokenize` of a prompt that
 * fills a 128k context is about 1 MB of numbers; the model lists of hosted servers are well under 1 MB.
 */
export const MAX_JSON_BODY_BYTES = 8 * 1024 * 1024;

/**
 * An error status's body is read for its message only (ERROR_BODY_CHARS of it are shown): this much of it, for at
 * most ERROR_BODY_WAIT_MS, then the connection is closed and the status reported. A 429 or 500 with an endless or
 * trickling body is reported at once, not after the body ends.
 */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;
export const ERROR_BODY_WAIT_MS = 2_000;

/**
 * A streamed reply, all its bytes: an OpenAI-style chunk wraps each token in roughly 250-500 bytes (id, model,
 * created, fingerprint; llama-server's timings when asked for), so the default 512 tokens stream well under 1 MB and
 * 32,768 tokens under 16 MB. A stream past this (keep-alive comments, empty deltas for ever) is given up even while
 * it keeps within the time bound.
 */
export const MAX_STREAM_BYTES = 32 * 1024 * 1024;

/**
 * One line of a stream (an SSE field, an Ollama NDJSON message): one token's JSON is under 1 KB; a server that sends
 * a whole long reply in one message still fits. Lines are cut from bytes, in time linear in their length.
 */
export const MAX_STREAM_LINE_BYTES = 1024 * 1024;

/** One server-sent event: its `data:` lines together (an event that never gets its blank line grows no further). */
export const MAX_STREAM_EVENT_BYTES = 1024 * 1024;

/**
 * The reply's text, per token of the call's `maxTokens`: the longest pieces in the vocabularies we ship with are 31
 * characters (Gemma 3's 262,144 tokens) and 81 (SmolLM2's), so 256 is a bound no honest reply meets. With `maxTokens`
 * it bounds the text a server can make us hold: 512 tokens, 128K characters. Past it, the reply is cut there (like
 * `maxTokens`).
 */
export const MAX_REPLY_CHARS_PER_TOKEN = 256;

/**
 * Redirects followed within the server named (same scheme, host and port: a `/v1` that moved to `/v1/`). A redirect
 * to another host is refused (`redirected`): the prompts and the API key go only to the server the user named, and a
 * silent move to another host would send them, or fail later for a reason no message could name.
 */
export const MAX_SAME_ORIGIN_REDIRECTS = 5;

/** Compiled grammars kept per handle: an agent sends the same few action schemas (normal, answer-only) every step. */
export const GBNF_CACHE_SIZE = 16;
