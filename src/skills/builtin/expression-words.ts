/**
 * The arithmetic words the calculator reads besides its symbols: small models copy the question's own wording into
 * the expression ("17 times 23 plus 4", "15% of 80", "the square root of 1764"), and a calculator that refuses it
 * leaves them looping on the same error (issue 26: Gemma 3 270M's `basic.json` runs). Each reading maps to symbols
 * the parser already has, so precedence is the written one: "2 plus 3 times 4" is 14.
 */
export type WordReading =
  /** A binary operator: "times" is `*`. */
  | { kind: "op"; op: "+" | "-" | "*" | "/" | "%" | "^" }
  /** A power after its base: "squared" is `^2`. */
  | { kind: "power"; exponent: number }
  /** A percentage: "percent" is `/100`, "percent of" is `/100*`. */
  | { kind: "percent"; of: boolean }
  /** A function of what follows, without parentheses: "square root of 1764", "average of 12, 18 and 27". */
  | { kind: "function"; name: string }
  /** A list's last separator, inside a function's list: "12, 18 and 27". */
  | { kind: "and" }
  /** A word that says nothing here: "the". */
  | { kind: "filler" };

const READINGS: readonly (readonly [string, WordReading])[] = [
  ["multiplied by", { kind: "op", op: "*" }],
  ["times", { kind: "op", op: "*" }],
  ["plus", { kind: "op", op: "+" }],
  ["minus", { kind: "op", op: "-" }],
  ["divided by", { kind: "op", op: "/" }],
  ["over", { kind: "op", op: "/" }],
  ["raised to the power of", { kind: "op", op: "^" }],
  ["to the power of", { kind: "op", op: "^" }],
  ["raised to", { kind: "op", op: "^" }],
  ["modulo", { kind: "op", op: "%" }],
  ["mod", { kind: "op", op: "%" }],
  ["squared", { kind: "power", exponent: 2 }],
  ["cubed", { kind: "power", exponent: 3 }],
  ["percent of", { kind: "percent", of: true }],
  ["per cent of", { kind: "percent", of: true }],
  ["percent", { kind: "percent", of: false }],
  ["per cent", { kind: "percent", of: false }],
  ["square root of", { kind: "function", name: "sqrt" }],
  ["sqrt of", { kind: "function", name: "sqrt" }],
  ["cube root of", { kind: "function", name: "cbrt" }],
  ["absolute value of", { kind: "function", name: "abs" }],
  ["average of", { kind: "function", name: "mean" }],
  ["mean of", { kind: "function", name: "mean" }],
  ["sum of", { kind: "function", name: "sum" }],
  ["and", { kind: "and" }],
  ["the", { kind: "filler" }],
];

/** Each reading's words as a sticky, case-insensitive pattern that ends at a word's end; longest phrases first. */
const PATTERNS: readonly (readonly [RegExp, WordReading])[] = [...READINGS]
  .sort(([a], [b]) => b.length - a.length)
  .map(([words, reading]) => [new RegExp(`${words.replaceAll(" ", "\\s+")}(?![A-Za-z0-9_])`, "iy"), reading]);

/** The arithmetic words `source` holds at `at`: their reading and length, or undefined. */
export function readWordsAt(source: string, at: number): { reading: WordReading; length: number } | undefined {
  for (const [pattern, reading] of PATTERNS) {
    pattern.lastIndex = at;
    const match = pattern.exec(source);
    if (match) return { reading, length: match[0].length };
  }
  return undefined;
}
