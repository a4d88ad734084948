import { CodedError } from "../../coded-error.js";

/** One token of an arithmetic expression; `at` is its 0-based position in the source, for error messages. */
export type ExpressionToken =
  | { kind: "number"; value: number; text: string; at: number }
  | { kind: "name"; text: string; at: number }
  | { kind: "op"; text: "+" | "-" | "*" | "/" | "%" | "^" | "(" | ")" | ","; at: number }
  | { kind: "end"; text: ""; at: number };

/**
 * What is wrong with an expression: `syntax` (not a well-formed expression: a character, name, operator, parenthesis
 * or argument count), `math` (well formed, but with no finite real result: a division by zero, a root of a negative
 * number, an overflow, an argument outside a function's domain), `too_large` (longer or more deeply nested than
 * allowed). Stable: callers switch on it.
 */
export type ExpressionErrorCode = "syntax" | "math" | "too_large";

/**
 * A bad expression; `at` is the 0-based position of the problem, when it has one. The message is written for the
 * model (it becomes the calculator's tool error).
 */
export class ExpressionError extends CodedError<ExpressionErrorCode> {
  override readonly name = "ExpressionError";
  constructor(
    code: ExpressionErrorCode,
    message: string,
    readonly at?: number,
  ) {
    super(code, message);
  }
}

const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const SPACE = /\s+/y;

/** Operator spellings besides the canonical ones: Python's `**`, typographic × ÷ · and the Unicode minus. */
const OPERATOR_ALIASES: ReadonlyMap<string, "*" | "/" | "-" | "^"> = new Map([
  ["**", "^"],
  ["×", "*"],
  ["·", "*"],
  ["÷", "/"],
  ["−", "-"],
]);
const OPERATORS = new Set(["+", "-", "*", "/", "%", "^", "(", ")", ","]);

/**
 * Reads tokens one at a time, on demand, so the first problem in reading order is the one reported
 * (`process.exit()` fails on the unknown name `process`, not on the `.` after it).
 */
export class ExpressionLexer {
  readonly #source: string;
  #pos = 0;
  #peeked: ExpressionToken | undefined;

  constructor(source: string) {
    this.#source = source;
  }

  /** The next token, without consuming it. */
  peek(): ExpressionToken {
    return (this.#peeked ??= this.#read());
  }

  /** The next token, consumed. */
  next(): ExpressionToken {
    const token = this.peek();
    this.#peeked = undefined;
    return token;
  }

  #read(): ExpressionToken {
    const source = this.#source;
    SPACE.lastIndex = this.#pos;
    if (SPACE.test(source)) this.#pos = SPACE.lastIndex;
    const at = this.#pos;
    if (at >= source.length) return { kind: "end", text: "", at };

    NUMBER.lastIndex = at;
    const number = NUMBER.exec(source);
    if (number) {
      this.#pos = NUMBER.lastIndex;
      const value = Number(number[0]);
      if (!Number.isFinite(value)) throw new ExpressionError("math", `The number ${number[0]} is too large`, at);
      return { kind: "number", value, text: number[0], at };
    }

    NAME.lastIndex = at;
    const name = NAME.exec(source);
    if (name) {
      this.#pos = NAME.lastIndex;
      return { kind: "name", text: name[0], at };
    }

    for (const [alias, op] of OPERATOR_ALIASES) {
      if (source.startsWith(alias, at)) {
        this.#pos = at + alias.length;
        return { kind: "op", text: op, at };
      }
    }
    const char = source[at];
    if (OPERATORS.has(char)) {
      this.#pos = at + 1;
      return { kind: "op", text: char as "+", at };
    }
    const shown = String.fromCodePoint(source.codePointAt(at)!);
    throw new ExpressionError(
      "syntax",
      `Unexpected character ${JSON.stringify(shown)} at position ${at + 1}; only numbers, + - * / % ^ ( ) , and the listed functions are allowed`,
      at,
    );
  }
}
