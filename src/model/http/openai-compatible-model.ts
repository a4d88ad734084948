import { abortError, raceAbort } from "../../abort.js";
import { DEFAULT_MAX_TOKENS_PER_STEP } from "../../defaults.js";
import { createLimiter, type Limiter } from "../../promise-pool.js";
import { gemma3ChatFormat, type ChatFormat } from "../../prompt/chat-format.js";
import { decidedSchema } from "../grounding/decided-schema.js";
import { groundedSchema } from "../grounding/grounded-schema.js";
import type { GenerateOptions, GenerationStats, ModelHandle } from "../model-handle.js";
import { connectServer, type ServerConnection } from "./connect-server.js";
import {
  DEFAULT_HTTP_MAX_CONCURRENCY,
  DEFAULT_HTTP_RETRIES,
  DEFAULT_HTTP_TIMEOUT_MS,
  PROBE_TIMEOUT_MS,
  PROBE_TOTAL_TIMEOUT_MS,
} from "./defaults.js";
import { DIALECTS } from "./dialects.js";
import { HttpModelError } from "./http-model-error.js";
import { decodeMessages, messagesChatFormat } from "./messages-format.js";
import { openAIPiece, ollamaPiece, readReply, type ReplyBounds, type StreamedReply } from "./reply-stream.js";
import { wireRequest, type ReplyRequest } from "./request-body.js";
import { withRetries } from "./retry.js";
import { bodyLimits, streamMessages, type HttpBodyLimits } from "./bounded-body.js";
import { defaultTotalTimeoutMs } from "./request-watch.js";
import { openRequest, requestJson } from "./server-request.js";
import { ServerStats } from "./server-stats.js";
import { normalizeBaseURL, serverRoot } from "./server-url.js";
import { WireConstraints } from "./wire-constraints.js";
import type { HttpModelInfo, OpenAICompatibleModelOptions } from "./model-options.js";

export type { HttpModelInfo, OpenAICompatibleModelOptions, PromptMode, StructuredOutput } from "./model-options.js";

/** The state a handle shares with its forks. */
interface SharedState {
  limit: Limiter;
  constraints: WireConstraints;
  retries: number;
  calls: number;
  connecting?: Promise<ServerConnection> | undefined;
  connection?: ServerConnection;
}

/**
 * A model served over HTTP by an OpenAI-compatible server (llama.cpp's llama-server, vLLM, Ollama, LM Studio, OpenAI)
 * behind the {@link ModelHandle} interface: the same loop, grammar guarantee (the action schema goes to the server's
 * constrained decoding), events and reports as a local model. Every request streams (`onToken`), is cancelled by the
 * call's `signal`, gives up after `timeoutMs` of silence or `totalTimeoutMs` in all, and is retried with backoff on
 * connection errors, 429 and 503. What the server sends is bounded (`limits`: bytes, lines, events, decoded size) and
 * a reply is cut at the call's `maxTokens` pieces whatever the server does. Failures are {@link HttpModelError}s
 * with a stable `code`.
 */
export class OpenAICompatibleModel implements ModelHandle {
  readonly #options: OpenAICompatibleModelOptions & { baseURL: string };
  readonly #stats = new ServerStats();
  readonly #limits: HttpBodyLimits;
  /** What the forks of one handle share: the connection, the concurrency limit, compiled grammars, counters. */
  #shared: SharedState;

  constructor(options: OpenAICompatibleModelOptions) {
    this.#options = { ...options, baseURL: normalizeBaseURL(options.baseURL) };
    this.#limits = bodyLimits(options.limits);
    this.#shared = {
      limit: createLimiter(options.maxConcurrency ?? DEFAULT_HTTP_MAX_CONCURRENCY),
      constraints: new WireConstraints(),
      retries: 0,
      calls: 0,
    };
  }

  /**
   * A handle on the same server that shares this one's connection, concurrency limit and counters but keeps its own
   * `stats`: one per agent run when runs overlap on one server (an eval sweep), so each run's token counts are its own.
   */
  fork(): OpenAICompatibleModel {
    const twin = new OpenAICompatibleModel(this.#options);
    twin.#shared = this.#shared;
    return twin;
  }

  /**
   * Ask the server, once, what it is (dialect, models, llama-server's context and template) and check the options
   * against it; `generate` does it on first use. Call it before building an Agent in `completion` mode, so that the
   * agent renders with the server's Gemma format. Throws an {@link HttpModelError}; a later call asks again.
   */
  async connect(signal?: AbortSignal): Promise<HttpModelInfo> {
    this.#shared.connecting ??= this.#open().catch((error: unknown) => {
      this.#shared.connecting = undefined;
      throw error;
    });
    await raceAbort(this.#shared.connecting, signal);
    return this.info;
  }

  get info(): HttpModelInfo {
    const c = this.#shared.connection;
    const o = this.#options;
    const format = this.chatFormat;
    return {
      architecture: format === messagesChatFormat ? "unknown" : format.name,
      name: c?.model ?? o.model,
      contextLength: c?.contextSize ?? 0,
      vocabularySize: 0,
      quantization: "unknown",
      dialect: c?.dialect ?? o.dialect ?? "auto",
      detectedBy: c?.detectedBy ?? "not connected yet",
      baseURL: o.baseURL,
      promptMode: o.promptMode ?? "chat",
      structuredOutput:
        o.structuredOutput === "gbnf" || o.structuredOutput === "none" ? o.structuredOutput : "json-schema",
      models: c?.models,
      slots: c?.slots,
    };
  }

  /**
   * The decision crosses as the request's schema (decided-schema.ts: the branches it ranks low left out), wherever a
   * schema does: not with `structuredOutput: "none"`, where the model's own choice stands.
   */
  get scoresDecisions(): boolean {
    return this.#options.structuredOutput !== "none";
  }

  /** `chat` mode: messages (the server's template renders them); `completion`: a Gemma format. */
  get chatFormat(): ChatFormat {
    if ((this.#options.promptMode ?? "chat") === "chat") return messagesChatFormat;
    return this.#options.chatFormat ?? this.#shared.connection?.templateFormat ?? gemma3ChatFormat;
  }

  get stats(): GenerationStats {
    return this.#stats.snapshot;
  }

  /** Generate calls answered so far, by this handle and its forks. */
  get callsMade(): number {
    return this.#shared.calls;
  }

  /** Retries made so far (connection errors, 429, 503), over every request of this handle and its forks. */
  get retriesMade(): number {
    return this.#shared.retries;
  }

  /** llama-server: the context of one slot (the agent fits prompts into it); otherwise unknown. */
  get contextSize(): number | undefined {
    return this.#shared.connection?.contextSize;
  }

  /**
   * llama-server: the tokens this prompt takes on the server (`/tokenize`; in `chat` mode after `/apply-template`),
   * so that the agent can keep prompt + reply inside the server's context. Other servers cannot count.
   */
  async countTokens(prompt: string): Promise<number> {
    const connection = await this.#connect(undefined);
    if (!DIALECTS[connection.dialect].rawCompletion)
      throw new HttpModelError("unsupported", `${connection.dialect} servers cannot count tokens`);
    const root = serverRoot(this.#options.baseURL);
    let content = this.#rawPrompt(prompt, connection);
    if (this.chatFormat === messagesChatFormat) {
      const applied = await this.#json(`${root}/apply-template`, { messages: decodeMessages(prompt) });
      content = String((applied as { prompt?: unknown }).prompt ?? "");
    }
    const tokens = await this.#json(`${root}/tokenize`, { content, add_special: true, parse_special: true });
    const list = (tokens as { tokens?: unknown }).tokens;
    if (!Array.isArray(list)) throw new HttpModelError("bad_response", `${root}/tokenize answered no tokens`);
    return list.length;
  }

  async generate(prompt: string, options: GenerateOptions = {}): Promise<string> {
    const { signal } = options;
    if (signal?.aborted) throw abortError(signal.reason);
    const connection = await this.#connect(signal);
    return raceAbort(
      this.#shared.limit(() => {
        if (signal?.aborted) throw abortError(signal.reason);
        return this.#generateOn(connection, prompt, options);
      }),
      signal,
    );
  }

  /** Nothing to release (no connection is held between requests); here so the CLI treats every model alike. */
  dispose(): void {}

  async #connect(signal: AbortSignal | undefined): Promise<ServerConnection> {
    await this.connect(signal);
    return this.#shared.connection!;
  }

  async #open(): Promise<ServerConnection> {
    const o = this.#options;
    // a probe is never given longer than a request (a short --http-timeout bounds the probes too)
    const { timeoutMs, totalTimeoutMs } = this.#requestOptions();
    const target = {
      baseURL: o.baseURL,
      apiKey: o.apiKey,
      limits: this.#limits,
      timeoutMs: Math.min(PROBE_TIMEOUT_MS, timeoutMs),
      totalTimeoutMs: Math.min(PROBE_TOTAL_TIMEOUT_MS, totalTimeoutMs ?? defaultTotalTimeoutMs(timeoutMs)),
    };
    const connection = await withRetries(
      () => connectServer(target, { dialect: o.dialect ?? "auto", model: o.model }),
      this.#retryPolicy(undefined),
    );
    const traits = DIALECTS[connection.dialect];
    if (o.promptMode === "completion" && !traits.rawCompletion)
      throw new HttpModelError(
        "unsupported",
        `${o.baseURL} is a ${connection.dialect} server: completion mode (our own prompt, cache_prompt) needs llama-server; use chat mode`,
      );
    if (o.structuredOutput === "gbnf" && !traits.gbnf)
      throw new HttpModelError(
        "unsupported",
        `${o.baseURL} is a ${connection.dialect} server: a GBNF grammar needs llama-server; use structuredOutput json-schema`,
      );
    this.#shared.connection = connection;
    return connection;
  }

  #retryPolicy(signal: AbortSignal | undefined) {
    const o = this.#options;
    return {
      retries: o.retries ?? DEFAULT_HTTP_RETRIES,
      signal,
      random: o.random,
      onRetry: (error: HttpModelError, retry: number, delayMs: number) => {
        this.#shared.retries++;
        o.onRetry?.(error, retry, delayMs);
      },
    };
  }

  /** Our rendered prompt as llama-server takes it: without the BOS text it adds itself. */
  #rawPrompt(prompt: string, connection: ServerConnection): string {
    const bos = connection.bosText;
    return bos !== undefined && prompt.startsWith(bos) ? prompt.slice(bos.length) : prompt;
  }

  #replyRequest(connection: ServerConnection, prompt: string, options: GenerateOptions): ReplyRequest {
    const o = this.#options;
    const chat = this.chatFormat === messagesChatFormat;
    // the decision and grounding cross as the request's own schema (the decision's ranking of the branches, strict
    // grounding's limits; the per-token offsets and soft's steering cannot cross)
    const decided = options.jsonSchema && (decidedSchema(options.jsonSchema, options.decision) ?? options.jsonSchema);
    const grounded = decided && groundedSchema(decided, options.grounding);
    const constraint = this.#shared.constraints.for(grounded?.schema ?? decided, o.structuredOutput ?? "auto");
    const seed = o.seed;
    return {
      dialect: connection.dialect,
      model: connection.model,
      input: chat ? { messages: decodeMessages(prompt) } : { prompt: this.#rawPrompt(prompt, connection) },
      maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS_PER_STEP,
      temperature: options.temperature ?? o.temperature ?? 0,
      constraint,
      seed,
      ...(!chat && this.chatFormat.endOfTurn !== "" && { stop: [this.chatFormat.endOfTurn] }),
    };
  }

  async #generateOn(connection: ServerConnection, prompt: string, options: GenerateOptions): Promise<string> {
    const request = this.#replyRequest(connection, prompt, options);
    const wire = wireRequest(request);
    const bounds = { maxTokens: request.maxTokens, maxChars: request.maxTokens * this.#limits.replyCharsPerToken };
    const url = `${serverRoot(this.#options.baseURL)}${wire.path}`;
    let delivered = false;
    const startedMs = performance.now();
    let firstTextMs: number | undefined;
    const onText = (text: string) => {
      firstTextMs ??= performance.now();
      delivered = true;
      options.onToken?.(text);
    };
    const reply = await withRetries(
      () =>
        this.#streamOnce(url, wire, { signal: options.signal, bounds }, onText, () => delivered && !!options.onToken),
      this.#retryPolicy(options.signal),
    );
    this.#shared.calls++;
    const call = this.#stats.record(reply.usage, {
      startedMs,
      endedMs: performance.now(),
      firstTextMs,
    });
    options.onStats?.(call);
    return reply.text;
  }

  /** One streamed request; a connection lost after text reached `onToken` is not retried (the text was shown). */
  async #streamOnce(
    url: string,
    wire: ReturnType<typeof wireRequest>,
    call: { signal: AbortSignal | undefined; bounds: ReplyBounds },
    onText: (text: string) => void,
    shown: () => boolean,
  ): Promise<StreamedReply> {
    const { response, watch } = await openRequest({
      ...this.#requestOptions(),
      url,
      body: wire.body,
      signal: call.signal,
    });
    try {
      const format = wire.stream === "ndjson" ? "ndjson" : "sse";
      const messages = streamMessages(response, watch, format, this.#limits, url);
      return await readReply(messages, format === "ndjson" ? ollamaPiece : openAIPiece, url, onText, call.bounds);
    } catch (error) {
      const failure = watch.failure(error, url);
      if (failure instanceof HttpModelError && failure.retryable && shown())
        throw new HttpModelError(failure.code, `${failure.message} (after part of the reply was streamed)`, {
          url,
          retryable: false,
        });
      throw failure;
    } finally {
      watch.stop();
    }
  }

  /** The time bounds and body limits of every request this handle sends. */
  #requestOptions() {
    const o = this.#options;
    const timeoutMs = o.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
    return { timeoutMs, totalTimeoutMs: o.totalTimeoutMs, apiKey: o.apiKey, limits: this.#limits };
  }

  #json(url: string, body: unknown): Promise<unknown> {
    return withRetries(() => requestJson({ ...this.#requestOptions(), url, body }), this.#retryPolicy(undefined));
  }
}

/**
 * A {@link ModelHandle} for a model on an OpenAI-compatible server:
 * `openAICompatibleModel({ baseURL: "http://127.0.0.1:8080/v1", model: "gemma-3-270m" })`. Nothing is sent until
 * `connect()` or the first `generate`.
 */
export function openAICompatibleModel(options: OpenAICompatibleModelOptions): OpenAICompatibleModel {
  return new OpenAICompatibleModel(options);
}
