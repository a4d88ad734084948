import { abortError } from "../../abort.js";
import { describeNetworkFailure } from "../network-failure.js";
import { ERROR_BODY_CHARS } from "./defaults.js";
import { HttpModelError } from "./http-model-error.js";

/** One request to a model server. */
export interface ServerRequest {
  url: string;
  method?: "GET" | "POST";
  /** Sent as JSON. */
  body?: unknown;
  apiKey?: string;
  /** Give up when nothing arrives for this long (headers, then each piece of the body). */
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * An idle timer over one request: it aborts the request's own controller when nothing has arrived for `timeoutMs`;
 * `touch()` on each piece of the body restarts it. The caller's signal aborts the same controller.
 */
export class RequestWatch {
  readonly controller = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timedOut = false;
  readonly #timeoutMs: number;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort = () => this.controller.abort(this.#signal?.reason);

  constructor(timeoutMs: number, signal: AbortSignal | undefined) {
    this.#timeoutMs = timeoutMs;
    this.#signal = signal;
    if (signal?.aborted) this.controller.abort(signal.reason);
    else signal?.addEventListener("abort", this.#onAbort, { once: true });
    this.touch();
  }

  /** Something arrived: the idle time starts again. */
  touch(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.controller.abort(new Error("timeout"));
    }, this.#timeoutMs);
  }

  /** The request is over: no more timer, no more listening on the caller's signal. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#signal?.removeEventListener("abort", this.#onAbort);
  }

  /**
   * The error to throw for a failure of this request: an AbortError when the caller aborted, `timeout` when the
   * timer fired, `unreachable` for a connection that failed or dropped, the error itself otherwise.
   */
  failure(error: unknown, url: string): unknown {
    if (this.#signal?.aborted) return abortError(this.#signal.reason);
    if (this.#timedOut)
      return new HttpModelError(
        "timeout",
        `the model server at ${url} sent nothing for ${Math.round(this.#timeoutMs / 1000)} s (a hung or overloaded server; raise the timeout for a slow one)`,
        { url },
      );
    if (error instanceof HttpModelError || (error instanceof Error && error.name === "AbortError")) return error;
    if (error instanceof SyntaxError) return new HttpModelError("bad_response", `${url}: ${error.message}`, { url });
    const failure = describeNetworkFailure(error);
    return new HttpModelError(
      "unreachable",
      `cannot reach the model server at ${url}: ${failure.what}${failure.code ? ` (${failure.code})` : ""}. Is it running? Start one (e.g. llama-server -m MODEL.gguf --host 127.0.0.1 --port 8080) or check the URL`,
      { url, cause: error },
    );
  }
}

/** `Retry-After` in ms: seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The message a server put in an error body (`{"error": {"message": ...}}`, `{"error": "..."}`), else the text. */
export function serverErrorText(body: string): string {
  let text = body.trim();
  try {
    const parsed = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
    const error = parsed.error;
    if (typeof error === "string") text = error;
    else if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string")
      text = (error as { message: string }).message;
    else if (typeof parsed.message === "string") text = parsed.message;
    else if (typeof parsed.detail === "string") text = parsed.detail;
  } catch {
    // not JSON: the text as it is
  }
  return text.length > ERROR_BODY_CHARS ? `${text.slice(0, ERROR_BODY_CHARS)}...` : text;
}

/**
 * Send one request and return the response once its headers are in and its status is 2xx, with the watch that keeps
 * timing the body (the caller reads the body, touching the watch, and stops it). A non-2xx status is an
 * `HttpModelError("http_error")` with the server's message; a failed connection `unreachable`; silence `timeout`.
 */
export async function openRequest(request: ServerRequest): Promise<{ response: Response; watch: RequestWatch }> {
  const watch = new RequestWatch(request.timeoutMs, request.signal);
  try {
    const headers: Record<string, string> = { accept: "application/json, text/event-stream, application/x-ndjson" };
    if (request.body !== undefined) headers["content-type"] = "application/json";
    if (request.apiKey) headers.authorization = `Bearer ${request.apiKey}`;
    const response = await fetch(request.url, {
      method: request.method ?? (request.body === undefined ? "GET" : "POST"),
      headers,
      ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
      signal: watch.controller.signal,
    });
    watch.touch();
    if (!response.ok) {
      const text = serverErrorText(await response.text());
      const wait = retryAfterMs(response);
      throw new HttpModelError(
        "http_error",
        `the model server at ${request.url} answered ${response.status}${text ? `: ${text}` : ""}`,
        { url: request.url, status: response.status, retryAfterMs: wait },
      );
    }
    return { response, watch };
  } catch (error) {
    watch.stop();
    throw watch.failure(error, request.url);
  }
}

/** A GET or POST whose answer is one JSON document (probes, `/tokenize`, the model list). */
export async function requestJson(request: ServerRequest): Promise<unknown> {
  const { response, watch } = await openRequest(request);
  try {
    const text = await response.text();
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new HttpModelError("bad_response", `${request.url} did not answer JSON: ${text.slice(0, 120)}`, {
        url: request.url,
      });
    }
  } catch (error) {
    throw watch.failure(error, request.url);
  } finally {
    watch.stop();
  }
}
