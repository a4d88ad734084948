import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gemma3ChatFormat, type ChatMessage } from "../../src/prompt/chat-format.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { benchAccess } from "../../src/model/llama/bench-access.js";
import { loadFixtureModel } from "../helpers/fixture-model.js";

let model: LlamaModelHandle;
let fresh: LlamaModelHandle;
/**
 * Calls that erased tokens from the model's sequence while it prepared a prompt. (Once tokens come, the loader may
 * erase one token to sample a position again when random weights hit a banned token: that is not prompt reuse.)
 */
const erasures: string[] = [];
let generating = false;
/** Generate, marking when the first token arrives so erasures during generation are told apart. */
async function generate(
  handle: LlamaModelHandle,
  prompt: string,
  options: { maxTokens: number; temperature?: number },
): Promise<string> {
  generating = false;
  try {
    return await handle.generate(prompt, { ...options, onToken: () => (generating = true) });
  } finally {
    generating = false;
  }
}

beforeAll(async () => {
  model = await loadFixtureModel({ seed: 5 });
  fresh = await loadFixtureModel({ seed: 5 });
  const { sequence } = benchAccess(model).llamaObjects;
  const erase = sequence.eraseContextTokenRanges.bind(sequence);
  sequence.eraseContextTokenRanges = (ranges) => (generating || erasures.push(JSON.stringify(ranges)), erase(ranges));
  const clear = sequence.clearHistory.bind(sequence);
  sequence.clearHistory = () => (generating || erasures.push("clear"), clear());
});
afterAll(async () => {
  await model?.dispose();
  await fresh?.dispose();
});

const system = "You are a careful assistant. Use the tools when they help.";

/** What a fresh sequence generates for `prompt`: the reference for a reused one. */
async function reference(prompt: string, maxTokens: number): Promise<string> {
  await benchAccess(fresh).llamaObjects.sequence.clearHistory();
  return fresh.generate(prompt, { maxTokens });
}

describe("KV-cache prefix reuse", () => {
  it("evaluates only the new tokens of each step of an append-only conversation, and never erases", async () => {
    const messages: ChatMessage[] = [
      { role: "system", content: system },
      { role: "user", content: "What is the weather in Paris?" },
    ];
    let previousPrompt = "";
    let previousReply = "";
    let previousGenerated = 0;
    for (let step = 0; step < 4; step++) {
      const prompt = gemma3ChatFormat.render(messages);
      const reply = await generate(model, prompt, { maxTokens: 6, temperature: 0.9 });
      const stats = model.stats;
      expect(stats.promptTokens).toBe(model.tokenize(prompt).length);
      expect(stats.reusedPromptTokens + stats.evaluatedPromptTokens).toBe(stats.promptTokens);
      if (step === 0) expect(stats.reusedPromptTokens).toBe(0);
      else {
        expect(prompt.startsWith(previousPrompt + previousReply)).toBe(true); // the conversation is append-only
        // New text = everything after the previous prompt and reply; the reply's last token was sampled but not yet
        // evaluated when generation stopped at maxTokens, so it is evaluated now.
        const newTokens = model.tokenize(prompt.slice(previousPrompt.length + previousReply.length)).length;
        const lastReplyToken = previousGenerated === 6 ? 1 : 0;
        expect(stats.evaluatedPromptTokens).toBe(newTokens + lastReplyToken);
      }
      previousPrompt = prompt;
      previousReply = reply;
      previousGenerated = stats.generatedTokens;
      messages.push(
        { role: "model", content: reply },
        { role: "user", content: `Result of step ${step}: sunny, ${20 + step} degrees.` },
      );
    }
    expect(erasures).toEqual([]);
  });

  it("answers a prompt that is not an extension exactly as a fresh sequence would", async () => {
    erasures.length = 0;
    const a = gemma3ChatFormat.render([
      { role: "system", content: system },
      { role: "user", content: "Tell me about cats and their habits." },
    ]);
    const b = gemma3ChatFormat.render([
      { role: "system", content: system },
      { role: "user", content: "Tell me about dogs." },
    ]);
    await generate(model, a, { maxTokens: 8 });
    erasures.length = 0;
    const reply = await generate(model, b, { maxTokens: 8 });
    expect(erasures.length).toBe(1);
    const stats = model.stats;
    expect(stats.reusedPromptTokens).toBeGreaterThan(10); // the shared system text
    expect(stats.reusedPromptTokens).toBeLessThan(stats.promptTokens);
    expect(reply).toBe(await reference(b, 8));
  });

  describe("with prompts longer than the sliding window (512 tokens, cells pruned)", () => {
    const first = "The committee reviewed every report in detail. ".repeat(110); // ~1,000 tokens
    const second = "Each member then wrote a short note on the budget. ".repeat(90); // ~900 tokens

    it("erases only the tail when the window before the divergence is intact, and is right", async () => {
      const a = gemma3ChatFormat.render([{ role: "user", content: `${first}${second}Summarize it.` }]);
      const b = gemma3ChatFormat.render([{ role: "user", content: `${first}${second}List the open questions.` }]);
      await generate(model, a, { maxTokens: 4 });
      erasures.length = 0;
      const reply = await generate(model, b, { maxTokens: 16 });
      expect(erasures).toHaveLength(1);
      expect(erasures[0]).not.toBe("clear");
      expect(model.stats.reusedPromptTokens).toBeGreaterThan(1800);
      expect(reply).toBe(await reference(b, 16));
    });

    // Without the check, node-llama-cpp erases the tail (it only checks the first cell) and the reply differs from a
    // fresh sequence's after its first token: attention lost the pruned part of the window.
    it("starts over when the window a shorter prefix needs was pruned, and is right", async () => {
      const a = gemma3ChatFormat.render([{ role: "user", content: `${first}${second}Summarize it.` }]);
      const b = gemma3ChatFormat.render([{ role: "user", content: `${first}Now something else entirely.` }]);
      await generate(model, a, { maxTokens: 4 });
      expect(benchAccess(model).llamaObjects.sequence.stateCellsStartIndex).toBeGreaterThan(
        model.tokenize(first).length - 512,
      );
      erasures.length = 0;
      const reply = await generate(model, b, { maxTokens: 16 });
      expect(erasures).toEqual(["clear"]);
      expect(model.stats.evaluatedPromptTokens).toBe(model.stats.promptTokens);
      expect(reply).toBe(await reference(b, 16));
    });
  });

  it("reuses everything but one token when the same prompt comes twice", async () => {
    const p = gemma3ChatFormat.render([{ role: "user", content: "Again?" }]);
    const first = await generate(model, p, { maxTokens: 5 });
    const second = await generate(model, p, { maxTokens: 5 });
    expect(second).toBe(first);
    expect(model.stats.evaluatedPromptTokens).toBe(1);
  });
});
