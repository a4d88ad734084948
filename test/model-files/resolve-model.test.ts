import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ModelLoadError } from "../../src/model/errors.js";
import { modelsDir, modelsDirs } from "../../src/model/models-dir.js";
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
    for (const spec of [
      "/abs/model.gguf",
      "./rel.gguf",
      "../up/model.bin",
      "sub/dir/model",
      "model.GGUF",
      "C:\\models\\m.gguf",
    ]) {
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

  it("GEMMA_AGENT_MODELS may name several folders (path-delimited): all are searched, pulls go to the first", () => {
    expect(modelsDirs({ GEMMA_AGENT_MODELS: ["/a", "rel/b", "", "/a"].join(delimiter) })).toEqual([
      "/a",
      resolve("rel/b"),
    ]);
    expect(modelsDir({ GEMMA_AGENT_MODELS: ["/a", "/b"].join(delimiter) })).toBe("/a");
    expect(modelsDirs({ GEMMA_AGENT_MODELS: "~/lm" })).toEqual([join(homedir(), "lm")]);
  });
});

describe("the models people already have", () => {
  // an LM Studio folder (publisher/repo/file.gguf) beside our own, as GEMMA_AGENT_MODELS would list them
  const root = mkdtempSync(join(tmpdir(), "gemma-resolve-lm-"));
  const own = join(root, "own");
  const lmstudio = join(root, "lmstudio");
  const dirs = [own, lmstudio];
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(own);
  mkdirSync(join(lmstudio, "lmstudio-community", "gemma-3-1b-it-GGUF"), { recursive: true });
  mkdirSync(join(lmstudio, "someone", "twin"), { recursive: true });
  mkdirSync(join(lmstudio, ".hidden"), { recursive: true });
  writeFileSync(join(own, "my-own.gguf"), "GGUF");
  writeFileSync(join(lmstudio, "lmstudio-community", "gemma-3-1b-it-GGUF", "gemma-3-1b-it-Q4_K_M.gguf"), "GGUF");
  writeFileSync(join(lmstudio, "someone", "Finetune-Q8_0.gguf"), "GGUF");
  writeFileSync(join(lmstudio, "someone", "twin", "Twin.gguf"), "GGUF");
  mkdirSync(join(own, "x"));
  writeFileSync(join(own, "x", "twin.gguf"), "GGUF");
  mkdirSync(join(root, "work"));
  writeFileSync(join(root, "work", "twin.gguf"), "GGUF");
  writeFileSync(join(lmstudio, ".hidden", "secret.gguf"), "GGUF");
  symlinkSync(join(lmstudio, "someone", "Finetune-Q8_0.gguf"), join(own, "linked.gguf"));

  it("a file listed by `models` is usable by its name, with or without .gguf, in any case, in any folder", () => {
    expect(resolveModelFile("my-own", { modelsDirs: dirs }).path).toBe(join(own, "my-own.gguf"));
    expect(resolveModelFile("my-own.gguf", { modelsDirs: dirs }).path).toBe(join(own, "my-own.gguf"));
    expect(resolveModelFile("finetune-q8_0", { modelsDirs: dirs }).path).toBe(
      join(lmstudio, "someone", "Finetune-Q8_0.gguf"),
    );
    expect(resolveModelFile("someone/Finetune-Q8_0.gguf", { modelsDirs: dirs }).path).toBe(
      join(lmstudio, "someone", "Finetune-Q8_0.gguf"),
    );
    expect(resolveModelFile("linked", { modelsDirs: dirs }).path).toBe(join(own, "linked.gguf"));
  });

  it("a catalog alias is found in another folder's subfolders (LM Studio's layout), with its catalog entry", () => {
    const resolved = resolveModelFile("gemma-3-1b", { modelsDirs: dirs });
    expect(resolved.path).toBe(join(lmstudio, "lmstudio-community", "gemma-3-1b-it-GGUF", "gemma-3-1b-it-Q4_K_M.gguf"));
    expect(resolved).toMatchObject({ alias: "gemma-3-1b", quantization: "Q4_K_M" });
  });

  it("a name two files share is refused, naming both; hidden folders are not searched; a file in the working directory comes first", () => {
    const twin = loadError(() => resolveModelFile("twin", { modelsDirs: dirs }));
    expect(twin.message).toContain(join(own, "x", "twin.gguf"));
    expect(twin.message).toContain(join(lmstudio, "someone", "twin", "Twin.gguf"));
    expect(loadError(() => resolveModelFile("secret", { modelsDirs: dirs })).message).toMatch(
      /Unknown model "secret".*models folders/,
    );
    expect(resolveModelFile("twin.gguf", { modelsDirs: dirs, cwd: join(root, "work") }).path).toBe(
      join(root, "work", "twin.gguf"),
    );
    expect(resolveModelFile("x/twin.gguf", { modelsDirs: dirs }).path).toBe(join(own, "x", "twin.gguf"));
  });

  it("a partial download is named as such, with its bytes and the command that resumes it", () => {
    writeFileSync(join(own, "gemma-3-270m-it-Q8_0.gguf.part"), Buffer.alloc(12_000_000));
    const partial = loadError(() => resolveModelFile("gemma-3-270m", { modelsDirs: dirs }));
    expect(partial.message).toMatch(
      /^Model gemma-3-270m is partly downloaded \(12 MB of about 292 MB in .*gemma-3-270m-it-Q8_0\.gguf\.part\); run: gemma-agent pull gemma-3-270m to resume$/,
    );
  });
});
