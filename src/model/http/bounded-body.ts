/*
 * The one home of the bounds on what a model server sends: every body (a JSON answer, an error's body, a stream) is
 * read here, its decoded bytes counted as they arrive, and a stream is cut into lines and events here, each bounded.
 * The time bounds (idle and total) are the RequestWatch's; reading touches it.
 */
import {
  ERROR_BODY_WAIT_MS,
  MAX_ERROR_BODY_BYTES,
  MAX_JSON_BODY_BYTES,
  MAX_REPLY_CHARS_PER_TOKEN,
  MAX_STREAM_BYTES,
  MAX_STREAM_EVENT_BYTES,
  MAX_STREAM_LINE_BYTES,
} from "./defaults.js";
import { HttpModelError } from "./http-model-error.js";
import type { RequestWatch } from "./request-watch.js";

/** The bounds on what one server may send (see each default's reason in defaults.ts). All are decoded bytes. */
export interface HttpBodyLimits {
  /** A JSON answer read whole (probes, the model list, `/tokenize`). Default MAX_JSON_BODY_BYTES (8 MiB). */
  jsonBytes: number;
  /** Of an error status's body, read for its message. Default MAX_ERROR_BODY_BYTES (64 KiB). */
  errorBytes: number;
  /** How long an error status's body is read before the status is reported. Default ERROR_BODY_WAIT_MS (2 s). */
  errorWaitMs: number;
  /** A streamed reply, all its bytes. Default MAX_STREAM_BYTES (32 MiB). */
  streamBytes: number;
  /** One line of a stream. Default MAX_STREAM_LINE_BYTES (1 MiB). */
  lineBytes: number;
  /** One server-sent event (its data lines together). Default MAX_STREAM_EVENT_BYTES (1 MiB). */
  eventBytes: number;
  /** Reply text per token of the call's `maxTokens`; past it the reply is cut. Default MAX_REPLY_CHARS_PER_TOKEN (256). */
  replyCharsPerToken: number;
}

/** The defaults of {@link HttpBodyLimits}. */
export const DEFAULT_BODY_LIMITS: Readonly<HttpBodyLimits> = Object.freeze({
  jsonBytes: MAX_JSON_BODY_BYTES,
  errorBytes: MAX_ERROR_BODY_BYTES,
  errorWaitMs: ERROR_BODY_WAIT_MS,
  streamBytes: MAX_STREAM_BYTES,
  lineBytes: MAX_STREAM_LINE_BYTES,
  eventBytes: MAX_STREAM_EVENT_BYTES,
  replyCharsPerToken: MAX_REPLY_CHARS_PER_TOKEN,
});

/** The defaults with `overrides` (undefined fields keep their default). */
export function bodyLimits(overrides: Partial<HttpBodyLimits> | undefined): HttpBodyLimits {
  const limits = { ...DEFAULT_BODY_LIMITS };
  for (const key of Object.keys(limits) as (keyof HttpBodyLimits)[]) {
    const value = overrides?.[key];
    if (value !== undefined) limits[key] = value;
  }
  return limits;
}

function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** The error for a body past a bound: what passed which bound. */
export function tooLarge(url: string, what: string, bound: number): HttpModelError {
  return new HttpModelError(
    "too_large",
    `the model server at ${url} sent ${what} over ${sizeText(bound)}, the bound on it: a broken or hostile server, or not a model server (the connection was closed)`,
    { url },
  );
}

const ignore = () => undefined;

/** The length a response announces for its body, when it is not encoded (else the decoded size is unknown). */
function announcedBytes(response: Response): number | undefined {
  const encoding = response.headers.get("content-encoding") ?? "identity";
  const length = Number(response.headers.get("content-length") ?? NaN);
  return encoding === "identity" && Number.isSafeInteger(length) ? length : undefined;
}

/**
 * The body's chunks as they arrive, decoded, each touching the watch; `too_large` as soon as more than `maxBytes`
 * have come (or are announced). When the reader stops early (a bound, a cut, a failure), the body is cancelled: the
 * connection is closed, not left to fill.
 */
export async function* bodyChunks(
  response: Response,
  watch: RequestWatch,
  bound: { maxBytes: number; url: string; what: string },
): AsyncGenerator<Uint8Array> {
  if (!response.body) return;
  if ((announcedBytes(response) ?? 0) > bound.maxBytes) {
    void response.body.cancel().catch(ignore);
    throw tooLarge(bound.url, bound.what, bound.maxBytes);
  }
  const reader = response.body.getReader();
  let size = 0;
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      watch.touch();
      size += next.value.byteLength;
      if (size > bound.maxBytes) throw tooLarge(bound.url, bound.what, bound.maxBytes);
      yield next.value;
    }
    done = true;
  } finally {
    if (done) reader.releaseLock();
    else void reader.cancel().catch(ignore);
  }
}

/** Concatenate `parts` and decode them as UTF-8. */
function decodeParts(decoder: { decode(bytes: Uint8Array): string }, parts: readonly Uint8Array[]): string {
  if (parts.length === 1) return decoder.decode(parts[0]);
  return decoder.decode(Buffer.concat(parts));
}

/** The whole body as text, at most `maxBytes` of it (decoded); past that `too_large`. */
export async function readBoundedText(
  response: Response,
  watch: RequestWatch,
  bound: { maxBytes: number; url: string; what: string },
): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const chunk of bodyChunks(response, watch, bound)) parts.push(chunk);
  return parts.length === 0 ? "" : decodeParts(new TextDecoder(), parts);
}

/**
 * What an error status's body says, for its message: at most `limits.errorBytes` of it, read for at most
 * `limits.errorWaitMs`, then the body is cancelled. Never throws: a body that fails, trickles or never ends gives
 * what had come (maybe nothing), so that the status itself is reported at once.
 */
export async function readErrorText(response: Response, limits: HttpBodyLimits): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  const timer = setTimeout(() => void reader.cancel().catch(ignore), limits.errorWaitMs);
  try {
    while (size < limits.errorBytes) {
      const next = await reader.read();
      if (next.done) break;
      const part = next.value.subarray(0, limits.errorBytes - size);
      parts.push(part);
      size += part.byteLength;
    }
  } catch {
    // a body cut or timed out: what came is the message
  } finally {
    clearTimeout(timer);
    void reader.cancel().catch(ignore);
  }
  return parts.length === 0 ? "" : decodeParts(new TextDecoder(), parts);
}

/**
 * The lines of a stream's chunks (`\n` or `\r\n`), each decoded as UTF-8 once whole; a line longer than `maxBytes` is
 * `too_large` as soon as its bytes pass the bound. Each byte is looked at once (a 100 MB line costs 100 MB of search,
 * not its square).
 */
export async function* boundedLines(
  chunks: AsyncIterable<Uint8Array>,
  bound: { maxBytes: number; url: string },
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let parts: Uint8Array[] = [];
  let size = 0;
  const line = () => decodeParts(decoder, parts).replace(/\r$/, "");
  for await (const chunk of chunks) {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline >= 0; newline = chunk.indexOf(10, start)) {
      if (size + newline - start > bound.maxBytes) throw tooLarge(bound.url, "a line", bound.maxBytes);
      parts.push(chunk.subarray(start, newline));
      yield line();
      parts = [];
      size = 0;
      start = newline + 1;
    }
    if (start < chunk.byteLength) {
      size += chunk.byteLength - start;
      if (size > bound.maxBytes) throw tooLarge(bound.url, "a line", bound.maxBytes);
      parts.push(chunk.subarray(start));
    }
  }
  if (size > 0) yield line();
}

/**
 * The `data:` payloads of a server-sent-events stream, one per event (several `data:` lines of one event joined by
 * `\n`); comments and other fields are skipped. An event whose data passes `maxBytes` (one that never gets its blank
 * line) is `too_large`. Ends at the stream's end.
 */
export async function* sseData(
  lines: AsyncIterable<string>,
  bound: { maxBytes: number; url: string },
): AsyncGenerator<string> {
  let data: string[] = [];
  let size = 0;
  for await (const line of lines) {
    if (line === "") {
      if (data.length > 0) yield data.join("\n");
      data = [];
      size = 0;
    } else if (line.startsWith("data:")) {
      const payload = line.slice(line.startsWith("data: ") ? 6 : 5);
      size += Buffer.byteLength(payload) + 1;
      if (size > bound.maxBytes) throw tooLarge(bound.url, "an event", bound.maxBytes);
      data.push(payload);
    }
  }
  if (data.length > 0) yield data.join("\n");
}

/**
 * The messages of a streamed reply: SSE `data:` payloads or NDJSON lines, with the stream's, a line's and an event's
 * bounds.
 */
export function streamMessages(
  response: Response,
  watch: RequestWatch,
  format: "sse" | "ndjson",
  limits: HttpBodyLimits,
  url: string,
): AsyncGenerator<string> {
  const chunks = bodyChunks(response, watch, { maxBytes: limits.streamBytes, url, what: "a streamed reply" });
  const lines = boundedLines(chunks, { maxBytes: limits.lineBytes, url });
  return format === "ndjson" ? lines : sseData(lines, { maxBytes: limits.eventBytes, url });
}
