/** A number as an imperative's operand: "48", "12.5", "-3", "1,000". */
const N = String.raw`(-?\d[\d,]*(?:\.\d+)?)`;

/** Imperatives the calculator does not read as words, and what it reads for them. */
const REWRITES: readonly [RegExp, string][] = [
  [new RegExp(String.raw`\bmultiply\s+${N}\s+(?:by|and|with)\s+${N}`, "gi"), "$1 * $2"],
  [new RegExp(String.raw`\bdivide\s+${N}\s+(?:by|into)\s+${N}`, "gi"), "$1 / $2"],
  [new RegExp(String.raw`\badd\s+${N}\s+(?:and|to)\s+${N}`, "gi"), "$1 + $2"],
  [new RegExp(String.raw`\bsubtract\s+${N}\s+from\s+${N}`, "gi"), "$2 - $1"],
  [new RegExp(String.raw`\b(?:take\s+)?the\s+square\s+root\s+of\s+${N}`, "gi"), "sqrt($1)"],
  // "48 * 25, subtract 200": an operation on what came before
  [new RegExp(String.raw`(\d)\s*,?\s+(?:and\s+)?(?:then\s+)?subtract\s+${N}`, "gi"), "$1 - $2"],
  [new RegExp(String.raw`(\d)\s*,?\s+(?:and\s+)?(?:then\s+)?add\s+${N}`, "gi"), "$1 + $2"],
  [
    new RegExp(String.raw`(\d)\s*,?\s+(?:and\s+)?(?:then\s+)?(?:divide|split)\s+(?:it\s+|that\s+)?by\s+${N}`, "gi"),
    "$1 / $2",
  ],
  [new RegExp(String.raw`(\d)\s*,?\s+(?:and\s+)?(?:then\s+)?multiply\s+(?:it\s+|that\s+)?by\s+${N}`, "gi"), "$1 * $2"],
];

/**
 * A text with its arithmetic imperatives written as the calculator writes them: "Multiply 48 by 25, subtract 200" is
 * "48 * 25 - 200", "divide 466566 by 1000" is "466566 / 1000", "take the square root of 1000" is "sqrt(1000)". The
 * calculator reads "17 times 23 plus 4" itself (its own words); these it does not.
 */
export function imperativeArithmetic(text: string): string {
  let out = text;
  for (const [pattern, replacement] of REWRITES) out = out.replace(pattern, replacement);
  return out;
}
