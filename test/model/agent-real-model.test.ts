/**
 * The agent on a real Gemma model. Runs only when GEMMA_AGENT_TEST_MODEL points at a Gemma GGUF, e.g.
 *   GEMMA_AGENT_TEST_MODEL=~/.cache/gemma-agent/models/gemma-3-1b-it-Q4_K_M.gguf npx vitest run test/model
 * Each question needs a skill to answer; the test checks the skill was called and the answer holds its result.
 */
import { existsSync } from "node:fs";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { loadModel, type LlamaModelHandle } from "../../src/model/llama/index.js";
import { defineSkill, Registry } from "../../src/skills/index.js";

const modelPath = process.env.GEMMA_AGENT_TEST_MODEL;
const skipReason = !modelPath
  ? "GEMMA_AGENT_TEST_MODEL is not set (point it at a real Gemma GGUF to run these tests)"
  : !existsSync(modelPath)
    ? `GEMMA_AGENT_TEST_MODEL=${modelPath} does not exist`
    : undefined;
if (skipReason) console.info(`test/model skipped: ${skipReason}`);

const calls: string[] = [];
const registry = new Registry([
  defineSkill({
    name: "multiply",
    description: "Multiply two numbers exactly. Use it for any multiplication.",
    parameters: z.object({ a: z.number(), b: z.number() }),
    run: ({ a, b }) => (calls.push("multiply"), a * b),
  }),
  defineSkill({
    name: "get_weather",
    description: "Current weather of a city: temperature in Celsius and sky.",
    parameters: z.object({ city: z.string().min(1) }),
    run: ({ city }) => (calls.push("get_weather"), { city, celsius: 17, sky: "light rain" }),
  }),
  defineSkill({
    name: "lookup_order",
    description: "Status of a customer order by its order id.",
    parameters: z.object({ order_id: z.string().min(1) }),
    run: ({ order_id }) => (calls.push("lookup_order"), { order_id, status: "shipped", carrier: "Colissimo", eta: "2 days" }),
  }),
]);

describe.skipIf(skipReason !== undefined)("the agent on a real Gemma model", () => {
  let model: LlamaModelHandle;
  beforeAll(async () => {
    model = await loadModel({ model: modelPath!, gpu: "auto", seed: 1 });
  }, 600_000);
  afterAll(() => model?.dispose());

  const cases = [
    { query: "What is 48213 multiplied by 377? Use the multiply skill.", skill: "multiply", answer: /18[ ,.]?176[ ,.]?301/ },
    { query: "What's the weather like in Lyon right now?", skill: "get_weather", answer: /17|rain/i },
    { query: "Where is my order A-7731?", skill: "lookup_order", answer: /shipped|Colissimo/i },
  ];
  for (const c of cases) {
    it(`answers "${c.query}" with the ${c.skill} skill`, async () => {
      calls.length = 0;
      const state = await new Agent({ model, registry }).run(c.query, { maxIterations: 12 });
      expect(calls).toContain(c.skill);
      expect(state.stopReason).toBe("answer");
      expect(state.answer).toMatch(c.answer);
    }, 600_000);
  }
});
