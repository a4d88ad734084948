import { CodedError } from "../../coded-error.js";

/**
 * Why a model server could not be used. Stable: the CLI, the eval's failover and tests switch on it.
 * - `unreachable`: no connection (refused, reset, dropped before an answer) even after the retries
 * - `timeout`: the server sent nothing for `timeoutMs`, or did not finish within `totalTimeoutMs`
 * - `unknown_model`: the server does not serve the model asked for (`models` lists the ones it does)
 * - `http_error`: the server answered with an error status (`status`)
 * - `bad_response`: the answer was not what the protocol says (not JSON, no choices, a cut stream)
 * - `bad_url`: the server URL given cannot be used
 * - `unsupported`: the server (its dialect) cannot do what the options ask (raw completion, a GBNF grammar)
 * - `too_large`: an answer passed one of the handle's bounds (its bytes, a line, an event); its connection was closed
 * - `redirected`: the server redirected to another host (refused: nothing goes to a server not named), or too often
 */
export type HttpModelErrorCode =
  | "unreachable"
  | "timeout"
  | "unknown_model"
  | "http_error"
  | "bad_response"
  | "bad_url"
  | "unsupported"
  | "too_large"
  | "redirected";

/** Details an {@link HttpModelError} may carry. */
export interface HttpModelErrorDetails {
  /** The URL of the request that failed. */
  url?: string;
  /** The HTTP status, for `http_error`. */
  status?: number;
  /** The models the server lists, for `unknown_model`. */
  models?: readonly string[];
  /** Milliseconds the server asked to wait (`Retry-After`), when it did. */
  retryAfterMs?: number;
  /** Overrides what the code says (a connection lost after text was streamed to `onToken` cannot be retried). */
  retryable?: boolean;
  cause?: unknown;
}

/** A model server could not be used; `message` says what happened and what to do. */
export class HttpModelError extends CodedError<HttpModelErrorCode> {
  override readonly name = "HttpModelError";
  readonly url?: string;
  readonly status?: number;
  readonly models?: readonly string[];
  readonly retryAfterMs?: number;
  readonly #retryable: boolean | undefined;

  constructor(code: HttpModelErrorCode, message: string, details: HttpModelErrorDetails = {}) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
    if (details.url !== undefined) this.url = details.url;
    if (details.status !== undefined) this.status = details.status;
    if (details.models !== undefined) this.models = details.models;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
    this.#retryable = details.retryable;
  }

  /** Worth another try: no connection, or a server that said it is busy (429) or unavailable (503). */
  get retryable(): boolean {
    if (this.#retryable !== undefined) return this.#retryable;
    return this.code === "unreachable" || (this.code === "http_error" && (this.status === 429 || this.status === 503));
  }
}
