import type { ChatFormat } from "../../prompt/chat-format.js";
import type { HttpBodyLimits } from "./bounded-body.js";
import type { ModelInfo } from "../model-handle.js";
import type { DialectOption, ServerDialect } from "./dialects.js";
import type { HttpModelError } from "./http-model-error.js";

/**
 * How prompts reach the server. `chat` (default): the agent's turns as chat messages, the server applies the model's
 * chat template. `completion` (llama-server): our own rendered Gemma prompt on `/v1/completions` with `cache_prompt`,
 * so that each step of a run evaluates only its new tokens, and decoding sees exactly the prompt the local loader would.
 */
export type PromptMode = "chat" | "completion";

/**
 * How a `jsonSchema` constrains replies. `auto` / `json-schema`: the schema in the dialect's own field
 * (`response_format`, Ollama's `format`); `gbnf`: our compiled GBNF as `grammar` (llama-server), the grammar the local
 * loader uses; `none`: unconstrained (the parser alone checks replies).
 */
export type StructuredOutput = "auto" | "json-schema" | "gbnf" | "none";

/** Options of {@link openAICompatibleModel}. */
export interface OpenAICompatibleModelOptions {
  /** e.g. `http://127.0.0.1:8080/v1` (a URL without a path gets `/v1`). */
  baseURL: string;
  /** The model name requests carry; `""`: the server's only model. */
  model: string;
  /** Sent as `Authorization: Bearer ...` (hosted servers; local ones need none). */
  apiKey?: string;
  /** Default `auto`: detected once, from what the server answers (see `info.dialect` and `info.detectedBy`). */
  dialect?: DialectOption;
  /** A request that receives nothing for this long is given up. Default DEFAULT_HTTP_TIMEOUT_MS (2 min). */
  timeoutMs?: number;
  /**
   * A request whose answer has not ended this long after it began is given up, however the server trickles. Default
   * HTTP_TOTAL_TIMEOUT_FACTOR x `timeoutMs` (10 min at the default).
   */
  totalTimeoutMs?: number;
  /** Bounds on what the server sends (bytes, a line, an event, reply text per token). Default DEFAULT_BODY_LIMITS. */
  limits?: Partial<HttpBodyLimits>;
  /** Retries after a connection error, 429 or 503, with backoff and jitter. Default DEFAULT_HTTP_RETRIES (3). */
  retries?: number;
  /** Requests in flight at once from this handle; more wait. Default DEFAULT_HTTP_MAX_CONCURRENCY (4). */
  maxConcurrency?: number;
  /** Default `chat`. `completion` needs llama-server. */
  promptMode?: PromptMode;
  /** Default `auto` (the JSON Schema in the dialect's field). `gbnf` needs llama-server. */
  structuredOutput?: StructuredOutput;
  /** `completion` mode: the turn markup to render. Default: the Gemma format of the server's chat template, else Gemma 3. */
  chatFormat?: ChatFormat;
  /** Sampling temperature when a call gives none. Default 0 (greedy), as the local loader. */
  temperature?: number;
  /** Sampling seed sent with every request (servers that take one). */
  seed?: number;
  /** Told before each retry: what failed, which retry (1-based), and the wait in ms. */
  onRetry?: (error: HttpModelError, retry: number, delayMs: number) => void;
  /** Random numbers in [0, 1) for the retry jitter. Default Math.random. */
  random?: () => number;
}

/** {@link ModelInfo} of a model on a server, plus which server it is and how it is spoken to. */
export interface HttpModelInfo extends ModelInfo {
  /** The dialect in use (`auto` until the first request or `connect()` found it). */
  dialect: ServerDialect | "auto";
  /** What decided the dialect: the server's answer that said so, or `given`. */
  detectedBy: string;
  baseURL: string;
  promptMode: PromptMode;
  /** The field constraining replies: `json-schema` (in the dialect's field), `gbnf` or `none`. */
  structuredOutput: "json-schema" | "gbnf" | "none";
  /** The models the server lists. */
  models?: readonly string[];
  /** llama-server: requests it decodes at once. */
  slots?: number;
}
