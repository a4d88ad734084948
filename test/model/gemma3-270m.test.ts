/**
 * Gemma 3 270M (the pretrained base model, Q4_K_M, real weights) through the loader: what random weights could not
 * show. Runs when GEMMA_AGENT_TEST_MODEL points at it (see test/helpers/test-models.ts; CI always sets it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, AgentState } from "../../src/agent/index.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { benchAccess } from "../../src/model/llama/bench-access.js";
import { gemma3ChatFormat } from "../../src/prompt/chat-format.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { loadTestModel, testModelPath } from "../helpers/test-models.js";

const path = testModelPath("GEMMA_AGENT_TEST_MODEL");

const registry = new Registry([
  defineSkill({
    name: "get_weather",
    description: "Current weather of a city.",
    parameters: z.object({ city: z.string().min(1) }),
    run: ({ city }) => ({ city, celsius: 17, sky: "light rain" }),
  }),
  defineSkill({
    name: "multiply",
    description: "Multiply two numbers.",
    parameters: z.object({ a: z.number(), b: z.number() }),
    run: ({ a, b }) => a * b,
  }),
]);

describe.skipIf(!path)("Gemma 3 270M (real weights)", () => {
  let model: LlamaModelHandle;
  beforeAll(async () => {
    model = await loadTestModel(path!);
  }, 120_000);
  afterAll(() => model?.dispose());

  it("reports what the GGUF is: gemma3, the 262,144-token vocabulary, Q4_K_M, Gemma 3 turns", () => {
    expect(model.info).toMatchObject({ architecture: "gemma3", vocabularySize: 262_144, quantization: "Q4_K_M" });
    expect(model.info.trainContextLength).toBe(32_768);
    expect(model.chatFormat).toBe(gemma3ChatFormat);
  });

  it("puts the BOS the GGUF asks for before a plain prompt, and continues a factual prompt correctly (greedy)", async () => {
    const prompt = "Question: What is the capital of France?\nAnswer:";
    const tokens = model.tokenize(prompt);
    expect(tokens[0]).not.toBe(benchAccess(model).llamaObjects.model.tokens.bos);
    await benchAccess(model).llamaObjects.sequence.clearHistory();
    const text = await model.generate(prompt, { maxTokens: 4, temperature: 0 });
    expect(text).toMatch(/^ Paris\b/);
    expect(model.stats.promptTokens).toBe(tokens.length + 1); // the BOS, put first
    await benchAccess(model).llamaObjects.sequence.clearHistory();
    await model.generate(`<bos>${prompt}`, { maxTokens: 1, temperature: 0 });
    expect(model.stats.promptTokens).toBe(tokens.length + 1); // no second BOS
  }, 60_000);

  it("gives the same constrained action twice at temperature 0, and a seed fixes sampled output", async () => {
    const agent = new Agent({ model, registry });
    const prompt = agent.renderPrompt(new AgentState("What's the weather like in Lyon?"));
    const options = { jsonSchema: agent.actionJsonSchema!, maxTokens: 64, temperature: 0 };
    const first = await model.generate(prompt, options);
    await benchAccess(model).llamaObjects.sequence.clearHistory();
    const second = await model.generate(prompt, options);
    expect(second).toBe(first);
    expect(() => JSON.parse(first)).not.toThrow();

    const sampled = async (handle: LlamaModelHandle) =>
      handle.generate("Once upon a time", { maxTokens: 24, temperature: 1 });
    const seeded = await loadTestModel(path!, { seed: 42, contextSize: 256 });
    const reseeded = await loadTestModel(path!, { seed: 42, contextSize: 256 });
    const other = await loadTestModel(path!, { seed: 7, contextSize: 256 });
    try {
      const a = await sampled(seeded);
      expect(await sampled(reseeded)).toBe(a);
      expect(await sampled(other)).not.toBe(a);
    } finally {
      await Promise.all([seeded.dispose(), reseeded.dispose(), other.dispose()]);
    }
  }, 180_000);

  it("evaluates at most 1.1x the new prompt tokens over an 8-step agent run (KV-cache reuse on real weights)", async () => {
    // A validator refuses every final answer, so the run takes all 8 steps whatever the model does.
    const keepGoing = {
      name: "keep_going",
      check: (action: { type: string }) =>
        action.type === "final-answer"
          ? { ok: false as const, feedback: "Call a skill first." }
          : { ok: true as const },
    };
    const steps: { prompt: number; evaluated: number; generated: number }[] = [];
    const recorded = {
      chatFormat: model.chatFormat,
      info: model.info,
      get stats() {
        return model.stats;
      },
      generate: async (prompt: string, options?: Parameters<LlamaModelHandle["generate"]>[1]) => {
        const text = await model.generate(prompt, options);
        steps.push({
          prompt: model.stats.promptTokens,
          evaluated: model.stats.evaluatedPromptTokens,
          generated: model.stats.generatedTokens,
        });
        return text;
      },
    };
    await benchAccess(model).llamaObjects.sequence.clearHistory();
    const agent = new Agent({ model: recorded, registry, maxTokens: 48, validators: [keepGoing] });
    const state = await agent.run("What is 48213 multiplied by 377, and what's the weather in Lyon?", {
      maxIterations: 8,
      maxRetries: 8,
    });
    expect(state.iterations).toBe(8);
    // New tokens of a step: its prompt minus what the sequence already held (the previous prompt and its reply).
    const newTokens = steps.reduce(
      (sum, s, i) => sum + (i === 0 ? s.prompt : s.prompt - steps[i - 1].prompt - steps[i - 1].generated),
      0,
    );
    const evaluated = steps.reduce((sum, s) => sum + s.evaluated, 0);
    console.info(
      `8-step run on Gemma 3 270M: evaluated ${evaluated} / new ${newTokens} prompt tokens (of ${steps.reduce((n, s) => n + s.prompt, 0)})`,
    );
    expect(evaluated).toBeLessThanOrEqual(1.1 * newTokens);
  }, 300_000);

  it("stops a real generation within 200 ms of an abort, and the handle works afterwards", async () => {
    const controller = new AbortController();
    let abortedAt = 0;
    let tokens = 0;
    const call = model.generate(
      gemma3ChatFormat.render([{ role: "user", content: "Write a very long story about the sea." }]),
      {
        maxTokens: 400,
        temperature: 0.8,
        signal: controller.signal,
        onToken: () => {
          if (++tokens === 5) {
            abortedAt = performance.now();
            controller.abort();
          }
        },
      },
    );
    const error = await call.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    const latency = performance.now() - abortedAt;
    expect(error?.name).toBe("AbortError");
    expect(latency).toBeLessThan(200);
    expect(
      await model.generate("Question: What is the capital of France?\nAnswer:", { maxTokens: 3, temperature: 0 }),
    ).toMatch(/^ Paris\b/);
  }, 60_000);

  it("the action grammar holds a whole agent run: every reply parses and names a real skill (answers are the eval's job)", async () => {
    const agent = new Agent({ model, registry, maxTokens: 96 });
    const state = await agent.run("What's the weather like in Lyon right now?", { maxIterations: 4 });
    const parseErrors = state.stream.ofType("validation-error").filter((e) => e.validatorName === "action_parse");
    expect(parseErrors).toEqual([]);
    expect(state.stream.ofType("model-error")).toEqual([]);
    expect(state.iterations).toBeGreaterThan(0);
    expect(["answer", "max_iterations"]).toContain(state.stopReason);
  }, 300_000);
});
