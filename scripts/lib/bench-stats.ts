/**
 * Summaries of the benchmark's per-round figures: median and spread (min, p25, p75, max), and per-round ratios.
 */

/** Median and spread of one figure over the rounds. */
export interface Spread {
  median: number;
  min: number;
  p25: number;
  p75: number;
  max: number;
  /** Rounds the figure was measured in (a figure can be missing in a round, e.g. a time-to-call without a call). */
  n: number;
}

/** Round to `digits` decimals. */
export const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** The q-quantile of sorted values, linearly interpolated (q = 0.5 is the median; an even count averages the middle two). */
function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return sorted[low] + (sorted[high] - sorted[low]) * (at - low);
}

/** Median of the values (NaN for none). */
export function median(values: readonly number[]): number {
  const finite = values.filter(Number.isFinite).sort((a, b) => a - b);
  return finite.length === 0 ? Number.NaN : quantile(finite, 0.5);
}

/** Median and spread of the finite values, rounded to `digits`; undefined when there are none. */
export function spread(values: ReadonlyArray<number | undefined>, digits = 3): Spread | undefined {
  const finite = values.filter((v): v is number => v !== undefined && Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return undefined;
  return {
    median: round(quantile(finite, 0.5), digits),
    min: round(finite[0], digits),
    p25: round(quantile(finite, 0.25), digits),
    p75: round(quantile(finite, 0.75), digits),
    max: round(finite[finite.length - 1], digits),
    n: finite.length,
  };
}

/** Per-round ratios a[i] / b[i] (undefined where either is missing or b is 0). */
export function ratios(
  a: ReadonlyArray<number | undefined>,
  b: ReadonlyArray<number | undefined>,
): Array<number | undefined> {
  return a.map((x, i) => {
    const y = b[i];
    return x === undefined || y === undefined || y === 0 ? undefined : x / y;
  });
}

/** Milliseconds of `fn`, with its result. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}
