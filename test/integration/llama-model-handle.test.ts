import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gemma3ChatFormat } from "../../src/prompt/chat-format.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { benchAccess } from "../../src/model/llama/bench-access.js";
import { loadFixtureModel } from "../helpers/fixture-model.js";

let model: LlamaModelHandle;
beforeAll(async () => {
  model = await loadFixtureModel({ seed: 7 });
});
afterAll(() => model?.dispose());

const prompt = (query: string) =>
  gemma3ChatFormat.render([
    { role: "system", content: "You answer briefly." },
    { role: "user", content: query },
  ]);

describe("LlamaModelHandle on the fixture model", () => {
  it("describes the model: info from the GGUF, Gemma 3 chat format, threads and backend", () => {
    expect(model.info).toMatchObject({
      architecture: "gemma3",
      name: "tiny-gemma3-fixture",
      vocabularySize: 262_144,
      quantization: "F16",
      contextLength: 4096,
      trainContextLength: 8192,
    });
    expect(model.info.path).toMatch(/tiny-gemma3\.gguf$/);
    expect(model.chatFormat).toBe(gemma3ChatFormat);
    expect(model.backend).toBe("cpu");
    // The helper asks for 1 thread: the handle reports it and llama.cpp's context uses it.
    expect(model.threads).toBe(1);
    expect(benchAccess(model).llamaObjects.context.idealThreads).toBe(1);
  });

  it("generates text, at most maxTokens tokens, and counts them", async () => {
    const pieces: string[] = [];
    const text = await model.generate(prompt("Say something."), {
      maxTokens: 12,
      temperature: 0.8,
      onToken: (piece) => pieces.push(piece),
    });
    expect(text.length).toBeGreaterThan(0);
    expect(pieces.join("")).toBe(text);
    const stats = model.stats;
    expect(stats.generatedTokens).toBeGreaterThan(0);
    expect(stats.generatedTokens).toBeLessThanOrEqual(12);
    expect(stats.promptTokens).toBe(model.tokenize(prompt("Say something.")).length);
    expect(stats.tokensPerSecond).toBeGreaterThan(0);
    expect(stats.timeToFirstTokenMs).toBeGreaterThan(0);
  });

  it("never samples a token with empty text (<pad>, <unusedN>, turn markers), with or without a grammar", async () => {
    const { model: llamaModel, sequence } = benchAccess(model).llamaObjects;
    const emptyTokens = (from: number) =>
      sequence.contextTokens
        .slice(from)
        .filter((t) => !llamaModel.isEogToken(t) && llamaModel.detokenize([t], false) === "");
    // Random weights give the ~6,250 empty tokens (2.4% of the vocabulary) real odds: hundreds of hot samples meet some.
    for (let i = 0; i < 3; i++) {
      const p = prompt(`Ramble on, part ${i}.`);
      await model.generate(p, { maxTokens: 150, temperature: 1.5 });
      expect(emptyTokens(model.tokenize(p).length)).toEqual([]);
    }
    const p = prompt("JSON please.");
    await model.generate(p, {
      maxTokens: 40,
      temperature: 1.5,
      jsonSchema: { type: "object", properties: { note: { type: "string" } }, required: ["note"] },
    });
    expect(emptyTokens(model.tokenize(p).length)).toEqual([]);
  });

  it("tokenizes the rendered prompt with special tokens: one BOS, turn markers as control tokens", () => {
    const tokens = model.tokenize(prompt("hello"));
    const { model: llamaModel } = benchAccess(model).llamaObjects;
    expect(tokens[0]).toBe(llamaModel.tokens.bos);
    expect(tokens.filter((t) => t === llamaModel.tokens.bos)).toHaveLength(1);
    const control = tokens
      .filter((t) => llamaModel.getTokenAttributes(t).control)
      .map((t) => llamaModel.detokenize([t], true));
    expect(control).toEqual(["<bos>", "<start_of_turn>", "<end_of_turn>", "<start_of_turn>"]);
  });

  it("is greedy by default: the same prompt gives the same text", async () => {
    const a = await model.generate(prompt("Repeat after me."), { maxTokens: 8 });
    await model.generate(prompt("Something else entirely, to move the cache."), { maxTokens: 4 });
    const b = await model.generate(prompt("Repeat after me."), { maxTokens: 8 });
    expect(b).toBe(a);
  });

  it("stops at the end of a grammar-constrained value: the text is the JSON and nothing after it", async () => {
    const text = await model.generate(prompt("Pick one."), { jsonSchema: { enum: ["yes", "no"] }, maxTokens: 8 });
    expect(['"yes"', '"no"']).toContain(text);
    // Every counted token carried text: no end-of-turn, EOS or empty token was generated into the reply.
    expect(model.stats.generatedTokens).toBeGreaterThan(0);
    expect(model.stats.generatedTokens).toBeLessThanOrEqual(text.length);
  });

  it("runs concurrent calls one after another, each with its own correct result", async () => {
    const p = prompt("Count.");
    const expected = await model.generate(p, { maxTokens: 6 });
    const results = await Promise.all([
      model.generate(p, { maxTokens: 6 }),
      model.generate(prompt("Other."), { maxTokens: 6 }),
      model.generate(p, { maxTokens: 6 }),
    ]);
    expect(results[0]).toBe(expected);
    expect(results[2]).toBe(expected);
    expect(model.stats.totals.calls).toBeGreaterThanOrEqual(4);
  });

  it("rejects an empty prompt and a prompt longer than the context", async () => {
    await expect(model.generate("")).rejects.toThrow(/empty/);
    await expect(model.generate("<bos>" + "word ".repeat(5000))).rejects.toThrow(/context holds 4096/);
    // still usable
    expect(await model.generate(prompt("ok?"), { maxTokens: 2 })).toBeTypeOf("string");
  });
});
