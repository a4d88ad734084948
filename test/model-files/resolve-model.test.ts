import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ModelLoadError } from "../../src/model/errors.js";
import { modelsDir } from "../../src/model/models-dir.js";
import { isModelPath, resolveModelFile } from "../../src/model/resolve-model.js";

const dir = mkdtempSync(join(tmpdir(), "gemma-resolve-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function loadError(run: () => unknown): ModelLoadError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ModelLoadError);
    return error as ModelLoadError;
  }
  throw new Error("expected a ModelLoadError");
}

describe("resolveModelFile", () => {
  it("returns paths as they are, whether or not they exist", () => {
    for (const spec of ["/abs/model.gguf", "./rel.gguf", "../up/model.bin", "sub/dir/model", "model.GGUF", "C:\\models\\m.gguf"]) {
      expect(resolveModelFile(spec, { modelsDir: dir })).toEqual({ path: spec });
    }
    expect(resolveModelFile("~/m.gguf").path).toBe(join(homedir(), "m.gguf"));
  });

  it("tells paths from aliases", () => {
    expect(isModelPath("gemma-4-e2b")).toBe(false);
    expect(isModelPath("gemma-4-e2b:Q8_0")).toBe(false);
    expect(isModelPath("x.gguf")).toBe(true);
    expect(isModelPath("./gemma-4-e2b")).toBe(true);
  });

  it("maps a downloaded alias to its file, default quantization or the one asked for, any case", () => {
    writeFileSync(join(dir, "gemma-4-E2B-it-Q4_K_M.gguf"), "");
    writeFileSync(join(dir, "gemma-4-E2B-it-Q8_0.gguf"), "");
    const byDefault = resolveModelFile("gemma-4-e2b", { modelsDir: dir });
    expect(byDefault.path).toBe(join(dir, "gemma-4-E2B-it-Q4_K_M.gguf"));
    expect(byDefault.alias).toBe("gemma-4-e2b");
    expect(byDefault.entry?.architecture).toBe("gemma4");
    expect(resolveModelFile("GEMMA-4-E2B:q8_0", { modelsDir: dir }).path).toBe(join(dir, "gemma-4-E2B-it-Q8_0.gguf"));
    expect(resolveModelFile("gemma4-e2b", { modelsDir: dir }).alias).toBe("gemma-4-e2b");
  });

  it("says how to pull an alias that is not downloaded", () => {
    const missing = loadError(() => resolveModelFile("gemma-3-4b", { modelsDir: dir }));
    expect(missing.code).toBe("not_found");
    expect(missing.message).toContain("run: gemma-agent pull gemma-3-4b");
    expect(missing.path).toBe(join(dir, "gemma-3-4b-it-Q4_K_M.gguf"));
    const quant = loadError(() => resolveModelFile("gemma-3-4b:Q8_0", { modelsDir: dir }));
    expect(quant.message).toContain("run: gemma-agent pull gemma-3-4b:Q8_0");
  });

  it("rejects unknown aliases and quantizations, listing what exists", () => {
    const alias = loadError(() => resolveModelFile("llama-9b", { modelsDir: dir }));
    expect(alias.code).toBe("not_found");
    expect(alias.message).toMatch(/Unknown model "llama-9b".*gemma-4-e2b/);
    const quant = loadError(() => resolveModelFile("gemma-4-e2b:IQ1_S", { modelsDir: dir }));
    expect(quant.message).toMatch(/no IQ1_S file.*Q4_K_M, Q8_0/);
    expect(loadError(() => resolveModelFile("constructor", { modelsDir: dir })).code).toBe("not_found");
    expect(loadError(() => resolveModelFile("  ", { modelsDir: dir })).code).toBe("not_found");
  });

  it("looks in GEMMA_AGENT_MODELS, else ~/.cache/gemma-agent/models", () => {
    expect(modelsDir({})).toBe(join(homedir(), ".cache", "gemma-agent", "models"));
    expect(modelsDir({ GEMMA_AGENT_MODELS: "/srv/models" })).toBe("/srv/models");
    expect(modelsDir({ GEMMA_AGENT_MODELS: "rel/models" })).toBe(resolve("rel/models"));
    const previous = process.env.GEMMA_AGENT_MODELS;
    process.env.GEMMA_AGENT_MODELS = dir;
    try {
      expect(resolveModelFile("gemma-4-e2b").path).toBe(join(dir, "gemma-4-E2B-it-Q4_K_M.gguf"));
    } finally {
      if (previous === undefined) delete process.env.GEMMA_AGENT_MODELS;
      else process.env.GEMMA_AGENT_MODELS = previous;
    }
  });
});
