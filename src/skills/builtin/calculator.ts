import { z } from "zod";
import { defineSkill } from "../skill.js";
import { CALCULATOR_MAX_EXPRESSION_LENGTH } from "./defaults.js";
import { evaluateExpression } from "./evaluate-expression.js";
import { tidyNumber } from "./tidy-number.js";

/**
 * `calculator`: evaluates one arithmetic expression and returns the number (float noise rounded away: 0.1+0.2 → 0.3).
 * Parsed by `evaluateExpression` (never eval); a bad expression throws an error whose message says what to fix.
 */
export const calculatorSkill = defineSkill({
  name: "calculator",
  description:
    "Evaluate arithmetic: + - * / % ^ ( ), sqrt abs round floor ceil min max mean sum log ln " +
    "exp sin cos tan, pi, e; or words (times, plus, percent of, square root of). " +
    'Example: {"expression":"(3+4)*2^3/sqrt(16)"}',
  parameters: z.object({
    expression: z
      .string()
      .max(CALCULATOR_MAX_EXPRESSION_LENGTH)
      .describe('The expression, e.g. "15/100*80" or "round(2^0.5, 3)"'),
  }),
  run({ expression }) {
    return tidyNumber(evaluateExpression(expression));
  },
});
