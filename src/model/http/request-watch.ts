import { abortError } from "../../abort.js";
import { describeNetworkFailure } from "../network-failure.js";
import { HTTP_TOTAL_TIMEOUT_FACTOR } from "./defaults.js";
import { HttpModelError } from "./http-model-error.js";

/** The total time a request may take when none is given: HTTP_TOTAL_TIMEOUT_FACTOR times its idle timeout. */
export function defaultTotalTimeoutMs(idleTimeoutMs: number): number {
  return idleTimeoutMs * HTTP_TOTAL_TIMEOUT_FACTOR;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * The two clocks of one request: an idle timer that aborts it when nothing has arrived for `timeoutMs` (`touch()` on
 * each piece of the body restarts it), and a total one that aborts it `totalTimeoutMs` after it began, however the
 * body trickles. The caller's signal aborts the same controller.
 */
export class RequestWatch {
  readonly controller = new AbortController();
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #totalTimer: ReturnType<typeof setTimeout>;
  #timedOut: "idle" | "total" | undefined;
  readonly #timeoutMs: number;
  readonly #totalTimeoutMs: number;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort = () => this.controller.abort(this.#signal?.reason);

  constructor(timeoutMs: number, totalTimeoutMs: number | undefined, signal: AbortSignal | undefined) {
    this.#timeoutMs = timeoutMs;
    this.#totalTimeoutMs = totalTimeoutMs ?? defaultTotalTimeoutMs(timeoutMs);
    this.#signal = signal;
    if (signal?.aborted) this.controller.abort(signal.reason);
    else signal?.addEventListener("abort", this.#onAbort, { once: true });
    this.#totalTimer = setTimeout(() => this.#expire("total"), this.#totalTimeoutMs);
    this.touch();
  }

  #expire(which: "idle" | "total"): void {
    this.#timedOut ??= which;
    this.controller.abort(new Error("timeout"));
  }

  /** Something arrived: the idle time starts again (the total does not). */
  touch(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => this.#expire("idle"), this.#timeoutMs);
  }

  /** The request is over: no more timers, no more listening on the caller's signal. */
  stop(): void {
    clearTimeout(this.#idleTimer);
    clearTimeout(this.#totalTimer);
    this.#signal?.removeEventListener("abort", this.#onAbort);
  }

  /**
   * The error to throw for a failure of this request: an AbortError when the caller aborted, `timeout` when a timer
   * fired, `too_large` for headers past Node's bound, `unreachable` for a connection that failed or dropped, the
   * error itself otherwise.
   */
  failure(error: unknown, url: string): unknown {
    if (this.#signal?.aborted) return abortError(this.#signal.reason);
    if (this.#timedOut === "idle")
      return new HttpModelError(
        "timeout",
        `the model server at ${url} sent nothing for ${seconds(this.#timeoutMs)} (a hung or overloaded server; raise the timeout for a slow one)`,
        { url },
      );
    if (this.#timedOut === "total")
      return new HttpModelError(
        "timeout",
        `the model server at ${url} did not finish its answer within ${seconds(this.#totalTimeoutMs)} (it kept the request open, sending too slowly; raise the total timeout for a slow one)`,
        { url },
      );
    if (error instanceof HttpModelError || (error instanceof Error && error.name === "AbortError")) return error;
    if (error instanceof SyntaxError) return new HttpModelError("bad_response", `${url}: ${error.message}`, { url });
    const failure = describeNetworkFailure(error);
    if (failure.code === "UND_ERR_HEADERS_OVERFLOW")
      return new HttpModelError(
        "too_large",
        `the model server at ${url} sent headers over Node's bound on them (16 KiB unless --max-http-header-size says otherwise): a broken or hostile server, or not a model server`,
        { url, cause: error },
      );
    return new HttpModelError(
      "unreachable",
      `cannot reach the model server at ${url}: ${failure.what}${failure.code ? ` (${failure.code})` : ""}. Is it running? Start one (e.g. llama-server -m MODEL.gguf --host 127.0.0.1 --port 8080) or check the URL`,
      { url, cause: error },
    );
  }
}
