/**
 * Agents as files on the real test models (1 thread): a 10-turn conversation that stays within its token budget as
 * the model's own tokenizer counts it, with the KV cache reused across turns; and the example agents through `run`,
 * `agent inspect` and `chat` (in a pty). The models are tiny: these show plumbing, budgets and token costs, not
 * answer quality.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { kvReuseConversation } from "../../scripts/lib/bench-conversation.js";
import { chatSession } from "../helpers/pty-session.js";
import { loadTestModel, testModelPath } from "../helpers/test-models.js";

const gemmaPath = testModelPath("GEMMA_AGENT_TEST_MODEL");
const smolPath = testModelPath("GEMMA_AGENT_TEST_MODEL_INSTRUCT");
const CLI = resolve("dist/cli/main.js");
// Small enough that 10 turns outgrow it whether or not the model calls the calculator: Gemma 3 270M now answers most
// turns at once (about 30 tokens a turn, 641 after 10 at most), where it used to call first (948 of 1,000 at most).
const BUDGET = 600;

describe.skipIf(!gemmaPath)("a 10-turn conversation on Gemma 3 270M", () => {
  let model: LlamaModelHandle;
  beforeAll(async () => {
    model = await loadTestModel(gemmaPath!, { contextSize: 2048, threads: 1 });
  }, 120_000);
  afterAll(() => model?.dispose());

  it(`stays within its ${BUDGET}-token budget (the model's tokenizer) and reuses the KV cache across turns`, async () => {
    const run = await kvReuseConversation(model, { turns: 10, tokenBudget: BUDGET, maxTokens: 48 });
    for (const result of run.results) {
      expect(result.estimated).toBe(false);
      expect(result.prompt).toBeGreaterThan(0);
      expect(result.prompt).toBeLessThanOrEqual(BUDGET);
      expect(["answer", "max_iterations"]).toContain(result.stopReason);
    }
    for (const call of run.calls) expect(call.promptTokens).toBeLessThanOrEqual(BUDGET);
    // the first call of a turn that did not trim evaluates only the new text: the history comes from the KV cache
    const firsts = run.calls.filter((c, i) => i > 0 && c.turn !== run.calls[i - 1].turn && !c.trimmed);
    expect(firsts.length).toBeGreaterThanOrEqual(4);
    for (const call of firsts) expect(call.evaluatedPromptTokens).toBeLessThan(call.promptTokens / 3);
    expect(run.trimmedTurns).toBeGreaterThan(0);
    const reused = run.calls.reduce((n, c) => n + c.reusedPromptTokens, 0);
    const prompt = run.calls.reduce((n, c) => n + c.promptTokens, 0);
    console.info(
      `10-turn conversation, Gemma 3 270M, budget ${BUDGET}: ${run.calls.length} model calls, largest prompt ${run.largestPrompt} tokens, ${run.trimmedTurns} turn(s) trimmed the history; KV reuse ${run.reuseAll} over all calls (${reused}/${prompt} prompt tokens), ${run.reuseFirstCalls} over the first call of turns 2-10, ${run.appendedFirstCalls} of them appended without a trim`,
    );
  }, 600_000);
});

/** The built CLI, run to its end. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

const replySchema = z.object({ value: z.number(), unit: z.string().max(20), text: z.string().max(200) }).strict();
const budget = ["--threads", "1", "--max-iterations", "2", "--max-tokens", "64", "--json"];

describe.skipIf(!gemmaPath || !smolPath)("the example agents on the real test models", () => {
  it("run: the unit helper (Gemma) answers within its output schema, or fails cleanly", async () => {
    const result = await cli([
      "run",
      "examples/agents/unit-helper/agent.yaml",
      "How many km is 5 miles?",
      "--model",
      gemmaPath!,
      ...budget,
    ]);
    expect([0, 1], result.stderr).toContain(result.code);
    const report = JSON.parse(result.stdout);
    expect(report.model.architecture).toBe("gemma3");
    expect(report.tokens.estimated).toBe(false);
    expect(report.tokens.prompt).toBeLessThanOrEqual(3000);
    // under the grammar no final answer can miss the schema
    const refused = report.events.filter((e: { validatorName?: string }) => e.validatorName === "output_schema");
    expect(refused).toEqual([]);
    if (report.stopReason === "answer") expect(replySchema.parse(report.reply)).toEqual(report.reply);
    console.info(`unit_helper on Gemma 3 270M: ${report.stopReason}, reply ${JSON.stringify(report.reply)}`);
  }, 300_000);

  it("run: the file assistant (SmolLM2) reads only inside --allow-dir", async () => {
    const result = await cli([
      "run",
      "examples/agents/file-assistant/agent.yaml",
      "What is on the shopping list?",
      "--allow-dir",
      "examples/agents/file-assistant/files",
      "--model",
      smolPath!,
      ...budget,
    ]);
    expect([0, 1], result.stderr).toContain(result.code);
    const report = JSON.parse(result.stdout);
    expect(report.model.architecture).toBe("llama");
    const calls = report.events.filter((e: { type: string }) => e.type === "call-skill");
    for (const call of calls) expect(["list_files", "read_file"]).toContain(call.skillName);
    const outside = report.events.filter(
      (e: { type: string; result?: string }) =>
        e.type === "observation" && /Unit Helper|Supervisor/.test(e.result ?? ""),
    );
    expect(outside).toEqual([]);
    console.info(
      `file_assistant on SmolLM2: ${report.stopReason}, calls ${calls.map((c: { skillName: string }) => c.skillName).join(", ") || "none"}`,
    );
  }, 300_000);

  it("run: the supervisor (Gemma) with its nested specialist; agent inspect counts with the model's tokenizer", async () => {
    const result = await cli([
      "run",
      "examples/agents/supervisor/agent.yaml",
      "What is 3 times 250 grams in pounds?",
      "--model",
      gemmaPath!,
      ...budget,
    ]);
    expect([0, 1], result.stderr).toContain(result.code);
    const report = JSON.parse(result.stdout);
    expect(report.agent.name).toBe("supervisor");
    const nested = report.events.filter((e: { depth?: number }) => e.depth === 1);
    const delegated = report.events.some((e: { skillName?: string }) => e.skillName === "ask_math_expert");
    if (delegated) expect(nested.length).toBeGreaterThan(0);
    const inspect = await cli([
      "agent",
      "inspect",
      "examples/agents/supervisor/agent.yaml",
      "--model",
      gemmaPath!,
      "--json",
    ]);
    expect(inspect.code, inspect.stderr).toBe(0);
    const view = JSON.parse(inspect.stdout);
    expect(view.tokens.counted).toBe("the model's tokenizer");
    expect(view.tokens.firstPrompt).toBeGreaterThan(view.tokens.systemPrompt);
    expect(view.tokens.contextSize).toBe(8192);
    console.info(
      `supervisor on Gemma 3 270M: ${report.stopReason}, delegated: ${delegated}; system prompt ${view.tokens.systemPrompt} tokens`,
    );
  }, 300_000);

  it("chat in a pty (SmolLM2, the unit helper): a turn, then /exit", async () => {
    const { code, screen } = await chatSession(
      [
        "chat",
        "examples/agents/unit-helper/agent.yaml",
        "--model",
        smolPath!,
        "--threads",
        "1",
        "--max-iterations",
        "2",
        "--max-tokens",
        "64",
      ],
      [
        { until: "/exit; Ctrl-C stops an answer", type: "How many grams is 2 kg?\r" },
        { until: /answered in|no answer:/, type: "" },
        { until: "> ", type: "/exit\r" },
      ],
      240_000,
    );
    expect(code, screen.slice(-2000)).toBe(0);
    expect(screen).toContain("chatting with unit_helper on");
    expect(screen).toMatch(/answered in \d+ steps?|no answer: /);
  }, 300_000);
});
