/**
 * Against the real llama-server (llama.cpp's own server, built from the llama-cpp-python sdist's sources) serving the
 * Gemma 3 270M test model on 127.0.0.1, one thread: `ask` over HTTP end to end, the grammar guarantee of a full agent
 * run, the same actions locally and over HTTP at temperature 0, abort, and retries while the server comes up. The
 * model is tiny: these tests show plumbing and decoding, not answer quality.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import type { AgentEvent } from "../../../src/agent/events.js";
import { evaluateSuite } from "../../../src/eval/evaluate.js";
import type { ModelProvider } from "../../../src/eval/runner/model-providers.js";
import { openAICompatibleModel, type OpenAICompatibleModel } from "../../../src/model/http/index.js";
import type { GenerateOptions, ModelHandle } from "../../../src/model/model-handle.js";
import { Registry } from "../../../src/skills/registry.js";
import { calculatorSkill, convertUnitsSkill } from "../../../src/skills/builtin/index.js";
import { loadTestModel, testModelPath } from "../../helpers/test-models.js";
import { freePort, llamaServerPath, startLlamaServer, type LlamaServer } from "./llama-server.js";
import { runCli } from "../run-cli.js";

const binary = llamaServerPath();
const model = testModelPath("GEMMA_AGENT_TEST_MODEL");
const ready = !!binary && !!model;

let server: LlamaServer;
beforeAll(async () => {
  if (binary && model) server = await startLlamaServer({ binary, model });
}, 180_000);
afterAll(async () => {
  await server?.stop();
});

interface AskDocument {
  answer?: string;
  stopReason: string;
  iterations: number;
  events: AgentEvent[];
  stats: { lastGeneration?: { promptTokens: number; reusedPromptTokens: number; generatedTokens: number } };
  model: { dialect: string; backend: string; name: string };
}

/** The refusals of the parser: with the grammar on the server, there must be none. */
const parseRefusals = (events: readonly AgentEvent[]) =>
  events.filter((e) => e.type === "validation-error" && "validatorName" in e && e.validatorName === "action_parse");

describe.skipIf(!ready)("gemma-agent over the real llama-server", () => {
  it("the same eval tasks at temperature 0 give the same actions locally and over HTTP (completion mode, our GBNF)", async () => {
    const local = await loadTestModel(model!, { threads: 1, contextSize: 4096, jumpForward: false });
    const http = httpModel({ promptMode: "completion", structuredOutput: "gbnf" });
    try {
      // grounding off on both sides: a server cannot carry the loader's per-token bias (it ignores it), so the local
      // side runs without it too, for the same loop on both; the skills as JSON Schemas, the prompt these tasks were
      // measured on (with per-parameter detail, arith-sqrt's reply is a near-tie between a call and an answer, which
      // the two llama.cpp builds break differently)
      const options = {
        budgets: [1],
        taskIds: ["arith-split-bill", "arith-sqrt"],
        loop: { grounding: "off" as const, paramDetails: false },
      };
      const viaLocal = recorded(local);
      const viaHttp = recorded(http);
      await evaluateSuite("evals/basic.json", { ...options, models: [], providers: [viaLocal.provider] });
      await evaluateSuite("evals/basic.json", { ...options, models: [], providers: [viaHttp.provider] });
      // the same prompts went out (our rendering, the same context fitting), and every reply on both sides is a
      // valid action under the same grammar, of the same kind (a call to the same skill, or an answer)
      expect(viaHttp.prompts).toEqual(viaLocal.prompts);
      const kind = (reply: string) => (JSON.parse(reply) as { skill_name?: string }).skill_name ?? "final_answer";
      expect(viaHttp.replies.map(kind)).toEqual(viaLocal.replies.map(kind));
      // both tasks are calls now (arith-sqrt was answered at once while the action format showed an answer value)
      expect(viaLocal.replies.map(kind)).toEqual(["calculator", "calculator"]);
      // Their text may differ: greedy decoding is the same, the arithmetic is not. The two sides are different
      // llama.cpp builds (node-llama-cpp's prebuilt one, and 0c1e570 from the llama-cpp-python 0.3.36 sdist), and
      // float-level differences flip this 270M base model's near-ties on some prompts (arith-sqrt: "(3+4)*2^3/sqrt(16)"
      // locally, "15/100*80" on the server); even the local loader alone writes other arguments for some prompts
      // on a warm KV cache than on a fresh one. Measured on the first 6 tasks of evals/basic.json at budget 1: 3 of 6
      // replies byte-identical (README, "Model servers").
      console.info(
        `byte-identical replies: ${viaHttp.replies.filter((r, i) => r === viaLocal.replies[i]).length} of ${viaHttp.replies.length}`,
      );
    } finally {
      await local.dispose();
    }
  }, 300_000);

  it("ask --model http://127.0.0.1:PORT/v1#gemma-3-270m runs end to end: every action parsed, no model error", async () => {
    const result = await runCli([
      "ask",
      "--model",
      `${server.baseURL}#gemma-3-270m`,
      "--skills",
      "calculator",
      "--max-iterations",
      "2",
      "--json",
      "What is 17% of 2,340?",
    ]);
    expect([0, 1], result.stderr).toContain(result.code);
    const doc = JSON.parse(result.stdout) as AskDocument;
    expect(doc.model).toMatchObject({ dialect: "llama-server", backend: "http (llama-server)", name: "gemma-3-270m" });
    expect(doc.iterations).toBeGreaterThan(0);
    expect(parseRefusals(doc.events)).toEqual([]);
    expect(doc.events.filter((e) => e.type === "model-error")).toEqual([]);
    if (result.code === 0) expect(doc.answer?.trim()).toBeTruthy();
    // the server's usage fields reach the stats
    expect(doc.stats.lastGeneration!.promptTokens).toBeGreaterThan(100);
    expect(doc.stats.lastGeneration!.generatedTokens).toBeGreaterThan(0);
  }, 300_000);

  it("completion mode with our GBNF: a full run's every reply parses, and later steps reuse the server's KV cache", async () => {
    const http = httpModel({ promptMode: "completion", structuredOutput: "gbnf" });
    await http.connect();
    const agent = new Agent({ model: http, registry: new Registry([calculatorSkill, convertUnitsSkill]) });
    const state = await agent.run("How many km is 26.2 miles?", { maxIterations: 2 });
    expect(state.iterations).toBeGreaterThan(0);
    expect(parseRefusals(state.stream.toArray())).toEqual([]);
    expect(state.stream.toArray().filter((e) => e.type === "model-error")).toEqual([]);
    if (state.iterations > 1) expect(http.stats.reusedPromptTokens).toBeGreaterThan(100);
    expect(http.stats.totals.calls).toBe(state.iterations);
  }, 300_000);

  it("abort cancels the request: generate rejects at once and the server is free for the next request", async () => {
    const http = httpModel({});
    const controller = new AbortController();
    let pieces = 0;
    const pending = http.generate(
      http.chatFormat.render([{ role: "user", content: "Write a long story about a cat." }]),
      {
        maxTokens: 400,
        signal: controller.signal,
        onToken: () => void (++pieces === 3 && controller.abort()),
      },
    );
    const started = performance.now();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(performance.now() - started).toBeLessThan(30_000);
    // a one-slot server still generating 400 tokens would hold the next request for tens of seconds
    const next = performance.now();
    await http.generate(http.chatFormat.render([{ role: "user", content: "Hi" }]), { maxTokens: 4 });
    expect(performance.now() - next).toBeLessThan(15_000);
  }, 120_000);

  it("retries with backoff while a server is still starting, then answers", async () => {
    const port = await freePort();
    const retries: string[] = [];
    const late = openAICompatibleModel({
      baseURL: `http://127.0.0.1:${port}/v1`,
      model: "gemma-3-270m",
      retries: 8,
      random: () => 0.999,
      onRetry: (error) => retries.push(error.code + (error.status ? ` ${error.status}` : "")),
    });
    const answer = late.generate("Hello", { maxTokens: 3 });
    await new Promise((resolve) => setTimeout(resolve, 600));
    const second = await startLlamaServer({ binary: binary!, model: model!, port, noWait: true });
    try {
      expect(typeof (await answer)).toBe("string");
      expect(retries.length).toBeGreaterThanOrEqual(1);
      expect(retries[0]).toBe("unreachable");
    } finally {
      await second.stop();
    }
  }, 120_000);
});

function httpModel(options: Partial<Parameters<typeof openAICompatibleModel>[0]>): OpenAICompatibleModel {
  return openAICompatibleModel({ baseURL: server.baseURL, model: "gemma-3-270m", ...options });
}

/** A provider of `handle` for every run, one run at a time, recording each prompt and reply. */
function recorded(handle: ModelHandle): { provider: ModelProvider; prompts: string[]; replies: string[] } {
  const prompts: string[] = [];
  const replies: string[] = [];
  const wrapped: ModelHandle = {
    generate: async (prompt: string, options?: GenerateOptions) => {
      prompts.push(prompt);
      const reply = await handle.generate(prompt, options);
      replies.push(reply);
      return reply;
    },
    get chatFormat() {
      return handle.chatFormat;
    },
    get info() {
      return handle.info;
    },
    get stats() {
      return handle.stats;
    },
    get contextSize() {
      return handle.contextSize;
    },
    ...(handle.countTokens && { countTokens: (prompt: string) => handle.countTokens!(prompt) }),
  };
  const provider: ModelProvider = {
    name: "gemma",
    concurrency: 1,
    deterministic: true,
    acquire: async () => wrapped,
    dispose: async () => {},
  };
  return { provider, prompts, replies };
}
