/**
 * Chain: read the quantity (structured) → convert it (a skill) → say it (free text), with a gate that stops the chain
 * when the conversion failed, saying why.
 *
 *   npm start -s -- run examples/workflows/chain.ts "How many kilograms is 150 pounds?" --model script:examples/workflows/replies/chain.json
 *   npm start -s -- run examples/workflows/chain.ts "How many kilograms is 150 pounds?" --model ~/.cache/gemma-agent/test-models/SmolLM2-135M-Instruct.Q4_1.gguf --threads 1
 *
 * Skills: convert_units. In your own project, import from "gemma-agent".
 */
import { z } from "zod";
import { chain, defineWorkflow, prompt, WorkflowCallError, type WorkflowContext } from "../../src/workflows/index.js";
import { UNITS } from "./router.js";

// the units convert_units knows (an enum: the grammar lets the model write no other), no example values to copy
const quantity = z.object({ value: z.number(), from: z.enum(UNITS), to: z.enum(UNITS) });
type Quantity = z.infer<typeof quantity>;
type Converted = Quantity & { result?: string; error?: string };

const read = prompt<string>(
  (question) => `Which quantity should be converted, from which unit to which?\n${question}`,
  {
    schema: quantity,
    name: "read",
    maxTokens: 96,
  },
);

async function convert(ctx: WorkflowContext, q: Quantity): Promise<Converted> {
  try {
    const converted = await ctx.call<{ result: number; to: string }>("convert_units", q);
    return { ...q, result: `${converted.result} ${converted.to}` };
  } catch (error) {
    if (error instanceof WorkflowCallError) return { ...q, error: error.reason };
    throw error;
  }
}

const say = prompt<Converted>((c) => `In one sentence, say that ${c.value} ${c.from} is ${c.result}.`, {
  name: "say",
  maxTokens: 64,
});

export default defineWorkflow({
  name: "chain",
  skills: ["convert_units"],
  description: "Reads a quantity, converts it with convert_units, and says the result; stops early when it cannot.",
  run: chain([read, convert, say], {
    gate: (value, { step }) =>
      step === 2 && (value as Converted).error !== undefined
        ? { pass: false, reason: `I could not convert that: ${(value as Converted).error}` }
        : true,
  }),
});
