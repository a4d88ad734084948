import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureGgufFile } from "../../scripts/lib/fixture-model.js";
import { writeGgufFile } from "../../scripts/lib/gguf-writer.js";
import { loadModel, type LlamaModelHandle } from "../../src/model/llama/index.js";
import { benchAccess } from "../../src/model/llama/bench-access.js";

// A Llama-layout model with the Gemma vocabulary and chat template: an architecture this package has no format for.
const dir = mkdtempSync(join(tmpdir(), "fallback-format-"));
let model: LlamaModelHandle;
beforeAll(async () => {
  const path = join(dir, "llama-arch.gguf");
  writeGgufFile(path, fixtureGgufFile({ architecture: "llama" }));
  model = await loadModel({ model: path, gpu: false, contextSize: 1024, threads: 1 });
});
afterAll(async () => {
  await model?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe("chat format of an architecture without a built-in format", () => {
  it("comes from the model's own template through node-llama-cpp", () => {
    expect(model.info.architecture).toBe("llama");
    expect(model.chatFormat.name).toMatch(/^template:/);
    expect(model.chatFormat.endOfTurn).toBe("<end_of_turn>");
    const text = model.chatFormat.render([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi <end_of_turn> there" },
      { role: "model", content: "Hello" },
      { role: "user", content: "Again" },
    ]);
    expect(text.startsWith("<bos><start_of_turn>user\n")).toBe(true);
    expect(text.endsWith("<start_of_turn>model\n")).toBe(true);
    expect(text).toContain("Be brief.");
    expect(text).toContain("<start_of_turn>model\nHello<end_of_turn>");
    // Untrusted content is neutralized here too: exactly the markup's control tokens, none from the user's text.
    const { model: llamaModel } = benchAccess(model).llamaObjects;
    const control = model
      .tokenize(text)
      .filter((t) => llamaModel.getTokenAttributes(t).control)
      .map((t) => llamaModel.detokenize([t], true));
    expect(control).toEqual([
      "<bos>",
      "<start_of_turn>",
      "<end_of_turn>",
      "<start_of_turn>",
      "<end_of_turn>",
      "<start_of_turn>",
      "<end_of_turn>",
      "<start_of_turn>",
    ]);
  });

  it("renders append-only, so the loader reuses the KV cache across steps", async () => {
    const first = model.chatFormat.render([{ role: "user", content: "One" }]);
    const reply = await model.generate(first, { maxTokens: 4 });
    const second = model.chatFormat.render([
      { role: "user", content: "One" },
      { role: "model", content: reply },
      { role: "user", content: "Two" },
    ]);
    expect(second.startsWith(first + reply)).toBe(true);
    await model.generate(second, { maxTokens: 4 });
    expect(model.stats.reusedPromptTokens).toBeGreaterThanOrEqual(model.tokenize(first).length);
  });

  it("refuses to render without the generation prompt instead of rendering it wrong", () => {
    expect(() => model.chatFormat.render([{ role: "user", content: "x" }], { addGenerationPrompt: false })).toThrow(
      /not supported/,
    );
  });
});
