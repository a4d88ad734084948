import { CodedError } from "../../coded-error.js";
import { readWordsAt } from "./expression-words.js";

/**
 * One token of an arithmetic expression; `at` is its 0-based position in the source, for error messages. `word`: the
 * words it was read from ("times" for `*`, see expression-words.ts). A `bare` name is a function written as words
 * ("square root of"): its argument follows without parentheses.
 */
export type ExpressionToken =
  | { kind: "number"; value: number; text: string; at: number }
  | { kind: "name"; text: string; at: number; word?: string; bare?: true }
  | { kind: "op"; text: "+" | "-" | "*" | "/" | "%" | "^" | "(" | ")" | ","; at: number; word?: string }
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
/** What may follow a `%` that means percent ("80*15%", "15%)"), not the remainder of what follows. */
const PERCENT_BEFORE = /\s*(?:$|[)+*/^,])/y;
/** "of" after `%`: "15% of 80" is 15/100*80. */
const OF = /\s*of(?![A-Za-z0-9_])/iy;
/** A numeral with thousands separators: 1 to 3 digits, then groups of a comma and 3 digits, and no digit after. */
const GROUPED = /\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,]\d)/y;
/** Trailing text an expression copied from a question may end with ("17 times 23 plus 4?", "2+2 ="). */
const TRAILING = /[\s?!=]*$/y;

/**
 * Reads tokens one at a time, on demand, so the first problem in reading order is the one reported
 * (`process.exit()` fails on the unknown name `process`, not on the `.` after it).
 */
export class ExpressionLexer {
  readonly #source: string;
  #pos = 0;
  #peeked: ExpressionToken | undefined;
  /** Tokens read from one piece of text that stands for several ("squared" is `^` and `2`). */
  readonly #queued: ExpressionToken[] = [];
  /** For each open "(", whether it opens a function's arguments (`max(`) rather than a group. */
  readonly #calls: boolean[] = [];
  /** The last token read. */
  #last: ExpressionToken | undefined;

  constructor(source: string) {
    this.#source = source;
  }

  /** The next token, without consuming it. */
  peek(): ExpressionToken {
    return (this.#peeked ??= this.#seen(this.#read()));
  }

  /** The next token, consumed. */
  next(): ExpressionToken {
    const token = this.peek();
    this.#peeked = undefined;
    return token;
  }

  /** Keeps track of the parentheses `token` opens or closes (see #calls), and returns it. */
  #seen(token: ExpressionToken): ExpressionToken {
    if (token.text === "(") this.#calls.push(this.#last?.kind === "name" && !this.#last.bare);
    else if (token.text === ")") this.#calls.pop();
    this.#last = token;
    return token;
  }

  #read(): ExpressionToken {
    const queued = this.#queued.shift();
    if (queued) return queued;
    const source = this.#source;
    SPACE.lastIndex = this.#pos;
    if (SPACE.test(source)) this.#pos = SPACE.lastIndex;
    const at = this.#pos;
    TRAILING.lastIndex = at;
    if (at >= source.length || TRAILING.test(source)) return { kind: "end", text: "", at };

    NUMBER.lastIndex = at;
    const number = NUMBER.exec(source);
    if (number) {
      // thousands separators ("2,340", "1,000,000"), where a comma separates no function's arguments
      GROUPED.lastIndex = at;
      const grouped = this.#calls.at(-1) ? null : GROUPED.exec(source);
      const text = grouped ? grouped[0] : number[0];
      this.#pos = grouped ? GROUPED.lastIndex : NUMBER.lastIndex;
      const value = Number(text.replaceAll(",", ""));
      if (!Number.isFinite(value)) throw new ExpressionError("math", `The number ${text} is too large`, at);
      return { kind: "number", value, text, at };
    }

    const words = readWordsAt(source, at);
    if (words) return this.#words(words.reading, at, source.slice(at, at + words.length));

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
    if (char === "%") return this.#percentSign(at);
    if (char === "," && this.#operatorWordAfter(at + 1)) {
      // "2 to the power of 10, minus 24": a pause before an operator word, not a list
      this.#pos = at + 1;
      return this.#read();
    }
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

  /** The tokens of arithmetic words read at `at` (`word`, their text), the first one returned, the others queued. */
  #words(reading: NonNullable<ReturnType<typeof readWordsAt>>["reading"], at: number, word: string): ExpressionToken {
    this.#pos = at + word.length;
    switch (reading.kind) {
      case "op":
        return { kind: "op", text: reading.op, at, word };
      case "power":
        this.#queued.push({ kind: "number", value: reading.exponent, text: String(reading.exponent), at });
        return { kind: "op", text: "^", at, word };
      case "percent":
        return this.#percent(at, word, reading.of);
      case "function":
        return { kind: "name", text: reading.name, at, word, bare: true };
      case "and":
        return { kind: "op", text: ",", at, word };
      case "filler":
        return this.#read();
    }
  }

  /** `/100` for a percentage, `/100*` for one "of" something; `word`: what it was read from. */
  #percent(at: number, word: string, of: boolean): ExpressionToken {
    this.#queued.push({ kind: "number", value: 100, text: "100", at });
    if (of) this.#queued.push({ kind: "op", text: "*", at, word });
    return { kind: "op", text: "/", at, word };
  }

  /** `%`: a percentage before "of" or where no operand follows ("15% of 80", "80*15%"), else the remainder. */
  #percentSign(at: number): ExpressionToken {
    const source = this.#source;
    OF.lastIndex = at + 1;
    if (OF.test(source)) {
      this.#pos = OF.lastIndex;
      return this.#percent(at, source.slice(at, OF.lastIndex), true);
    }
    PERCENT_BEFORE.lastIndex = at + 1;
    this.#pos = at + 1;
    return PERCENT_BEFORE.test(source) ? this.#percent(at, "%", false) : { kind: "op", text: "%", at };
  }

  /** Whether an operator word ("minus", "times", "squared") follows `from`, past spaces. */
  #operatorWordAfter(from: number): boolean {
    SPACE.lastIndex = from;
    const at = SPACE.test(this.#source) ? SPACE.lastIndex : from;
    const kind = readWordsAt(this.#source, at)?.reading.kind;
    return kind === "op" || kind === "power" || kind === "percent";
  }
}
