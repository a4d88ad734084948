/**
 * Polynomials a question writes in math notation ("5x^2 - 7x + 3 = 0", "2x**2 + 3x - 1", "x^2 - 1") and the number
 * keys a skill's schema describes as one of their coefficients ("Coefficient of x^2.", "Constant term."): the
 * `coefficients` rule anchors each such key to its term's coefficient, signed ("- 7x" is -7 for "Coefficient of x").
 * Both test models wrote a quadratic's numerals in the order they liked (`"a":3,"b":5,"c":7` for "5x^2 - 7x + 3").
 */

/** A number as a coefficient writes it. */
const NUMBER = String.raw`\d+(?:\.\d+)?`;
/** A power after a variable: "^2", "**3", "²". */
const POWER = String.raw`(?:\s*(?:\^|\*\*)\s*\d+|[²³])`;
/** One term: a coefficient (or none), a one-letter variable and its power; or a constant. */
const TERM = String.raw`(?:(?:${NUMBER})?\s*\*?\s*[a-z](?![\p{L}\p{N}_])${POWER}?|${NUMBER}(?![\p{L}\p{N}_.]))`;
/** Two terms or more joined by + and -, the first one maybe signed. */
const POLYNOMIAL = new RegExp(String.raw`(?<![\p{L}\p{N}_.^*])(?:-\s*)?${TERM}(?:\s*[-+]\s*${TERM})+`, "gu");
const ONE_TERM = new RegExp(String.raw`([-+]?)\s*(${TERM})`, "gu");

/** One polynomial's coefficients, by power (0 for the constant), as numerals ("-7"); its variable. */
export interface Polynomial {
  variable: string;
  coefficients: ReadonlyMap<number, string>;
}

/** The value of a power written after a variable ("^2" 2, "²" 2, none 1). */
function powerOf(written: string | undefined): number {
  if (!written) return 1;
  if (written === "²") return 2;
  if (written === "³") return 3;
  return Number(/\d+/.exec(written)![0]);
}

/**
 * The polynomials `text` writes: two terms or more, at least one of them in a variable, one variable throughout
 * ("3 + 4" is arithmetic, no polynomial). A coefficient not written is 1 ("x^2 - 1": 1 for x^2).
 */
export function polynomialsOf(text: string): Polynomial[] {
  const found: Polynomial[] = [];
  for (const match of text.matchAll(POLYNOMIAL)) {
    const coefficients = new Map<number, string>();
    const variables = new Set<string>();
    let sound = true;
    for (const [, sign, term] of match[0].matchAll(ONE_TERM)) {
      const parts = new RegExp(String.raw`^(${NUMBER})?\s*\*?\s*([a-z])(${POWER})?$`, "u").exec(term.trim());
      const power = parts ? powerOf(parts[3]?.trim()) : 0;
      if (parts) variables.add(parts[2]);
      const magnitude = parts ? (parts[1] ?? "1") : term.trim();
      if (coefficients.has(power)) sound = false;
      coefficients.set(power, `${sign === "-" ? "-" : ""}${magnitude}`);
    }
    if (sound && variables.size === 1 && coefficients.size >= 2)
      found.push({ variable: [...variables][0], coefficients });
  }
  return found;
}

/**
 * The power of the term whose coefficient a number key's description says it is: "Coefficient of x^2." 2,
 * "Coefficient of x." 1, "Constant term." 0; undefined for any other description.
 */
export function coefficientPower(description: unknown): number | undefined {
  if (typeof description !== "string") return undefined;
  const of =
    /\bcoefficient\s+(?:of|for)\s+(?:the\s+)?([a-z])(?![\p{L}\p{N}])(\s*(?:\^|\*\*)\s*\d+|[²³]|\s+squared|\s+cubed)?/iu.exec(
      description,
    );
  if (of) {
    const power = of[2]?.trim();
    if (power === "squared") return 2;
    if (power === "cubed") return 3;
    return powerOf(power);
  }
  return /\bconstant\s+term\b/i.test(description) ? 0 : undefined;
}

/** The coefficients `text`'s polynomials give the term of `power`, in order (none where a polynomial has no such term). */
export function coefficientsAt(text: string, power: number): string[] {
  return polynomialsOf(text).flatMap((polynomial) => {
    const coefficient = polynomial.coefficients.get(power);
    return coefficient === undefined ? [] : [coefficient];
  });
}
