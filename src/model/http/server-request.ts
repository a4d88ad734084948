import { DEFAULT_BODY_LIMITS, readBoundedText, readErrorText, type HttpBodyLimits } from "./bounded-body.js";
import { ERROR_BODY_CHARS, MAX_SAME_ORIGIN_REDIRECTS } from "./defaults.js";
import { HttpModelError } from "./http-model-error.js";
import { RequestWatch } from "./request-watch.js";

/** One request to a model server. */
export interface ServerRequest {
  url: string;
  method?: "GET" | "POST";
  /** Sent as JSON. */
  body?: unknown;
  apiKey?: string;
  /** Give up when nothing arrives for this long (headers, then each piece of the body). */
  timeoutMs: number;
  /** Give up when the answer has not ended this long after the request began. Default: 5 x `timeoutMs`. */
  totalTimeoutMs?: number;
  /** Bounds on what the server sends. Default DEFAULT_BODY_LIMITS. */
  limits?: HttpBodyLimits;
  signal?: AbortSignal;
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
function serverErrorText(body: string): string {
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

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Where a path and query are dropped from a URL shown in a message (a query may carry a token). */
const shown = (url: URL) => `${url.origin}${url.pathname}`;

/** A redirect this client may follow or refuse: a redirect status with a `Location`. */
const isRedirect = (response: Response) => REDIRECTS.has(response.status) && response.headers.has("location");

/**
 * The URL a redirect answer sends the request to, when it is followed: within the same origin (scheme, host, port), at
 * most MAX_SAME_ORIGIN_REDIRECTS times, the method, body and key kept. A redirect to another origin is refused
 * (`redirected`): prompts and the key go only to the server named.
 */
function redirectTarget(response: Response, from: string, hops: number): string {
  const source = new URL(from);
  let target: URL;
  try {
    target = new URL(response.headers.get("location") ?? "", source);
  } catch {
    throw new HttpModelError("bad_response", `${from} redirected to an address that is not a URL`, { url: from });
  }
  if (target.origin !== source.origin)
    throw new HttpModelError(
      "redirected",
      `the model server at ${from} redirected (${response.status}) to another server, ${shown(target)}: refused, so that prompts and the API key go only to the server named; if that server is the right one, name it instead`,
      { url: from, status: response.status },
    );
  if (hops >= MAX_SAME_ORIGIN_REDIRECTS)
    throw new HttpModelError("redirected", `the model server at ${from} redirected more than ${hops} times`, {
      url: from,
      status: response.status,
    });
  return target.href;
}

/** The `http_error` for a non-2xx answer, with what its (bounded) body says. */
async function statusError(response: Response, url: string, limits: HttpBodyLimits): Promise<HttpModelError> {
  const text = serverErrorText(await readErrorText(response, limits));
  return new HttpModelError(
    "http_error",
    `the model server at ${url} answered ${response.status}${text ? `: ${text}` : ""}`,
    { url, status: response.status, retryAfterMs: retryAfterMs(response) },
  );
}

/** The fetch options of `request` under `watch`. */
function fetchInit(request: ServerRequest, watch: RequestWatch): RequestInit {
  // identity: a server that honours it sends nothing to inflate (one that does not is still bounded on decoded bytes)
  const headers: Record<string, string> = {
    accept: "application/json, text/event-stream, application/x-ndjson",
    "accept-encoding": "identity",
  };
  if (request.body !== undefined) headers["content-type"] = "application/json";
  if (request.apiKey) headers.authorization = `Bearer ${request.apiKey}`;
  return {
    method: request.method ?? (request.body === undefined ? "GET" : "POST"),
    headers,
    ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
    signal: watch.controller.signal,
    redirect: "manual",
  };
}

/**
 * Send one request and return the response once its headers are in and its status is 2xx, with the watch that keeps
 * timing the body (the caller reads the body through bounded-body.ts, and stops the watch). A non-2xx status is an
 * `HttpModelError("http_error")` with the server's message (its body read within bounds); a redirect to another
 * server `redirected`; a failed connection `unreachable`; silence, or an answer slower than the total, `timeout`.
 */
export async function openRequest(request: ServerRequest): Promise<{ response: Response; watch: RequestWatch }> {
  const watch = new RequestWatch(request.timeoutMs, request.totalTimeoutMs, request.signal);
  try {
    const init = fetchInit(request, watch);
    let url = request.url;
    for (let hops = 0; ; hops++) {
      const response = await fetch(url, init);
      watch.touch();
      if (!isRedirect(response)) {
        if (!response.ok) throw await statusError(response, request.url, request.limits ?? DEFAULT_BODY_LIMITS);
        return { response, watch };
      }
      void response.body?.cancel().catch(() => undefined); // followed or refused, its body is not read
      url = redirectTarget(response, url, hops);
    }
  } catch (error) {
    watch.stop();
    throw watch.failure(error, request.url);
  }
}

/** A GET or POST whose answer is one JSON document (probes, `/tokenize`, the model list), within the JSON bound. */
export async function requestJson(request: ServerRequest): Promise<unknown> {
  const { response, watch } = await openRequest(request);
  const maxBytes = (request.limits ?? DEFAULT_BODY_LIMITS).jsonBytes;
  try {
    const text = await readBoundedText(response, watch, { maxBytes, url: request.url, what: "a JSON answer" });
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
