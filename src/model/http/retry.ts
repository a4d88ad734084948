import { abortError } from "../../abort.js";
import { RETRY_BASE_DELAY_MS, RETRY_MAX_DELAY_MS } from "./defaults.js";
import { HttpModelError } from "./http-model-error.js";

/** How {@link withRetries} retries. */
export interface RetryPolicy {
  /** Retries after the first try (0: none). */
  retries: number;
  signal?: AbortSignal;
  /** A number in [0, 1), for the jitter. Default Math.random (tests pass their own). */
  random?: () => number;
  /** Told before each wait: the failure, the retry about to be made (1-based) and the wait in ms. */
  onRetry?: (error: HttpModelError, retry: number, delayMs: number) => void;
}

/**
 * The wait before retry `attempt` (0-based): "full jitter", a random time between 0 and min(max, base * 2^attempt),
 * or what the server asked for with `Retry-After` when that is longer (capped at the same max).
 */
export function retryDelayMs(attempt: number, retryAfterMs: number | undefined, random: () => number): number {
  const ceiling = Math.min(RETRY_MAX_DELAY_MS, RETRY_BASE_DELAY_MS * 2 ** attempt);
  const jittered = Math.floor(random() * ceiling);
  return retryAfterMs === undefined ? jittered : Math.min(RETRY_MAX_DELAY_MS, Math.max(jittered, retryAfterMs));
}

/** Wait `ms`, or reject with an AbortError as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(signal.reason));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Run `attempt` until it succeeds, retrying a retryable {@link HttpModelError} (no connection, 429, 503) up to
 * `policy.retries` times with backoff and jitter. Any other error (another status, an abort, a bad answer) is thrown
 * at once; so is the last retryable one.
 */
export async function withRetries<T>(attempt: (tryNumber: number) => Promise<T>, policy: RetryPolicy): Promise<T> {
  const random = policy.random ?? Math.random;
  for (let tryNumber = 0; ; tryNumber++) {
    try {
      return await attempt(tryNumber);
    } catch (error) {
      if (!(error instanceof HttpModelError) || !error.retryable || tryNumber >= policy.retries) throw error;
      if (policy.signal?.aborted) throw abortError(policy.signal.reason);
      const delay = retryDelayMs(tryNumber, error.retryAfterMs, random);
      policy.onRetry?.(error, tryNumber + 1, delay);
      await sleep(delay, policy.signal);
    }
  }
}
