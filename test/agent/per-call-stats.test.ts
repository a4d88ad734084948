/**
 * A call's token counts belong to that call: several calls run at once on one handle (`eval --parallel` shares one
 * model among its runs), and each run counts its own calls' tokens, whatever the order the calls end in.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { emptyRunStats } from "../../src/agent/agent-state.js";
import { generateCounted } from "../../src/agent/generate-counted.js";
import { ChildProcessModel } from "../../src/eval/models/child-process-model.js";
import type { CallStats, GenerateOptions, GenerationStats, ModelHandle } from "../../src/model/model-handle.js";
import { openAICompatibleModel } from "../../src/model/http/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { startFakeServer } from "../http/fake-server.js";

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * A handle that answers its calls in reverse order, all in one go, each call reporting its own counts (the prompt's
 * words, 1 generated token per word of the reply) and leaving the shared `stats` at the last one it answered: the
 * state a handle shares between overlapping calls.
 */
class OutOfOrderModel implements ModelHandle {
  stats: GenerationStats | undefined;
  readonly #waiting: { prompt: string; options: GenerateOptions; resolve: (text: string) => void }[] = [];

  generate(prompt: string, options: GenerateOptions = {}): Promise<string> {
    return new Promise((resolve) => this.#waiting.push({ prompt, options, resolve }));
  }

  /** Answer every waiting call, the last one first, then let their callers go on. */
  answerAll(): void {
    const replies = this.#waiting.splice(0).reverse();
    for (const { prompt, options } of replies) {
      const call: CallStats = {
        promptTokens: words(prompt),
        reusedPromptTokens: 0,
        evaluatedPromptTokens: words(prompt) - 1,
        generatedTokens: 2,
        timeToFirstTokenMs: 0,
        tokensPerSecond: 0,
      };
      this.stats = {
        ...call,
        totals: { calls: 0, promptTokens: 0, evaluatedPromptTokens: 0, generatedTokens: 0, generationMs: 0 },
      };
      options.onStats?.(call);
    }
    for (const { resolve } of replies) resolve("ok then");
  }
}

describe("per-call stats under concurrency", () => {
  it("two calls at once on one handle each count their own tokens, though they end in reverse order", async () => {
    const model = new OutOfOrderModel();
    const short = emptyRunStats();
    const long = emptyRunStats();
    const calls = [
      generateCounted(model, "one two three", {}, short),
      generateCounted(model, "one two three four five six seven", {}, long),
    ];
    await new Promise((done) => setTimeout(done, 5));
    model.answerAll();
    const [a, b] = await Promise.all(calls);
    expect(a.tokens).toEqual({ prompt: 3, evaluatedPrompt: 2, generated: 2 });
    expect(b.tokens).toEqual({ prompt: 7, evaluatedPrompt: 6, generated: 2 });
    expect([short.promptTokens, short.evaluatedPromptTokens, short.generatedTokens]).toEqual([3, 2, 2]);
    expect([long.promptTokens, long.evaluatedPromptTokens, long.generatedTokens]).toEqual([7, 6, 2]);
    // the shared stats hold whichever call was answered last: not a call's own
    expect(model.stats?.promptTokens).toBe(3);
  });

  it("a caller's own onStats still gets its call's counts", async () => {
    const model = new OutOfOrderModel();
    const seen: number[] = [];
    const call = generateCounted(model, "a b c d", { onStats: (s) => seen.push(s.promptTokens) }, emptyRunStats());
    await new Promise((done) => setTimeout(done, 5));
    model.answerAll();
    await call;
    expect(seen).toEqual([4]);
  });

  it("ScriptedModel with reportTokens reports each call's counts to that call", async () => {
    const model = new ScriptedModel(
      [
        async () => {
          await new Promise((done) => setTimeout(done, 30));
          return "the slow reply";
        },
        "fast",
      ],
      { reportTokens: true },
    );
    const slow = emptyRunStats();
    const fast = emptyRunStats();
    const [a, b] = await Promise.all([
      generateCounted(model, "slow prompt, four words", {}, slow),
      generateCounted(model, "fast", {}, fast),
    ]);
    expect(a.tokens).toEqual({ prompt: 4, evaluatedPrompt: 4, generated: 3 });
    expect(b.tokens).toEqual({ prompt: 1, evaluatedPrompt: 1, generated: 1 });
    expect(model.stats?.totals.calls).toBe(2);
  });

  it("a handle that reports no per-call stats is read after the call, as before", async () => {
    const stats: GenerationStats = {
      promptTokens: 9,
      reusedPromptTokens: 0,
      evaluatedPromptTokens: 9,
      generatedTokens: 4,
      timeToFirstTokenMs: 0,
      tokensPerSecond: 0,
      totals: { calls: 1, promptTokens: 9, evaluatedPromptTokens: 9, generatedTokens: 4, generationMs: 0 },
    };
    const model: ModelHandle = { generate: async () => "ok", stats };
    const run = emptyRunStats();
    const reply = await generateCounted(model, "anything", {}, run);
    expect(reply.tokens).toEqual({ prompt: 9, evaluatedPrompt: 9, generated: 4 });
    expect(run.generatedTokens).toBe(4);
  });

  it("the model process carries each call's own counts back with its reply", async () => {
    const factory = fileURLToPath(new URL("../eval/fixtures/per-call-stats-factory.ts", import.meta.url));
    const model = await ChildProcessModel.start({ factory, factoryOptions: { slowMs: 300 } });
    try {
      const slow = emptyRunStats();
      const fast = emptyRunStats();
      // the slow call starts first and ends last: the model's shared stats are then the fast call's
      const [a, b] = await Promise.all([
        generateCounted(model, "slow call of five words", {}, slow),
        (async () => {
          await new Promise((done) => setTimeout(done, 50));
          return generateCounted(model, "fast call", {}, fast);
        })(),
      ]);
      expect(a.text).toBe("echo slow call of five words");
      expect(a.tokens).toEqual({ prompt: 5, evaluatedPrompt: 5, generated: 6 });
      expect(b.tokens).toEqual({ prompt: 2, evaluatedPrompt: 2, generated: 3 });
      expect([slow.promptTokens, fast.promptTokens]).toEqual([5, 2]);
      expect(model.stats?.promptTokens).toBe(5);
    } finally {
      await model.dispose();
    }
  });

  it("a model server's usage goes to the call it answers", async () => {
    // replies of 8 and 40 characters, 4 per piece: the fake server's usage says 2 and 10 generated tokens
    const server = await startFakeServer({
      dialect: "openai",
      latencyMs: 50,
      reply: (body) => (JSON.stringify(body).includes("long") ? "x".repeat(40) : "y".repeat(8)),
    });
    try {
      const model = openAICompatibleModel({ baseURL: server.baseURL, model: "fake-model" });
      const short = emptyRunStats();
      const long = emptyRunStats();
      const [a, b] = await Promise.all([
        generateCounted(model, "the long one", {}, long),
        generateCounted(model, "the short one", {}, short),
      ]);
      expect([a.text.length, b.text.length]).toEqual([40, 8]);
      expect(a.tokens).toEqual({ prompt: 30, evaluatedPrompt: 20, generated: 10 });
      expect(b.tokens).toEqual({ prompt: 30, evaluatedPrompt: 20, generated: 2 });
      expect([long.generatedTokens, short.generatedTokens]).toEqual([10, 2]);
    } finally {
      await server.close();
    }
  });
});
