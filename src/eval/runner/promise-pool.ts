/**
 * Run `work` over `items` with at most `concurrency` in flight; results keep the items' order. Stops starting new
 * items once `signal` aborts (items already started finish); the result then holds only the finished ones' slots.
 */
export async function promisePool<T, R>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<R>, signal?: AbortSignal): Promise<(R | undefined)[]> {
  const results: (R | undefined)[] = new Array(items.length).fill(undefined);
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal?.aborted) {
      const index = next++;
      results[index] = await work(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return results;
}
