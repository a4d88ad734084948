/**
 * node-llama-cpp's samplers keep a whole-vocabulary buffer (3 MiB for Gemma's 262,144 tokens) until V8 collects them,
 * and V8 does not count it: with two sequences at once their JS objects outlive the young generation, and a process
 * with a small JS heap never ran the full collection that frees them (found by the soak, scripts/soak.ts: the eval's
 * model process grew 12 MB a run, 3.9 GB after 300 runs). The handle now runs one every few calls (NativeGarbage).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { NativeGarbage } from "../../src/model/llama/native-garbage.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { loadFixtureModel } from "../helpers/fixture-model.js";

const rssMb = () => Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;

const ANSWER = {
  type: "object",
  properties: { final_answer: { type: "string", maxLength: 16 } },
  required: ["final_answer"],
  additionalProperties: false,
};

describe("native garbage (node-llama-cpp's sampler buffers)", () => {
  it("runs a full collection every few calls, as many as 256 MiB of samplers take on the vocabulary", async () => {
    expect(new NativeGarbage(262_144).every).toBe(6); // Gemma
    expect(new NativeGarbage(49_152).every).toBe(32); // SmolLM2
    expect(new NativeGarbage(262_144, 1).every).toBe(1);
    const garbage = new NativeGarbage(262_144, 1);
    let collected = false;
    const registry = new FinalizationRegistry(() => (collected = true));
    // an object that only a full collection frees: it survived young-generation collections (old enough to be promoted)
    (() => registry.register({ big: Array.from({ length: 1000 }, (_, i) => ({ i })) }, "x"))();
    garbage.afterCall();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(garbage.collections).toBe(1);
    expect(collected).toBe(true);
  });

  it("two sequences at once, 60 rounds of constrained calls on the fixture model: resident memory stays flat", async () => {
    const model: LlamaModelHandle = await loadFixtureModel({ sequences: 2, contextSize: 2048 });
    try {
      const prompt = (k: number) =>
        `<start_of_turn>user\n${`topic ${k} `.repeat(50)}<end_of_turn>\n<start_of_turn>model\n`;
      const round = (i: number) =>
        Promise.all([0, 1].map((k) => model.generate(prompt(2 * i + k), { maxTokens: 24, jsonSchema: ANSWER })));
      const peak = async (from: number, to: number) => {
        let most = 0;
        for (let i = from; i < to; i++) {
          await round(i);
          most = Math.max(most, rssMb());
        }
        return most;
      };
      await peak(0, 10); // warm-up: the context's buffers, the grammar, the first collections
      const early = await peak(10, 20);
      await peak(20, 50);
      const late = await peak(50, 60);
      console.log(`native garbage: peak RSS ${early.toFixed(0)} MB (rounds 10-20), ${late.toFixed(0)} MB (50-60)`);
      // before: about 6.5 MB a round (its two calls' samplers kept), +260 MB over these 40 rounds
      expect(late - early).toBeLessThan(100);
    } finally {
      await model.dispose();
    }
  }, 120_000);
});
