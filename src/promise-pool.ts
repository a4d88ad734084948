import { setImmediate as nextTurn } from "node:timers/promises";

/** Runs `task` once fewer than the limiter's `concurrency` tasks are running; settles as the task does. */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

/**
 * The one concurrency limiter of the runtime (parallel calls of an action, runs of an evaluation): at most
 * `concurrency` tasks (at least 1) run at once; the others wait and start in the order they asked.
 */
export function createLimiter(concurrency: number): Limiter {
  const limit = concurrency >= 1 ? concurrency : 1; // NaN too: one at a time, never none
  let active = 0;
  // A queue read from `head` on: Array#shift moves every element, and an evaluation queues 100,000 runs here
  // (129,600 shifts took 7.4 s, during which Ctrl-C could not be seen).
  let waiting: (() => void)[] = [];
  let head = 0;
  const acquire = (): Promise<void> => {
    if (active < limit) {
      active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => waiting.push(() => (active++, resolve())));
  };
  const release = () => {
    active--;
    const next = waiting[head];
    if (next === undefined) return;
    waiting[head++] = undefined as never;
    if (head === waiting.length) {
      waiting = [];
      head = 0;
    }
    next();
  };
  return async (task) => {
    await acquire();
    try {
      return await task();
    } finally {
      release();
    }
  };
}

/**
 * Run `work` over `items` with at most `concurrency` in flight; results keep the items' order. Stops starting new
 * items once `signal` aborts (items already started finish); the result then holds only the finished ones' slots.
 *
 * Each item yields to the event loop before it starts. Scripted models answer without ever waiting on I/O, so
 * without the yield a whole evaluation ran inside one turn of the event loop: Ctrl-C (a signal, delivered as an
 * event) was never seen until the last of 18,816 runs had finished.
 */
export async function promisePool<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<(R | undefined)[]> {
  const limit = createLimiter(concurrency);
  return Promise.all(
    items.map((item, index) =>
      limit(async () => {
        if (!signal?.aborted) await nextTurn();
        return signal?.aborted ? undefined : work(item, index);
      }),
    ),
  );
}
