/**
 * An agent's output schema under the grammar, on the fixture model (random weights, real llama.cpp): whatever the
 * model samples, its final answer is JSON that matches the schema, so the parser never refuses one; without the
 * grammar the same model's replies are refused (the check is real, not vacuous).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { Registry } from "../../src/skills/index.js";
import { loadFixtureModel } from "../helpers/fixture-model.js";

const SCHEMA = {
  type: "object",
  properties: {
    value: { type: "number" },
    unit: { enum: ["km", "mi", "kg"] },
    text: { type: "string", maxLength: 40 },
  },
  required: ["value", "unit", "text"],
  additionalProperties: false,
};
const check = z.object({ value: z.number(), unit: z.enum(["km", "mi", "kg"]), text: z.string().max(40) }).strict();
const RUNS = 6;

let model: LlamaModelHandle;
beforeAll(async () => {
  model = await loadFixtureModel({ seed: 7, temperature: 1 });
});
afterAll(() => model?.dispose());

describe("an output schema on a real model", () => {
  it(`with the grammar: ${RUNS} runs, every answer a JSON value that matches the schema, no reply refused`, async () => {
    const agent = new Agent({
      model,
      registry: new Registry(),
      outputSchema: SCHEMA,
      maxTokens: 200,
      maxThoughtChars: 20,
    });
    for (let i = 0; i < RUNS; i++) {
      const state = await agent.run(`How far is it, case ${i}?`, { maxIterations: 1 });
      expect(state.stream.ofType("validation-error")).toEqual([]);
      expect(state.stopReason).toBe("answer");
      expect(check.parse(state.reply)).toEqual(state.reply);
      // the answer is the reply as JSON text (JSON writes -0 as 0: compare through JSON, not Object.is)
      expect(JSON.parse(state.answer!)).toEqual(JSON.parse(JSON.stringify(state.reply)));
    }
  }, 300_000);

  it("without the grammar, the same random model's replies are refused by the parser", async () => {
    const agent = new Agent({ model, registry: new Registry(), outputSchema: SCHEMA, maxTokens: 60, grammar: false });
    const state = await agent.run("How far is it?", { maxIterations: 2, maxRetries: 5 });
    expect(state.stopReason).not.toBe("answer");
    expect(state.stream.ofType("validation-error").length).toBeGreaterThan(0);
  }, 120_000);
});
