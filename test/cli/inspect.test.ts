/** `gemma-agent inspect`: everything a run would use, with no model file (catalog or scripted) and with one (token counts). */
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/program.js";
import { fixtureModelPath } from "../helpers/fixture-model.js";
import { memoryIO } from "../helpers/memory-io.js";

const emptyModelsDir = () => ({ GEMMA_AGENT_MODELS: mkdtempSync(join(tmpdir(), "ga-inspect-")) });

async function inspect(args: string[], env: NodeJS.ProcessEnv = emptyModelsDir()) {
  const io = memoryIO(env);
  const code = await runCli(["inspect", ...args], io);
  return { code, stdout: io.out.text, stderr: io.err.text };
}

describe("inspect without a model file", () => {
  it("describes the default model from the catalog and shows skills, budgets, prompt: all but the token counts, and says why", async () => {
    const { code, stdout, stderr } = await inspect(["--skills", "calculator"]);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^model +gemma-4-e2b \(gemma4, Q4_K_M, Gemma 4 E2B/);
    expect(stdout).toContain("(not downloaded: described from the catalog)");
    expect(stdout).toContain("chat format   gemma4");
    expect(stdout).toContain("budgets       maxIterations 12, maxRetries 3");
    expect(stdout).toContain(
      "tokens        token counts not shown: gemma-4-e2b:Q4_K_M is not downloaded (run: gemma-agent pull gemma-4-e2b:Q4_K_M)",
    );
    expect(stdout).toMatch(/calculator: .*\n {4}arguments: \{"type":"object","properties":\{"expression"/);
    expect(stdout).toContain("<|turn>system");
  });

  it("shows the prompt the loop flags make: compact skill signatures, no thought, bounded answer in the grammar", async () => {
    const full = await inspect(["--skills", "calculator", "--json"]);
    const compact = await inspect([
      "--skills",
      "calculator",
      "--json",
      "--prompt-style",
      "compact",
      "--thought",
      "none",
      "--max-answer-chars",
      "40",
    ]);
    expect(compact.code, compact.stderr).toBe(0);
    const [a, b] = [JSON.parse(full.stdout), JSON.parse(compact.stdout)];
    expect(b.systemPrompt).toContain("- calculator(expression: string): Evaluate arithmetic: + - * / % ^");
    expect(b.systemPrompt).not.toContain('"thought"');
    expect(a.systemPrompt).toContain('"thought":"why this skill"}');
    expect(b.systemPrompt.length).toBeLessThan(a.systemPrompt.length * 0.7);
    expect(JSON.stringify(b.actionJsonSchema)).toContain('"maxLength":40');
    const example = await inspect(["--skills", "calculator", "--json", "--example-trajectory"]);
    const withExample: string = JSON.parse(example.stdout).systemPrompt;
    expect(withExample.startsWith(`${a.systemPrompt}\n\n# Example\n`)).toBe(true);
    expect(withExample).toContain('"arguments":{"mountain":"Mount Everest"},"thought":"mountain_height gives');
    const bad = await inspect(["--thought", "sideways"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/sideways/);
  });

  it("--json: tokens null, with the reason", async () => {
    const { code, stdout } = await inspect(["--model", "gemma-3-270m", "--json"]);
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.model).toMatchObject({
      path: null,
      alias: "gemma-3-270m",
      architecture: "gemma3",
      source: "catalog",
      trainedContextLength: 32768,
    });
    expect(doc.tokens).toBeNull();
    expect(doc.tokensNote).toMatch(/not downloaded/);
    expect(doc.skills.map((s: { name: string }) => s.name)).toEqual(["calculator", "datetime", "convert_units"]);
  });

  it("script:FILE needs no GGUF: the agent's default chat format, no tokenizer, said so; a bad script file is one line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ga-inspect-"));
    writeFileSync(join(dir, "replies.json"), JSON.stringify([{ final_answer: "ok" }]));
    const { code, stdout } = await inspect([
      "--model",
      `script:${join(dir, "replies.json")}`,
      "--skills",
      "calculator",
      "--json",
    ]);
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.model).toMatchObject({ architecture: "scripted", source: "script" });
    expect(doc.chatFormat).toMatch(/^gemma3/);
    expect(doc.tokens).toBeNull();
    expect(doc.tokensNote).toBe("token counts not shown: scripted replies have no tokenizer");
    expect(doc.renderedPrompt).toContain("<start_of_turn>user");
    const bad = await inspect(["--model", `script:${join(dir, "missing.json")}`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("an unknown model is still an error", async () => {
    const { code, stderr } = await inspect(["--model", "llama-9b"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/Unknown model "llama-9b"/);
  });
});

describe("inspect with a model file", () => {
  it("counts the prompt's tokens with the model's own tokenizer, found by name in the models folder", async () => {
    const env = emptyModelsDir();
    symlinkSync(fixtureModelPath(), join(env.GEMMA_AGENT_MODELS, "tiny.gguf"));
    const { code, stdout, stderr } = await inspect(["--model", "tiny", "--skills", "calculator", "--json"], env);
    expect(code, stderr).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.model).toMatchObject({
      path: join(env.GEMMA_AGENT_MODELS, "tiny.gguf"),
      architecture: "gemma3",
      source: "gguf",
    });
    expect(doc.tokensNote).toBeUndefined();
    expect(doc.tokens.systemPrompt).toBeGreaterThan(50);
    // the rendered prompt is the system prompt plus turn markup and "{question}": a few more tokens, not many
    expect(doc.tokens.renderedPrompt).toBeGreaterThan(doc.tokens.systemPrompt);
    expect(doc.tokens.renderedPrompt).toBeLessThan(doc.tokens.systemPrompt + 30);
  }, 120_000);
});
