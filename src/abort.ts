/** An Error named "AbortError", as fetch and node-llama-cpp throw on abort. */
export function abortError(reason?: unknown): Error {
  if (reason instanceof Error && reason.name === "AbortError") return reason;
  const error = new Error(
    reason instanceof Error ? reason.message : typeof reason === "string" ? reason : "The operation was aborted",
  );
  error.name = "AbortError";
  return error;
}

/**
 * Settle with `work`, or reject with an AbortError as soon as `signal` aborts, whichever comes first. The work is
 * abandoned, not awaited, when the signal wins: a callee that ignores its signal cannot hold the caller.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(abortError(signal.reason));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      reject(abortError(signal.reason));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => (signal.removeEventListener("abort", onAbort), resolve(value)),
      (error) => (signal.removeEventListener("abort", onAbort), reject(error)),
    );
  });
}
