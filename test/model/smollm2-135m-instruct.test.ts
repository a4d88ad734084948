/**
 * SmolLM2-135M-Instruct (Q4_1, architecture `llama`, ChatML): a non-Gemma GGUF must work as a user expects, with the
 * GGUF's own chat template. Runs when GEMMA_AGENT_TEST_MODEL_INSTRUCT points at it (CI always sets it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { benchAccess } from "../../src/model/llama/bench-access.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { loadTestModel, testModelPath } from "../helpers/test-models.js";

const path = testModelPath("GEMMA_AGENT_TEST_MODEL_INSTRUCT");

describe.skipIf(!path)("SmolLM2-135M-Instruct (real weights, ChatML)", () => {
  let model: LlamaModelHandle;
  beforeAll(async () => {
    model = await loadTestModel(path!);
  }, 120_000);
  afterAll(() => model?.dispose());

  it("reports what the GGUF is and renders its own ChatML template, with no BOS the GGUF does not ask for", () => {
    expect(model.info).toMatchObject({ architecture: "llama", vocabularySize: 49_152, quantization: "Q4_1" });
    expect(model.chatFormat.name).toBe("template:ChatML");
    expect(model.chatFormat.endOfTurn).toBe("<|im_end|>");
    const prompt = model.chatFormat.render([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
    ]);
    expect(prompt).toBe(
      "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
    );
    expect(model.tokenize(prompt)[0]).toBe(model.tokenize("<|im_start|>")[0]); // one <|im_start|>, no extra BOS
    expect(model.tokenize(prompt).filter((t) => t === model.tokenize("<|im_start|>")[0])).toHaveLength(3);
  });

  it("adds no BOS to a plain prompt (its GGUF asks for none), and continues it", async () => {
    const prompt = "The capital of France is";
    const plain = benchAccess(model).llamaObjects.model.tokenize(prompt, true);
    expect(plain[0]).not.toBe(benchAccess(model).llamaObjects.model.tokens.bos);
    expect((await model.generate(prompt, { maxTokens: 8, temperature: 0 })).trim().length).toBeGreaterThan(0);
    expect(model.stats.promptTokens).toBe(plain.length);
  }, 60_000);

  it("answers a one-line chat question in its template with non-empty text, ending at <|im_end|>", async () => {
    const prompt = model.chatFormat.render([{ role: "user", content: "What is the capital of France?" }]);
    const text = await model.generate(prompt, { maxTokens: 32, temperature: 0 });
    expect(text.trim().length).toBeGreaterThan(0);
    expect(text).not.toContain("<|im_end|>");
    expect(text).toMatch(/Paris/);
  }, 60_000);

  it("runs a whole agent loop on the template: every reply parses under the grammar, the skill runs, the run ends", async () => {
    const ran: string[] = [];
    const registry = new Registry([
      defineSkill({
        name: "get_weather",
        description: "Current weather of a city.",
        parameters: z.object({ city: z.string().min(1) }),
        run: ({ city }) => (ran.push(city), { city, celsius: 17, sky: "light rain" }),
      }),
    ]);
    const agent = new Agent({ model, registry, maxTokens: 128 });
    const state = await agent.run("What's the weather like in Lyon right now? Use get_weather.", { maxIterations: 4 });
    expect(state.stream.ofType("validation-error").filter((e) => e.validatorName === "action_parse")).toEqual([]);
    expect(state.stream.ofType("model-error")).toEqual([]);
    expect(["answer", "max_iterations"]).toContain(state.stopReason);
    // every call the model made went to the one real skill with a non-empty city; an exact repeat of a call that
    // succeeded is answered from memory (issue 19), not run again
    const calls = state.stream.ofType("call-skill");
    for (const call of calls) expect(call.skillName).toBe("get_weather");
    expect(ran.length).toBe(calls.filter((call) => !call.repeated).length);
  }, 300_000);
});
