import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gemma3ChatFormat } from "../../src/prompt/chat-format.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { loadFixtureModel } from "../helpers/fixture-model.js";

let model: LlamaModelHandle;
beforeAll(async () => {
  model = await loadFixtureModel();
});
afterAll(() => model?.dispose());

const prompt = (query: string) => gemma3ChatFormat.render([{ role: "user", content: query }]);
const actionSchema = {
  type: "object",
  properties: { thought: { type: "string" }, final_answer: { type: "string", minLength: 1, pattern: "\\S" } },
  required: ["final_answer"],
  additionalProperties: false,
};

/** Start a long generation, abort it once `afterTokens` tokens came, and measure how long the rejection took. */
async function abortDuring(options: { jsonSchema?: object; afterTokens: number }) {
  const controller = new AbortController();
  let tokens = 0;
  let abortedAt = 0;
  const call = model.generate(prompt("Write a very long story."), {
    maxTokens: 400,
    temperature: 1,
    signal: controller.signal,
    ...(options.jsonSchema && { jsonSchema: options.jsonSchema as any }),
    onToken: () => {
      if (++tokens === options.afterTokens) {
        abortedAt = performance.now();
        controller.abort();
      }
    },
  });
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error: error as Error, latencyMs: performance.now() - abortedAt, tokens };
}

describe("abort", () => {
  it("rejects promptly with an AbortError, and the handle stays usable with sensible stats", async () => {
    const { error, latencyMs } = await abortDuring({ afterTokens: 5 });
    expect(error?.name).toBe("AbortError");
    expect(latencyMs).toBeLessThan(200);
    // The next call waits for the aborted one to wind down, then works from a consistent state.
    const text = await model.generate(prompt("Hello again."), { maxTokens: 5 });
    expect(text.length).toBeGreaterThan(0);
    const stats = model.stats;
    expect(stats.generatedTokens).toBeGreaterThan(0);
    expect(stats.generatedTokens).toBeLessThanOrEqual(5);
    expect(stats.reusedPromptTokens + stats.evaluatedPromptTokens).toBe(stats.promptTokens);
    expect(stats.promptTokens).toBe(model.tokenize(prompt("Hello again.")).length);
  });

  it("stops the aborted generation itself within 200 ms (it does not run on in the background)", async () => {
    const controller = new AbortController();
    let abortedAt = 0;
    let tokens = 0;
    const before = model.stats.totals.generatedTokens;
    const call = model.generate(prompt("Write a very long story."), {
      maxTokens: 400,
      temperature: 1,
      signal: controller.signal,
      onToken: () => {
        if (++tokens === 3) {
          abortedAt = performance.now();
          controller.abort();
        }
      },
    });
    await call.catch(() => undefined);
    // Queued behind the aborted call: it starts only once that call has wound down.
    await model.generate(prompt("x"), { maxTokens: 1 });
    const windDownMs = performance.now() - abortedAt - model.stats.timeToFirstTokenMs;
    expect(windDownMs).toBeLessThan(200);
    expect(model.stats.totals.generatedTokens - before).toBeLessThan(10);
  });

  it("aborts a grammar-constrained generation promptly too", async () => {
    const { error, latencyMs } = await abortDuring({ jsonSchema: actionSchema, afterTokens: 4 });
    expect(error?.name).toBe("AbortError");
    expect(latencyMs).toBeLessThan(200);
    const text = await model.generate(prompt("Answer in JSON."), { jsonSchema: actionSchema, maxTokens: 8 });
    expect(() => JSON.parse(text)).not.toThrow();
  });

  it("rejects at once when the signal is already aborted, and when aborted while queued", async () => {
    await expect(model.generate(prompt("hi"), { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: "AbortError",
    });
    const controller = new AbortController();
    const running = model.generate(prompt("A long one."), { maxTokens: 40 });
    const queued = model.generate(prompt("Queued."), { maxTokens: 40, signal: controller.signal });
    controller.abort();
    await expect(queued).rejects.toMatchObject({ name: "AbortError" });
    expect(typeof (await running)).toBe("string");
  });
});
