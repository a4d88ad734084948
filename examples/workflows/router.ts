/**
 * Router: one constrained call picks a route; each route makes one narrow call and lets a skill do the work.
 *
 *   npm start -s -- run examples/workflows/router.ts "What is 17 times 23 plus 4?" --model script:examples/workflows/replies/router.json
 *   npm start -s -- run examples/workflows/router.ts "Convert 26.2 miles to kilometers." --model ~/.cache/gemma-agent/test-models/SmolLM2-135M-Instruct.Q4_1.gguf --threads 1
 *
 * Skills: calculator, convert_units (the built-ins). In your own project, import from "gemma-agent".
 */
import { z } from "zod";
import { defineWorkflow, prompt, router, WorkflowCallError, type WorkflowContext } from "../../src/workflows/index.js";

// No example values in the schemas: the schema is shown to the model, and a tiny model copies an example
// ("17*23+4") into every answer (measured: docs/results/workflows.md). Units are an enum the grammar enforces.
const expression = z.object({ expression: z.string().min(1).max(120) });

/** The units convert_units knows, as the grammar lets the model write them. */
export const UNITS = ["mm", "cm", "m", "km", "in", "ft", "yd", "mi", "mg", "g", "kg", "oz", "lb", "C", "F", "K"].concat(
  ["mL", "L", "tsp", "tbsp", "fl oz", "cup", "pt", "qt", "gal"],
) as [string, ...string[]];

const quantity = z.object({ value: z.number(), from: z.enum(UNITS), to: z.enum(UNITS) });

/** A skill's value, or why it failed (the run still answers, saying what went wrong). */
async function tryCall<T>(ctx: WorkflowContext, skill: string, args: Record<string, unknown>) {
  try {
    return { ok: true as const, value: await ctx.call<T>(skill, args) };
  } catch (error) {
    if (error instanceof WorkflowCallError) return { ok: false as const, reason: error.reason };
    throw error;
  }
}

/** Arithmetic: the model writes only the expression; the calculator computes it. */
const calculate = {
  description: "arithmetic: sums, products, percentages, powers, square roots, averages",
  run: async (ctx: WorkflowContext, question: string) => {
    const { expression: text } = await ctx.ask(
      `Write one arithmetic expression (numbers, + - * / ^ ( ), sqrt; p% of x is p/100*x) that computes the answer.\nQuestion: ${question}`,
      { schema: expression, name: "expression", maxTokens: 96 },
    );
    const result = await tryCall<number>(ctx, "calculator", { expression: text });
    return result.ok ? `${text} = ${result.value}` : `${text} could not be computed: ${result.reason}`;
  },
};

/** Units: the model reads the quantity and the units; convert_units converts. */
const convert = {
  description: "converting a quantity from one unit to another (length, mass, volume, temperature)",
  run: async (ctx: WorkflowContext, question: string) => {
    const q = await ctx.ask(`Which quantity should be converted, from which unit to which?\nQuestion: ${question}`, {
      schema: quantity,
      name: "quantity",
      maxTokens: 96,
    });
    const converted = await tryCall<{ from: string; to: string; result: number }>(ctx, "convert_units", q);
    if (!converted.ok) return `${q.value} ${q.from} could not be converted to ${q.to}: ${converted.reason}`;
    return `${q.value} ${converted.value.from} = ${converted.value.result} ${converted.value.to}`;
  },
};

/** Anything else: one short answer in words. */
const answer = prompt("Answer in one short sentence.\nQuestion:", {
  description: "anything else, answered directly in words",
  maxTokens: 64,
});

export default defineWorkflow({
  name: "router",
  skills: ["calculator", "convert_units"],
  description: "Routes a question to arithmetic, unit conversion or a direct answer, each one narrow model call.",
  run: router({ routes: { calculate, convert, answer } }),
});
