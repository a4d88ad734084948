/**
 * Grounding through real llama.cpp on the fixture model (random weights, Gemma's real 262k vocabulary): the bias is
 * built from the real token classes and applied per token beside the grammar; off, soft and strict replies all parse
 * under the action schema (strict's mask falls back to the grammar wherever it allows no source token), and under
 * strict a value the grammar leaves open is a span of the source.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildActionJsonSchema } from "../../src/actions/action-json-schema.js";
import { parseAction } from "../../src/actions/parse-action.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { gemma3ChatFormat } from "../../src/prompt/chat-format.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { loadFixtureModel } from "../helpers/fixture-model.js";

const registry = new Registry([
  defineSkill({
    name: "get_weather",
    description: "Current weather of a city.",
    parameters: z.object({ city: z.string(), days: z.number() }),
    run: () => "sunny",
  }),
]);
const schema = buildActionJsonSchema(registry, { thought: "none" });
const question = "What is the weather in New York for 3 days?";
/** A call and nothing else: random weights would otherwise often answer. */
const callSchema = {
  type: "object",
  properties: {
    skill_name: { enum: ["get_weather"] },
    arguments: {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "number" } },
      required: ["city", "days"],
      additionalProperties: false,
    },
  },
  required: ["skill_name", "arguments"],
  additionalProperties: false,
};
const prompt = gemma3ChatFormat.render([{ role: "user", content: question }]);

let handle: LlamaModelHandle;
beforeAll(async () => {
  handle = await loadFixtureModel({ seed: 3 });
}, 120_000);
afterAll(() => handle?.dispose());

describe("grounding on the fixture model (real llama.cpp)", () => {
  it("every mode's reply parses under the action schema", async () => {
    for (const mode of ["off", "soft", "strict"] as const) {
      const text = await handle.generate(prompt, {
        jsonSchema: schema,
        maxTokens: 64,
        temperature: 0,
        grounding: { mode, source: [question], avoid: ["Current weather of a city."] },
      });
      expect(parseAction(text, registry).type, `${mode}: ${text}`).not.toBe("validation-error");
    }
  }, 120_000);

  it("strict: a call's string value is a span of the question, its number one of the question's numerals", async () => {
    for (const temperature of [0, 1]) {
      const text = await handle.generate(prompt, {
        jsonSchema: callSchema,
        maxTokens: 64,
        temperature,
        grounding: { mode: "strict", source: [question] },
      });
      const { city, days } = (JSON.parse(text) as { arguments: { city: string; days: number } }).arguments;
      expect(question, text).toContain(city);
      expect(days, text).toBe(3);
    }
  }, 120_000);

  it("levers: strict with numbers and strings only still takes the question's numeral; a bad lever is refused", async () => {
    const text = await handle.generate(prompt, {
      jsonSchema: callSchema,
      maxTokens: 64,
      temperature: 0,
      grounding: { mode: "strict", source: [question], levers: ["numbers", "strings"] },
    });
    expect((JSON.parse(text) as { arguments: { days: number } }).arguments.days, text).toBe(3);
    await expect(
      handle.generate(prompt, {
        jsonSchema: callSchema,
        maxTokens: 8,
        grounding: { mode: "soft", source: [question], levers: ["copy", "bogus" as never] },
      }),
    ).rejects.toThrow(/grounding.levers must be a list of copy, numbers, strings, answers/);
  }, 120_000);
});
