/**
 * GBNF for decimal integers within bounds: what lets a grammar honour JSON Schema `minimum` / `maximum` exactly
 * (zod's `z.int()` alone carries ±9007199254740991). Pure string building; BigInt so 16-digit bounds are exact.
 */

/** Digits an unbounded integer part may have: past 16 a JavaScript number is no longer exact anyway. */
export const MAX_INTEGER_DIGITS = 16;

/**
 * The largest integer part an open side allows: {@link MAX_INTEGER_DIGITS} digits whose first is at most 8
 * (8999999999999999), so every integer the grammar lets a model write is a safe JavaScript integer. With 16 free
 * digits Gemma 3 270M at temperature 1 wrote `9454963541311231`, which zod's `z.int()` refuses (above 2^53 - 1).
 */
const UNBOUNDED_MAX = 9n * 10n ** BigInt(MAX_INTEGER_DIGITS - 1) - 1n;

function digits(count: number): string {
  if (count === 0) return "";
  return count === 1 ? "[0-9]" : `[0-9]{${count}}`;
}

function join(...parts: string[]): string {
  return parts.filter((p) => p !== "").join(" ");
}

/** Alternatives matching every digit string of the same length between `lo` and `hi` (inclusive, `lo <= hi`). */
function sameLength(lo: string, hi: string): string[] {
  if (lo === hi) return [`"${lo}"`];
  let common = 0;
  while (lo[common] === hi[common]) common++;
  const prefix = common > 0 ? `"${lo.slice(0, common)}"` : "";
  const a = Number(lo[common]);
  const b = Number(hi[common]);
  const restLo = lo.slice(common + 1);
  const restHi = hi.slice(common + 1);
  const n = restLo.length;
  const loIsFloor = /^0*$/.test(restLo);
  const hiIsCeiling = /^9*$/.test(restHi);
  const out: string[] = [];
  const middleFrom = loIsFloor ? a : a + 1;
  const middleTo = hiIsCeiling ? b : b - 1;
  if (!loIsFloor) for (const alt of sameLength(restLo, "9".repeat(n))) out.push(join(prefix, `"${a}"`, alt));
  if (middleFrom <= middleTo) {
    const cls = middleFrom === middleTo ? `"${middleFrom}"` : `[${middleFrom}-${middleTo}]`;
    out.push(join(prefix, cls, digits(n)));
  }
  if (!hiIsCeiling) for (const alt of sameLength("0".repeat(n), restHi)) out.push(join(prefix, `"${b}"`, alt));
  return out;
}

/** Alternatives for the natural numbers `a..b` written without leading zeros (`b` may be Infinity: capped digits). */
function naturalRange(a: bigint, b: bigint | null): string[] {
  const hi = b ?? (a > UNBOUNDED_MAX ? a : UNBOUNDED_MAX);
  if (a > hi) return [];
  const out: string[] = [];
  const la = a.toString().length;
  const lb = hi.toString().length;
  for (let length = la; length <= lb; length++) {
    const lo = length === la ? a : 10n ** BigInt(length - 1);
    const top = length === lb ? hi : 10n ** BigInt(length) - 1n;
    out.push(...sameLength(lo.toString(), top.toString()));
  }
  return out;
}

/**
 * GBNF alternatives (joined with `|`, to be wrapped in parentheses) matching exactly the JSON integers `lo..hi`;
 * `null` for an open side (then at most {@link UNBOUNDED_MAX}). Returns `null` when the range is empty.
 */
export function integerRangeGbnf(lo: bigint | null, hi: bigint | null): string | null {
  const alternatives: string[] = [];
  if (hi === null || hi >= 0n) alternatives.push(...naturalRange(lo === null || lo < 0n ? 0n : lo, hi));
  if (lo === null || lo < 0n) {
    const fromMagnitude = hi === null || hi >= 0n ? 1n : -hi;
    const toMagnitude = lo === null ? null : -lo;
    for (const alt of naturalRange(fromMagnitude, toMagnitude)) alternatives.push(`"-" ${alt}`);
  }
  return alternatives.length === 0 ? null : alternatives.join(" | ");
}
