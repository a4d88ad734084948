import { CALCULATOR_MAX_DEPTH, CALCULATOR_MAX_EXPRESSION_LENGTH } from "./defaults.js";
import { ExpressionError, ExpressionLexer, type ExpressionToken } from "./expression-lexer.js";
import { readWordsAt } from "./expression-words.js";

export { ExpressionError } from "./expression-lexer.js";

/** Options of `evaluateExpression`. */
export interface EvaluateExpressionOptions {
  /** Longest accepted expression in characters; default `CALCULATOR_MAX_EXPRESSION_LENGTH` (500). */
  maxLength?: number;
  /** Deepest nesting accepted; default `CALCULATOR_MAX_DEPTH` (64). */
  maxDepth?: number;
}

interface MathFunction {
  minArgs: number;
  maxArgs: number;
  apply(args: number[]): number;
}

const CONSTANTS: ReadonlyMap<string, number> = new Map([
  ["pi", Math.PI],
  ["e", Math.E],
]);

const unary = (apply: (x: number) => number): MathFunction => ({ minArgs: 1, maxArgs: 1, apply: ([x]) => apply(x) });
const variadic = (apply: (...xs: number[]) => number): MathFunction => ({
  minArgs: 1,
  maxArgs: 64,
  apply: (xs) => apply(...xs),
});

function requirePositive(name: string, x: number): number {
  if (x <= 0) throw new ExpressionError("math", `${name} of zero or a negative number (${x}) is undefined`);
  return x;
}

/** Rounds half away from zero (2.5 → 3, -2.5 → -3), to `digits` decimals, via exponent shifts that avoid 1.005 * 100 noise. */
function roundHalfAway(x: number, digits: number): number {
  if (!Number.isInteger(digits) || digits < 0 || digits > 15) {
    throw new ExpressionError("math", `round(x, digits): digits must be a whole number from 0 to 15, got ${digits}`);
  }
  const magnitude = Math.round(Number(`${Math.abs(x)}e${digits}`));
  return Math.sign(x) * Number(`${magnitude}e-${digits}`);
}

const FUNCTIONS: ReadonlyMap<string, MathFunction> = new Map([
  [
    "sqrt",
    unary((x) => {
      if (x < 0) throw new ExpressionError("math", `sqrt of a negative number (${x}) has no real result`);
      return Math.sqrt(x);
    }),
  ],
  ["cbrt", unary(Math.cbrt)],
  ["abs", unary(Math.abs)],
  ["round", { minArgs: 1, maxArgs: 2, apply: ([x, digits = 0]) => roundHalfAway(x, digits) }],
  ["floor", unary(Math.floor)],
  ["ceil", unary(Math.ceil)],
  ["min", variadic(Math.min)],
  ["mean", variadic((...xs) => xs.reduce((sum, x) => sum + x, 0) / xs.length)],
  ["sum", variadic((...xs) => xs.reduce((sum, x) => sum + x, 0))],
  ["max", variadic(Math.max)],
  [
    "log",
    {
      minArgs: 1,
      maxArgs: 2,
      apply: ([x, base = 10]) => {
        requirePositive("log", x);
        if (base <= 0 || base === 1)
          throw new ExpressionError("math", `log base must be positive and not 1, got ${base}`);
        return base === 10 ? Math.log10(x) : Math.log(x) / Math.log(base);
      },
    },
  ],
  ["ln", unary((x) => Math.log(requirePositive("ln", x)))],
  ["exp", unary(Math.exp)],
  ["sin", unary(Math.sin)],
  ["cos", unary(Math.cos)],
  ["tan", unary(Math.tan)],
]);

/** Names the calculator knows, for its description and error messages. */
export const EXPRESSION_FUNCTIONS: readonly string[] = [...FUNCTIONS.keys()];
/** Constants the calculator knows. */
export const EXPRESSION_CONSTANTS: readonly string[] = [...CONSTANTS.keys()];

type InfixOp = "+" | "-" | "*" | "/" | "%" | "^";
/** Binding powers [left, right]: right < left makes `^` right-associative (2^3^2 = 2^9). */
const INFIX: ReadonlyMap<string, readonly [number, number]> = new Map([
  ["+", [10, 10]],
  ["-", [10, 10]],
  ["*", [20, 20]],
  ["/", [20, 20]],
  ["%", [20, 20]],
  ["^", [30, 29]],
]);
/** Unary signs bind tighter than * but looser than ^, so -2^2 = -(2^2) = -4 as in written mathematics. */
const PREFIX_POWER = 25;

const describe = (token: ExpressionToken) =>
  token.kind === "end" ? "the end" : JSON.stringify(("word" in token && token.word) || token.text);

function checkResult(value: number, what: string): number {
  if (Number.isNaN(value)) throw new ExpressionError("math", `${what} has no real result`);
  if (!Number.isFinite(value))
    throw new ExpressionError("math", `${what} overflows: the result is too large to represent`);
  return value;
}

/** A number as it appears in a message: negatives in parentheses, so "(-8) ^ 0.5" reads unambiguously. */
const shown = (x: number) => (x < 0 || Object.is(x, -0) ? `(${x})` : `${x}`);

function applyInfix(op: InfixOp, left: number, right: number): number {
  const what = `${shown(left)} ${op} ${shown(right)}`;
  switch (op) {
    case "+":
      return checkResult(left + right, what);
    case "-":
      return checkResult(left - right, what);
    case "*":
      return checkResult(left * right, what);
    case "/":
      if (right === 0) throw new ExpressionError("math", `Division by zero (${what}) has no answer`);
      return checkResult(left / right, what);
    case "%":
      if (right === 0) throw new ExpressionError("math", `Modulo by zero (${what}) has no answer`);
      return checkResult(left % right, what);
    case "^":
      if (left === 0 && right < 0) throw new ExpressionError("math", `${what} is a division by zero and has no answer`);
      if (left < 0 && !Number.isInteger(right)) {
        throw new ExpressionError("math", `${what}: a negative number raised to a fractional power has no real result`);
      }
      return checkResult(left ** right, what);
  }
}

class ExpressionParser {
  readonly #lexer: ExpressionLexer;
  readonly #maxDepth: number;
  #depth = 0;

  constructor(source: string, maxDepth: number) {
    this.#lexer = new ExpressionLexer(source);
    this.#maxDepth = maxDepth;
  }

  parseAll(): number {
    const value = this.#expression(0);
    const token = this.#lexer.peek();
    if (token.kind === "end") return value;
    if (token.text === ")") {
      throw new ExpressionError(
        "syntax",
        `Unbalanced parentheses: ")" at position ${token.at + 1} has no matching "("`,
        token.at,
      );
    }
    if (token.text === "," && token.kind === "op" && token.word) {
      throw new ExpressionError(
        "syntax",
        `Unexpected ${describe(token)} at position ${token.at + 1}: "and" only joins a list, as in "average of 2, 4 and 6"`,
        token.at,
      );
    }
    if (token.text === ",") {
      throw new ExpressionError(
        "syntax",
        `Unexpected "," at position ${token.at + 1}: commas only separate function arguments, as in max(1, 2); write 1000, not 1,000`,
        token.at,
      );
    }
    throw new ExpressionError("syntax", `Unexpected ${describe(token)} at position ${token.at + 1}`, token.at);
  }

  #expression(minPower: number): number {
    if (++this.#depth > this.#maxDepth)
      throw new ExpressionError(
        "too_large",
        `The expression is nested too deeply (more than ${this.#maxDepth} levels)`,
      );
    let left = this.#prefix();
    for (;;) {
      const token = this.#lexer.peek();
      if (token.kind === "number" || token.kind === "name" || token.text === "(") {
        throw new ExpressionError(
          "syntax",
          `Missing operator before ${describe(token)} at position ${token.at + 1}; write multiplication explicitly, as in 2*pi or 3*(4+1)`,
          token.at,
        );
      }
      const powers = token.kind === "op" ? INFIX.get(token.text) : undefined;
      if (!powers || powers[0] <= minPower) break;
      this.#lexer.next();
      left = applyInfix(token.text as InfixOp, left, this.#expression(powers[1]));
    }
    this.#depth--;
    return left;
  }

  #prefix(): number {
    const token = this.#lexer.next();
    if (token.kind === "number") return token.value;
    if (token.kind === "name") return token.bare ? this.#bareFunction(token) : this.#name(token);
    if (token.text === "-") return -this.#expression(PREFIX_POWER);
    if (token.text === "+") return this.#expression(PREFIX_POWER);
    if (token.text === "(") {
      const value = this.#expression(0);
      this.#expect(")", token);
      return value;
    }
    if (token.kind === "end") {
      throw new ExpressionError("syntax", "The expression ends too early: a number is missing at the end", token.at);
    }
    throw new ExpressionError(
      "syntax",
      `Expected a number, a function or "(" at position ${token.at + 1}, found ${describe(token)}`,
      token.at,
    );
  }

  #name(token: ExpressionToken & { kind: "name" }): number {
    const key = token.text.toLowerCase();
    const constant = CONSTANTS.get(key);
    if (constant !== undefined) return constant;
    const fn = FUNCTIONS.get(key);
    if (!fn) {
      throw new ExpressionError(
        "syntax",
        `Unknown name ${JSON.stringify(token.text)} at position ${token.at + 1}; known functions: ${EXPRESSION_FUNCTIONS.join(", ")}; constants: ${EXPRESSION_CONSTANTS.join(", ")}`,
        token.at,
      );
    }
    const open = this.#lexer.next();
    if (open.text !== "(")
      throw new ExpressionError("syntax", `${key} is a function: write ${key}(x), with parentheses`, open.at);
    const args: number[] = [];
    if (this.#lexer.peek().text === ")") this.#lexer.next();
    else {
      for (;;) {
        args.push(this.#expression(0));
        const separator = this.#lexer.peek();
        if (separator.text === ",") {
          this.#lexer.next();
          continue;
        }
        this.#expect(")", open);
        break;
      }
    }
    if (args.length < fn.minArgs || args.length > fn.maxArgs) {
      const wanted =
        fn.minArgs === fn.maxArgs
          ? `${fn.minArgs}`
          : fn.maxArgs > 2
            ? `${fn.minArgs} or more`
            : `${fn.minArgs} or ${fn.maxArgs}`;
      throw new ExpressionError(
        "syntax",
        `${key} takes ${wanted} argument${fn.maxArgs === 1 ? "" : "s"}, got ${args.length}`,
        token.at,
      );
    }
    return checkResult(fn.apply(args), `${key}(${args.join(", ")})`);
  }

  /**
   * A function written as words, its argument without parentheses: "square root of 1764" (what follows up to the
   * next + - * /: "square root of 16 plus 9" is 13), "average of 12, 18, 27 and 43" (a list).
   */
  #bareFunction(token: ExpressionToken & { kind: "name" }): number {
    const fn = FUNCTIONS.get(token.text)!;
    const args = [this.#expression(PREFIX_POWER)];
    if (fn.maxArgs > 1)
      while (this.#lexer.peek().text === "," && args.length < fn.maxArgs) {
        this.#lexer.next();
        args.push(this.#expression(PREFIX_POWER));
      }
    return checkResult(fn.apply(args), `${token.text}(${args.join(", ")})`);
  }

  #expect(text: ")", opener: ExpressionToken): void {
    const token = this.#lexer.next();
    if (token.text === text) return;
    if (token.kind === "end") {
      throw new ExpressionError(
        "syntax",
        `Unbalanced parentheses: "(" at position ${opener.at + 1} is never closed`,
        opener.at,
      );
    }
    throw new ExpressionError("syntax", `Expected ")" at position ${token.at + 1}, found ${describe(token)}`, token.at);
  }
}

/**
 * Evaluates an arithmetic expression with a hand-written Pratt parser: numbers (decimals, `1e-3`), `+ - * / % ^`
 * (also `**`, `×`, `÷`), parentheses, unary signs, the functions in `EXPRESSION_FUNCTIONS` and the constants `pi`,
 * `e`, and the arithmetic words of expression-words.ts ("17 times 23 plus 4", "15% of 80", "square root of 1764"). A
 * `%` is a percentage before "of" or where no operand follows ("80*15%"), the remainder elsewhere ("7 % 3"). Outside a
 * function's arguments a numeral may group its thousands ("2,340"). Nothing is ever handed to `eval` or `Function`;
 * names are looked up in closed maps, so `constructor`, `__proto__` or `process` are unknown names. Returns the raw double (see `tidyNumber` for display).
 * Throws `ExpressionError` with a message meant for the model: a syntax error with its position, an unknown name,
 * division by zero, a result that is not a real number or that overflows.
 */
export function evaluateExpression(source: string, options: EvaluateExpressionOptions = {}): number {
  const maxLength = options.maxLength ?? CALCULATOR_MAX_EXPRESSION_LENGTH;
  if (typeof source !== "string") throw new ExpressionError("syntax", "The expression must be a string");
  if (source.length > maxLength) {
    throw new ExpressionError(
      "too_large",
      `The expression is too long (${source.length} characters, at most ${maxLength})`,
    );
  }
  if (source.trim() === "") throw new ExpressionError("syntax", "The expression is empty");
  try {
    return new ExpressionParser(source, options.maxDepth ?? CALCULATOR_MAX_DEPTH).parseAll();
  } catch (error) {
    // a % that failed to parse: say what % means here, once, after the parse error
    if (error instanceof ExpressionError && source.includes("%") && !error.message.startsWith("Modulo")) {
      throw new ExpressionError(
        error.code,
        `${error.message}. Note: % between two numbers is the remainder (7 % 3 = 1); for a percentage write 15% of 80`,
        error.at,
      );
    }
    throw error;
  }
}

/** Where an arithmetic stretch may begin: a numeral, "(", a function's words ("square root of") or its call. */
const STRETCH_START = /[\d(]/;
/** A known function called by name: "sqrt(1000)", "mean(3, 4)" (its "(" follows a word: no start of its own). */
const FUNCTION_CALL = new RegExp(`^(?:${EXPRESSION_FUNCTIONS.join("|")})\\s*\\(`, "i");
/** A date ("2025-01-01") reads as a subtraction: no stretch holds one. */
const DATE = /\d{4}-\d{1,2}-\d{1,2}/;
/** Longest stretch looked for, in characters. */
const MAX_STRETCH_CHARS = 160;

/**
 * The stretches of `text` the calculator evaluates that are more than a numeral, longest from each start and none
 * inside another, as [start, end) offsets: "17 times 23 plus 4" of "What is 17 times 23 plus 4?", "square root of
 * 1764", "(12.5 + 7.5) * 3" of "Compute (12.5 + 7.5) * 3, then divide the result by 4". What an expression argument
 * copied from the question should hold whole (issue 26's grounding).
 */
export function arithmeticStretches(text: string): [number, number][] {
  const found: [number, number][] = [];
  const wordAt = (i: number) => i > 0 && /[\p{L}\p{N}_.]/u.test(text[i - 1]);
  for (let start = 0; start < text.length; start++) {
    if (found.length > 0 && start < found.at(-1)![1]) continue;
    const opens =
      STRETCH_START.test(text[start]) ||
      FUNCTION_CALL.test(text.slice(start, start + 12)) ||
      readWordsAt(text, start)?.reading.kind === "function";
    if (!opens || wordAt(start)) continue;
    for (let end = Math.min(text.length, start + MAX_STRETCH_CHARS); end > start; end--) {
      // a stretch ends after a word, ")" or "%", not inside a word or a numeral ("2" of "2,340" or "2.5")
      if (!/[\p{L}\p{N}_)%]/u.test(text[end - 1]) || /^(?:[\p{L}\p{N}_]|[.,]\d)/u.test(text.slice(end, end + 2)))
        continue;
      const stretch = text.slice(start, end);
      if (/^\d[\d.,]*$/.test(stretch) || DATE.test(text.slice(Math.max(0, start - 5), end + 3))) continue;
      try {
        evaluateExpression(stretch);
      } catch {
        continue;
      }
      found.push([start, end]);
      break;
    }
  }
  return found;
}
