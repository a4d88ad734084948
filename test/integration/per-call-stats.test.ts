/**
 * The llama handle reports each call's own counts (`onStats`) when calls run at once on its sequences: a call's
 * prompt tokens are its prompt's, whichever call ended last.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import type { CallStats } from "../../src/model/model-handle.js";
import { gemma3ChatFormat } from "../../src/prompt/chat-format.js";
import { loadFixtureModel } from "../helpers/fixture-model.js";

let model: LlamaModelHandle;
beforeAll(async () => {
  model = await loadFixtureModel({ seed: 7, sequences: 2 });
});
afterAll(() => model?.dispose());

const prompt = (query: string) =>
  gemma3ChatFormat.render([
    { role: "system", content: "You answer briefly." },
    { role: "user", content: query },
  ]);

describe("per-call stats on the llama handle", () => {
  it("two calls at once on two sequences each get their own counts, once, before they resolve", async () => {
    const prompts = [prompt("Hi."), prompt("Tell me, in a few words, what the weather is like in Lyon in spring.")];
    const seen: CallStats[][] = [[], []];
    const replies = await Promise.all(
      prompts.map(async (p, i) => {
        const text = await model.generate(p, { maxTokens: 6 + 4 * i, onStats: (s) => seen[i].push(s) });
        return { text, reportedBeforeResolve: seen[i].length };
      }),
    );
    for (const [i, p] of prompts.entries()) {
      expect(replies[i].reportedBeforeResolve).toBe(1);
      expect(seen[i]).toHaveLength(1);
      const [stats] = seen[i];
      expect(stats.promptTokens).toBe(model.countTokens(p));
      expect(stats.evaluatedPromptTokens).toBeLessThanOrEqual(stats.promptTokens);
      expect(stats.generatedTokens).toBeGreaterThan(0);
      expect(stats.generatedTokens).toBeLessThanOrEqual(6 + 4 * i);
      expect(stats).not.toHaveProperty("totals");
    }
    expect(model.stats.totals.calls).toBe(2);
    expect(model.stats.totals.promptTokens).toBe(seen[0][0].promptTokens + seen[1][0].promptTokens);
    expect(model.stats.totals.generatedTokens).toBe(seen[0][0].generatedTokens + seen[1][0].generatedTokens);
  });

  it("a call aborted mid-reply still reports what it spent", async () => {
    const controller = new AbortController();
    const seen: CallStats[] = [];
    const call = model.generate(prompt("Count to twenty."), {
      maxTokens: 64,
      signal: controller.signal,
      onToken: () => controller.abort(),
      onStats: (s) => seen.push(s),
    });
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    // the abort settles the call at once; the handle reports once its sampling loop has stopped
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 5000 });
    expect(seen[0].promptTokens).toBeGreaterThan(0);
  });
});
