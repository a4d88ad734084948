import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  budgetsFor,
  CATALOG_PATH,
  catalogFileFor,
  defaultModelAlias,
  findCatalogEntry,
  findCatalogFile,
  loadCatalog,
} from "../../src/model/catalog.js";
import { resolvePullSource } from "../../src/model/download/pull-source.js";
import { resolveModelFile } from "../../src/model/resolve-model.js";

const repoRoot = resolve(import.meta.dirname, "../..");
const rawCatalog = JSON.parse(readFileSync(join(repoRoot, "models/catalog.json"), "utf8")) as {
  default: string;
  models: Array<{ alias: string; defaultQuantization: string; files: Array<{ quantization: string; uri: string }> }>;
};
const scratch = mkdtempSync(join(tmpdir(), "gemma-catalog-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the shipped catalog", () => {
  it("is found next to the package root and validates", () => {
    expect(CATALOG_PATH).toBe(join(repoRoot, "models", "catalog.json"));
    const catalog = loadCatalog();
    expect(catalog.models.length).toBe(rawCatalog.models.length);
  });

  it("holds the models the product promises", () => {
    const aliases = loadCatalog().models.map((entry) => entry.alias);
    expect(aliases).toEqual(
      expect.arrayContaining([
        "gemma-4-e2b",
        "gemma-4-e4b",
        "gemma-3-270m",
        "gemma-3-1b",
        "gemma-3-4b",
        "gemma-3n-e2b",
        "functiongemma-270m",
      ]),
    );
  });

  it("defaults to Gemma 4 E2B Q4_K_M, and that default resolves and pulls", () => {
    expect(defaultModelAlias()).toBe("gemma-4-e2b:Q4_K_M");
    const source = resolvePullSource(defaultModelAlias());
    expect(source.url).toBe(
      "https://huggingface.co/unsloth/gemma-4-E2B-it-GGUF/resolve/main/gemma-4-E2B-it-Q4_K_M.gguf",
    );
    expect(source.fileName).toBe("gemma-4-E2B-it-Q4_K_M.gguf");
  });

  it("gives E2B the larger iteration budget and the others the agent defaults", () => {
    expect(budgetsFor(findCatalogEntry("gemma-4-e2b")!)).toEqual({ maxIterations: 12, maxRetries: 3 });
    expect(budgetsFor("gemma-4-e4b")).toEqual({ maxIterations: 8, maxRetries: 3 });
    expect(budgetsFor("gemma-3-1b")).toEqual({ maxIterations: 8, maxRetries: 3 });
  });

  it("maps every alias and quantization to a Hugging Face URL and a local file", () => {
    for (const raw of rawCatalog.models) {
      for (const file of raw.files) {
        // Expected URL derived by hand from the JSON: hf:owner/repo/file → https://huggingface.co/owner/repo/resolve/main/file
        const [owner, repo, ...rest] = file.uri.slice("hf:".length).split("/");
        const expectedUrl = `https://huggingface.co/${owner}/${repo}/resolve/main/${rest.join("/")}`;
        const fileName = rest[rest.length - 1];
        expect(resolvePullSource(`${raw.alias}:${file.quantization}`).url).toBe(expectedUrl);

        writeFileSync(join(scratch, fileName), "");
        const resolved = resolveModelFile(`${raw.alias}:${file.quantization}`, { modelsDir: scratch });
        expect(resolved.path).toBe(join(scratch, fileName));
        expect(resolved.alias).toBe(raw.alias);
        expect(resolved.quantization).toBe(file.quantization);
      }
      const defaultFile = raw.files.find((file) => file.quantization === raw.defaultQuantization)!;
      expect(resolveModelFile(raw.alias, { modelsDir: scratch }).path).toBe(
        join(scratch, defaultFile.uri.split("/").pop()!),
      );
    }
  });

  it("names only public GGUF repositories, one file name per file", () => {
    const names = rawCatalog.models.flatMap((m) => m.files.map((f) => f.uri.split("/").pop()!.toLowerCase()));
    expect(new Set(names).size).toBe(names.length);
    for (const uri of rawCatalog.models.flatMap((m) => m.files.map((f) => f.uri))) {
      expect(uri).toMatch(/^hf:(unsloth|ggml-org)\/[^/]+-GGUF\/[^/]+\.gguf$/);
    }
  });
});

describe("catalog lookups", () => {
  it("finds entries by alias, extra alias, display name, any case, ignoring :QUANT", () => {
    expect(findCatalogEntry("gemma-4-e2b")?.alias).toBe("gemma-4-e2b");
    expect(findCatalogEntry("GEMMA4-E2B")?.alias).toBe("gemma-4-e2b");
    expect(findCatalogEntry("Gemma 4 E4B (instruction-tuned)")?.alias).toBe("gemma-4-e4b");
    expect(findCatalogEntry("gemma-3-1b:Q8_0")?.alias).toBe("gemma-3-1b");
  });

  it("finds nothing for unknown names, prototype keys included", () => {
    for (const name of ["gemma-9", "constructor", "__proto__", "toString", ""])
      expect(findCatalogEntry(name)).toBeUndefined();
  });

  it("picks the default quantization or the one asked for", () => {
    const entry = findCatalogEntry("gemma-3-270m")!;
    expect(catalogFileFor(entry)?.quantization).toBe("Q8_0");
    expect(catalogFileFor(entry, "q4_k_m")?.quantization).toBe("Q4_K_M");
    expect(catalogFileFor(entry, "IQ2_XXS")).toBeUndefined();
  });

  it("matches local file names to catalog files", () => {
    expect(findCatalogFile("GEMMA-4-E2B-IT-Q4_K_M.GGUF")?.entry.alias).toBe("gemma-4-e2b");
    expect(findCatalogFile("my-finetune.gguf")).toBeUndefined();
  });

  it("budgets: by file name or path, and defaults for a bare architecture", () => {
    expect(budgetsFor("gemma-4-E2B-it-Q4_K_M.gguf").maxIterations).toBe(12);
    expect(budgetsFor("/models/gemma-4-E2B-it-Q4_K_M.gguf").maxIterations).toBe(12);
    expect(budgetsFor("gemma4")).toEqual({ maxIterations: 8, maxRetries: 3 });
    expect(budgetsFor("some-unknown-arch")).toEqual({ maxIterations: 8, maxRetries: 3 });
  });
});

describe("catalog validation", () => {
  const good = () => JSON.parse(readFileSync(CATALOG_PATH, "utf8"));
  const load = (name: string, data: unknown) => {
    const path = join(scratch, `${name}.json`);
    writeFileSync(path, typeof data === "string" ? data : JSON.stringify(data));
    return () => loadCatalog(path);
  };

  it("rejects a file that is not JSON", () => {
    expect(load("not-json", "{ models: ")).toThrow(/Cannot read the model catalog/);
  });

  it("rejects a duplicated alias", () => {
    const data = good();
    data.models[1].alias = data.models[0].alias;
    expect(load("dup-alias", data)).toThrow(/used twice/);
  });

  it("rejects a default quantization without a file", () => {
    const data = good();
    data.models[0].defaultQuantization = "Q2_K";
    expect(load("no-default-file", data)).toThrow(/defaultQuantization Q2_K has no file/);
  });

  it("rejects a URI that is not hf:owner/repo/file.gguf", () => {
    const data = good();
    data.models[0].files[0].uri = "https://example.com/model.gguf";
    expect(load("bad-uri", data)).toThrow(/hf:<owner>\/<repo>\/<file>\.gguf/);
  });

  it("rejects a default that names no model, and unknown fields", () => {
    const noDefault = good();
    noDefault.default = "gemma-9:Q4_K_M";
    expect(load("bad-default", noDefault)).toThrow(/default "gemma-9:Q4_K_M" names no catalog file/);
    const extra = good();
    extra.models[0].sizeGb = 3;
    expect(load("extra-field", extra)).toThrow(/sizeGb/);
  });
});
