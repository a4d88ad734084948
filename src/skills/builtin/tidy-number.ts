import { RESULT_SIGNIFICANT_DIGITS } from "./defaults.js";

/**
 * A result as a person expects to see it: non-integers rounded to `digits` significant digits (default 15, see
 * `RESULT_SIGNIFICANT_DIGITS`) so binary noise disappears (0.1 + 0.2 → 0.3, 1/3 → 0.333333333333333); integers are
 * returned unchanged (rounding them would lose exact digits past 1e15); -0 becomes 0. The value stays a number, so
 * JSON shows its shortest form.
 */
export function tidyNumber(value: number, digits: number = RESULT_SIGNIFICANT_DIGITS): number {
  if (!Number.isFinite(value)) return value;
  if (Number.isInteger(value)) return value === 0 ? 0 : value;
  const rounded = Number(value.toPrecision(digits));
  return rounded === 0 ? 0 : rounded;
}
