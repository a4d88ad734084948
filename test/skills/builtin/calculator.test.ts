import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { calculatorSkill, evaluateExpression, ExpressionError } from "../../../src/skills/builtin/index.js";
import { arithmeticStretches } from "../../../src/skills/builtin/evaluate-expression.js";

const ctx = { signal: new AbortController().signal, state: { query: "q", iterations: 0 } };
const calc = (expression: string) => calculatorSkill.run({ expression }, ctx);

describe("evaluateExpression: arithmetic words (what small models copy from the question)", () => {
  it.each([
    ["17 times 23 plus 4", 395],
    ["17 TIMES 23 Plus 4", 395],
    ["2 plus 3 times 4", 14], // the written precedence, not left to right
    ["100 minus 10 divided by 2", 95],
    ["9 over 3", 3],
    ["6 multiplied by 7", 42],
    ["2 to the power of 10, minus 24", 1000], // the comma is a pause before an operator word
    ["2 raised to the power of 3 squared", 512], // ^ stays right-associative: 2^(3^2)
    ["5 squared plus 1", 26],
    ["3 cubed", 27],
    ["15% of 80", 12],
    ["15 percent of 80", 12],
    ["200 plus 15% of 80", 212],
    ["80*15%", 12],
    ["(50 + 50)%", 1],
    ["17 % 5 * 2", 4], // between two numbers, % stays the remainder
    ["7 mod 3", 1],
    ["the square root of 1764", 42],
    ["square root of 16 plus 9", 13], // the argument runs to the next + - * /
    ["square root of (16 plus 9)", 5],
    ["cube root of 27", 3],
    ["absolute value of -4", 4],
    ["average of 12, 18, 27 and 43", 25],
    ["the sum of 1, 2 and 3", 6],
    ["mean(2, 4)", 3],
    ["sum(1, 2, 3)", 6],
    ["What is 17 times 23 plus 4?".slice(8), 395], // a copied question's trailing "?"
    ["2 + 2 =", 4],
    ["17% of 2,340", 397.8], // thousands separators, as a question writes them
    ["1,000,000 / 2,000.5", 1000000 / 2000.5],
    ["max(1,000)", 1], // in a function's arguments a comma separates them
    ["max((1,000))", 1000], // a group inside them is no argument list
    ["(1,000) + 1", 1001],
  ])("%s = %d", (expression, expected) => {
    expect(evaluateExpression(expression)).toBe(expected);
  });

  it.each([
    ["17 and 4", /Unexpected "and" at position 4: "and" only joins a list/],
    ["12, 18, 27", /Unexpected "," at position 3: commas only separate function arguments/],
    ["2 times", /ends too early/],
    ["square root of", /ends too early/],
    ["square root of -4", /sqrt of a negative number/],
    ["average of 1 times", /ends too early/],
    ["17 plus times 4", /Expected a number, a function or "\(" at position 9, found "times"/],
    ["theta", /Unknown name "theta"/], // a word that only begins with "the"
    ["overflow", /Unknown name "overflow"/],
  ])("%j fails: %s", (expression, message) => {
    expect(() => evaluateExpression(expression)).toThrow(message);
  });
});

describe("arithmeticStretches: the question's arithmetic an expression copies whole", () => {
  const stretches = (text: string) => arithmeticStretches(text).map(([start, end]) => text.slice(start, end));
  it.each([
    ["What is 17 times 23 plus 4?", ["17 times 23 plus 4"]],
    ["What is the square root of 1764?", ["square root of 1764"]],
    ["What is 2 to the power of 10, minus 24?", ["2 to the power of 10, minus 24"]],
    ["What is the average of 12, 18, 27 and 43?", ["average of 12, 18, 27 and 43"]],
    ["Compute (12.5 + 7.5) * 3, then divide the result by 4.", ["(12.5 + 7.5) * 3"]],
    ["What is 15% of 80? And 3 squared?", ["15% of 80", "3 squared"]],
    // a lone numeral, a date and words the calculator does not read are none
    ["How many seconds are in 3.5 hours?", []],
    ["How many days are there from 2025-01-01 to 2025-12-25?", []],
    ["Find the 2nd item of 5 lists", []],
    // no stretch ends inside a numeral ("17% of 2" of "2,340", "3 times 2" of "2.5")
    ["What is 17% of 2,340?", ["17% of 2,340"]],
    ["A town of 2,340 people", []], // a lone numeral with its thousands grouped is none either
    ["What is 3 times 2.5?", ["3 times 2.5"]],
    // a function the calculator knows, called by name: a chain's "take the square root of the result" as it reads
    ["then sqrt(1000).", ["sqrt(1000)"]],
    ["mean(3755251, 10025657)", ["mean(3755251, 10025657)"]],
    ["a roundabout(3) and sumo(4)", []], // a name that only begins with one is none
  ])("%j", (text, expected) => {
    expect(stretches(text)).toEqual(expected);
  });
});

describe("evaluateExpression: precedence and associativity", () => {
  it.each([
    ["1 + 2 * 3", 7],
    ["(1 + 2) * 3", 9],
    ["10 - 4 - 3", 3], // left-associative: (10-4)-3, not 10-(4-3) = 9
    ["100 / 10 / 5", 2], // (100/10)/5, not 100/(10/5) = 50
    ["2 ^ 3 ^ 2", 512], // right-associative: 2^(3^2) = 2^9, not (2^3)^2 = 64
    ["2 ^ 3 * 2", 16],
    ["2 * 3 ^ 2", 18],
    ["17 % 5 * 2", 4],
    ["7 - 10 % 4", 5],
    ["2 ** 10", 1024],
    ["6 × 7 ÷ 2", 21],
  ])("%s = %d", (expression, expected) => {
    expect(evaluateExpression(expression)).toBe(expected);
  });

  it.each([
    ["-3", -3],
    ["--3", 3],
    ["+3", 3],
    ["-2 ^ 2", -4], // as written in mathematics: -(2^2)
    ["(-2) ^ 2", 4],
    ["2 ^ -1", 0.5],
    ["2 ^ -2 ^ 2", 0.0625], // 2^(-(2^2)) = 2^-4
    ["3 * -2", -6],
    ["3 - -2", 5],
    ["-(1 + 2) * 2", -6],
    ["−5 + 1", -4], // Unicode minus sign
  ])("unary: %s = %d", (expression, expected) => {
    expect(evaluateExpression(expression)).toBe(expected);
  });

  it.each([
    ["1.5 + .5", 2],
    ["1e3", 1000],
    ["2.5E-1", 0.25],
    ["1.", 1],
    ["  7\t*\n6 ", 42],
  ])("numbers: %s = %d", (expression, expected) => {
    expect(evaluateExpression(expression)).toBe(expected);
  });
});

describe("evaluateExpression: functions and constants", () => {
  it.each([
    ["sqrt(16)", 4],
    ["abs(-3.5)", 3.5],
    ["floor(-2.5)", -3],
    ["ceil(2.1)", 3],
    ["round(2.5)", 3],
    ["round(-2.5)", -3], // half away from zero, not JavaScript's Math.round (-2)
    ["round(3.14159, 2)", 3.14],
    ["round(1.005, 2)", 1.01], // 1.005 * 100 is 100.49999999999999 in doubles; must still round up
    ["min(4, -1, 7)", -1],
    ["max(4, -1, 7)", 7],
    ["log(1000)", 3],
    ["log(8, 2)", 3],
    ["ln(1)", 0],
    ["exp(0)", 1],
    ["sin(0)", 0],
    ["cos(0)", 1],
    ["tan(0)", 0],
    ["SQRT(9) + Abs(-1)", 4],
    ["sqrt(3^2 + 4^2)", 5],
  ])("%s = %d", (expression, expected) => {
    expect(evaluateExpression(expression)).toBe(expected);
  });

  it("knows pi and e", () => {
    expect(evaluateExpression("pi")).toBeCloseTo(3.141592653589793, 15);
    expect(evaluateExpression("e")).toBeCloseTo(2.718281828459045, 15);
    expect(evaluateExpression("ln(e^2)")).toBeCloseTo(2, 15);
    expect(evaluateExpression("cos(pi)")).toBeCloseTo(-1, 15);
    expect(evaluateExpression("2*pi")).toBeCloseTo(6.283185307179586, 14);
  });
});

describe("evaluateExpression: errors", () => {
  it.each([
    ["", /empty/],
    ["   ", /empty/],
    ["1 +", /ends too early/],
    ["(1 + 2", /Unbalanced parentheses: "\(" at position 1 is never closed/],
    ["1 + 2)", /Unbalanced parentheses: "\)" at position 6 has no matching/],
    ["max(1, 2", /never closed/],
    ["* 3", /Expected a number.*position 1/],
    ["3 * * 4", /Expected a number.*position 5/],
    ["2pi", /Missing operator before "pi" at position 2/],
    ["2(3)", /Missing operator before "\(" at position 2/],
    ["1 2", /Missing operator/],
    ["1,00", /commas only separate function arguments.*write 1000/],
    ["1,000,00", /commas only separate function arguments/],
    ["1 $ 2", /Unexpected character "\$" at position 3/],
    ["1 = 1", /Unexpected character "="/],
    ["1 = 2 ?", /Unexpected character "="/],
    ["x + 1", /Unknown name "x" at position 1; known functions: sqrt/],
    ["sqrt", /sqrt is a function: write sqrt\(x\)/],
    ["sqrt(1, 2)", /sqrt takes 1 argument, got 2/],
    ["min()", /min takes 1 or more arguments, got 0/],
    ["round(1.5, 2.5)", /digits must be a whole number/],
    ["1 / 0", /Division by zero/],
    ["5 / (2 - 2)", /Division by zero/],
    ["5 % 0", /Modulo by zero/],
    ["0 ^ -1", /division by zero/],
    ["sqrt(-4)", /sqrt of a negative number \(-4\) has no real result/],
    ["ln(0)", /ln of zero or a negative number/],
    ["log(-1)", /log of zero or a negative number/],
    ["log(8, 1)", /log base must be positive and not 1/],
    ["(-8) ^ (1/3)", /negative number raised to a fractional power/],
    ["10 ^ 400", /overflows/],
    ["exp(1000)", /overflows/],
    ["1e400", /too large/],
  ])("%j fails: %s", (expression, message) => {
    expect(() => evaluateExpression(expression)).toThrow(ExpressionError);
    expect(() => evaluateExpression(expression)).toThrow(message);
  });

  it("explains % when a percentage was meant", () => {
    expect(() => evaluateExpression("15 % + ")).toThrow(
      /ends too early.*% between two numbers is the remainder.*15% of 80/,
    );
    expect(() => evaluateExpression("1 +")).not.toThrow(/remainder/);
  });

  it("caps the expression length", () => {
    const long = Array.from({ length: 300 }, () => "1").join("+"); // 599 characters
    expect(() => evaluateExpression(long)).toThrow(/too long \(599 characters, at most 500\)/);
    expect(evaluateExpression(long, { maxLength: 1000 })).toBe(300);
  });

  it("caps nesting depth instead of overflowing the stack", () => {
    expect(() => evaluateExpression(`${"(".repeat(100)}1${")".repeat(100)}`)).toThrow(/nested too deeply/);
    expect(() => evaluateExpression(`${"-".repeat(200)}1`)).toThrow(/nested too deeply/);
    expect(evaluateExpression(`${"(".repeat(30)}1${")".repeat(30)}`)).toBe(1);
  });
});

describe("evaluateExpression: no code execution", () => {
  it.each([
    "constructor",
    "__proto__",
    "prototype",
    "toString",
    "valueOf",
    "hasOwnProperty",
    "process.exit()",
    "process",
    "this",
    "globalThis",
    "window",
    "require('fs')",
    "eval('1')",
    "Function('return 1')()",
    "constructor.constructor('return process')()",
    "sqrt.constructor",
    "Math.PI",
    "1; process.exit(1)",
    "`1`",
    "[1]",
    "{}",
    "a = 1",
    "() => 1",
  ])("rejects %j", (expression) => {
    let error: unknown;
    try {
      evaluateExpression(expression);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ExpressionError);
    expect((error as Error).message).toMatch(
      /Unknown name|Unexpected character|is a function|Missing operator|Expected a number/,
    );
  });

  it("names the unknown identifier", () => {
    expect(() => evaluateExpression("constructor")).toThrow('Unknown name "constructor"');
    expect(() => evaluateExpression("__proto__")).toThrow('Unknown name "__proto__"');
    expect(() => evaluateExpression("process.exit()")).toThrow('Unknown name "process"');
    expect(() => evaluateExpression("globalThis")).toThrow('Unknown name "globalThis"');
    expect(() => evaluateExpression("this")).toThrow('Unknown name "this"');
  });
});

// ---- property tests against a reference evaluator written here, independently of the parser ----

type Op = "+" | "-" | "*" | "/";
const applyOp = (op: Op, a: number, b: number): number =>
  op === "+" ? a + b : op === "-" ? a - b : op === "*" ? a * b : a / b;

/** Reference for a flat `n0 op n1 op n2 ...`: every * and / first, left to right, then + and -, left to right. */
function referenceFlat(numbers: number[], ops: Op[]): number | "division-by-zero" {
  const terms: number[] = [numbers[0]];
  const additive: Op[] = [];
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    const next = numbers[i + 1];
    if (op === "*" || op === "/") {
      if (op === "/" && next === 0) return "division-by-zero";
      terms[terms.length - 1] = applyOp(op, terms[terms.length - 1], next);
    } else {
      additive.push(op);
      terms.push(next);
    }
  }
  return additive.reduce((acc, op, i) => applyOp(op, acc, terms[i + 1]), terms[0]);
}

const literal = fc.oneof(
  fc.integer({ min: -999, max: 999 }),
  fc.integer({ min: -99_999, max: 99_999 }).map((n) => n / 100),
);
const render = (n: number) => String(n); // negatives become a unary minus in the expression

describe("evaluateExpression: property tests", () => {
  it("flat + - * / chains follow precedence and left associativity", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom<Op>("+", "-", "*", "/"), literal), { minLength: 1, maxLength: 12 }),
        literal,
        (tail, first) => {
          const numbers = [first, ...tail.map(([, n]) => n)];
          const ops = tail.map(([op]) => op);
          const source = [render(first), ...tail.map(([op, n]) => `${op} ${render(n)}`)].join(" ");
          const expected = referenceFlat(numbers, ops);
          if (expected === "division-by-zero") {
            expect(() => evaluateExpression(source)).toThrow(/Division by zero/);
          } else {
            // Same operations in the same order give the same double, bit for bit.
            expect(evaluateExpression(source)).toBe(expected);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  type Tree = number | { op: Op; left: Tree; right: Tree };
  const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      literal,
      fc.record({ op: fc.constantFrom<Op>("+", "-", "*", "/"), left: tie("node"), right: tie("node") }),
    ),
  })).node;
  const renderTree = (t: Tree): string =>
    typeof t === "number" ? render(t) : `(${renderTree(t.left)} ${t.op} ${renderTree(t.right)})`;
  const referenceTree = (t: Tree): number => {
    if (typeof t === "number") return t;
    const left = referenceTree(t.left);
    const right = referenceTree(t.right);
    if (t.op === "/" && right === 0) throw new Error("division-by-zero");
    return applyOp(t.op, left, right);
  };

  it("parenthesized trees evaluate as the tree says", () => {
    fc.assert(
      fc.property(tree, (t) => {
        const source = renderTree(t);
        fc.pre(source.length <= 500);
        let expected: number;
        try {
          expected = referenceTree(t);
        } catch {
          expect(() => evaluateExpression(source)).toThrow(/Division by zero/);
          return;
        }
        fc.pre(Number.isFinite(expected));
        expect(evaluateExpression(source)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it("the skill's tidied result stays within 1e-14 relative of the exact double", () => {
    fc.assert(
      fc.property(literal, fc.constantFrom<Op>("+", "-", "*", "/"), literal, (a, op, b) => {
        fc.pre(!(op === "/" && b === 0));
        const exact = applyOp(op, a, b);
        const shown = calc(`${render(a)} ${op} ${render(b)}`) as number;
        expect(Math.abs(shown - exact)).toBeLessThanOrEqual(Math.abs(exact) * 1e-14);
      }),
      { numRuns: 300 },
    );
  });
});

describe("calculatorSkill", () => {
  it("returns tidy numbers without float noise", () => {
    expect(calc("0.1 + 0.2")).toBe(0.3);
    expect(calc("0.1 * 3")).toBe(0.3);
    expect(calc("1 - 0.9")).toBe(0.1);
    expect(calc("1 / 3")).toBe(0.333333333333333);
    expect(calc("2 / 3")).toBe(0.666666666666667);
    expect(calc("1.1 * 1.1")).toBe(1.21);
    expect(calc("-0 * 5")).toBe(0);
    expect(calc("-0 * 5")).not.toBe(-0);
  });

  it("keeps integers exact past 15 digits", () => {
    expect(calc("2^53")).toBe(9007199254740992);
    expect(calc("123456789 * 1000000000")).toBe(123456789000000000);
  });

  it("throws a model-readable Error for bad input", () => {
    expect(() => calc("1/0")).toThrow(/Division by zero/);
    expect(() => calc("import('fs')")).toThrow(/Unknown name "import"/);
  });

  it("validates its argument schema", () => {
    expect(calculatorSkill.parameters.safeParse({ expression: "1+1" })).toMatchObject({ success: true });
    expect(calculatorSkill.parameters.safeParse({ expression: 5 })).toMatchObject({ success: false });
    expect(calculatorSkill.parameters.safeParse({})).toMatchObject({ success: false });
    expect(calculatorSkill.parameters.safeParse({ expression: "1".repeat(501) })).toMatchObject({ success: false });
  });
});
