import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readGgufFileInfo } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GgufHeaderError, readGgufHeader } from "../../src/model/gguf/gguf-header.js";
import { catalogDownloadStatus, listLocalModels } from "../../src/model/models-dir.js";
import { ggufBytes } from "../../scripts/lib/gguf-writer.js";
import { gemmaLikeGguf } from "../helpers/gemma-like-gguf.js";

const dir = mkdtempSync(join(tmpdir(), "gemma-models-dir-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function headerError(path: string): Promise<GgufHeaderError> {
  const error = await readGgufHeader(path).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GgufHeaderError);
  return error as GgufHeaderError;
}

describe("the test GGUF writer", () => {
  it("writes files that node-llama-cpp's own parser reads", async () => {
    const path = join(dir, "cross-check.gguf");
    writeFileSync(path, gemmaLikeGguf({ name: "Cross Check", fileType: 7, contextLength: 8192 }));
    const info = await readGgufFileInfo(path, { readTensorInfo: false });
    expect(info.metadata.general.architecture).toBe("gemma3");
    expect(info.metadata.general.name).toBe("Cross Check");
    expect(info.metadata.general.file_type).toBe(7);
    expect((info.metadata as unknown as { gemma3: { context_length: number } }).gemma3.context_length).toBe(8192);
  });
});

describe("readGgufHeader", () => {
  it("reads architecture, name, quantization and context length", async () => {
    const path = join(dir, "plain.gguf");
    writeFileSync(path, gemmaLikeGguf({ name: "Plain", fileType: 15, contextLength: 32768, vocabulary: 300 }));
    const header = await readGgufHeader(path);
    expect(header).toMatchObject({
      version: 3,
      architecture: "gemma3",
      name: "Plain",
      fileType: 15,
      quantization: "Q4_K_M",
      contextLength: 32768,
    });
    expect(header.metadata["tokenizer.ggml.tokens"]).toEqual({ array: "string", length: 300 });
    expect(header.metadata["tokenizer.ggml.add_bos_token"]).toBe(true);
  });

  it("walks a real-size vocabulary (262,144 tokens) without keeping it", async () => {
    const path = join(dir, "big-vocab.gguf");
    writeFileSync(path, gemmaLikeGguf({ vocabulary: 262_144 }));
    const started = performance.now();
    const header = await readGgufHeader(path);
    const ms = performance.now() - started;
    expect(header.metadata["tokenizer.ggml.tokens"]).toEqual({ array: "string", length: 262_144 });
    expect(header.metadata["tokenizer.ggml.scores"]).toEqual({ array: "f32", length: 262_144 });
    console.log(`readGgufHeader, 262,144-token vocabulary: ${ms.toFixed(0)} ms`);
  });

  it("reads big-endian files", async () => {
    const path = join(dir, "big-endian.gguf");
    writeFileSync(
      path,
      ggufBytes({
        bigEndian: true,
        metadata: [
          ["general.architecture", { kind: "str", value: "gemma3" }],
          ["general.file_type", { kind: "u32", value: 7 }],
        ],
        tensors: [],
      }),
    );
    expect(await readGgufHeader(path)).toMatchObject({
      littleEndian: false,
      architecture: "gemma3",
      quantization: "Q8_0",
    });
  });

  it("refuses what is not a GGUF", async () => {
    writeFileSync(join(dir, "text.bin"), "just some text that is long enough");
    writeFileSync(join(dir, "empty.bin"), "");
    expect((await headerError(join(dir, "text.bin"))).code).toBe("not_gguf");
    expect((await headerError(join(dir, "empty.bin"))).code).toBe("not_gguf");
  });

  it("refuses version 1 and unknown versions", async () => {
    writeFileSync(join(dir, "v1.gguf"), ggufBytes({ version: 1, metadata: [], tensors: [] }));
    writeFileSync(join(dir, "v9.gguf"), ggufBytes({ version: 9, metadata: [], tensors: [] }));
    expect((await headerError(join(dir, "v1.gguf"))).code).toBe("unsupported_version");
    expect((await headerError(join(dir, "v9.gguf"))).message).toContain("version 9");
  });

  it("reports a header cut short as truncated", async () => {
    const whole = gemmaLikeGguf();
    writeFileSync(join(dir, "cut.gguf"), whole.subarray(0, Math.floor(whole.length / 2)));
    writeFileSync(join(dir, "cut-early.gguf"), whole.subarray(0, 10));
    expect((await headerError(join(dir, "cut.gguf"))).code).toBe("truncated");
    expect((await headerError(join(dir, "cut-early.gguf"))).code).toBe("truncated");
  });

  it("refuses absurd counts and lengths without allocating or looping on them", async () => {
    const manyEntries = ggufBytes({ metadataCount: 1n << 40n, metadata: [], tensors: [] });
    writeFileSync(join(dir, "many.gguf"), manyEntries);
    expect((await headerError(join(dir, "many.gguf"))).code).toBe("corrupt");

    const hugeString = Buffer.from(ggufBytes({ metadata: [["k", { kind: "str", value: "abc" }]], tensors: [] }));
    const lengthOffset = 4 + 4 + 8 + 8 + 8 + 1 + 4; // magic, version, tensors, entries, key length, "k", type
    hugeString.writeBigUInt64LE(1n << 62n, lengthOffset);
    writeFileSync(join(dir, "huge-string.gguf"), hugeString);
    expect((await headerError(join(dir, "huge-string.gguf"))).code).toBe("corrupt");

    const hugeArray = ggufBytes({
      metadata: [["tokens", { kind: "arr", itemKind: "str", items: ["a"] }]],
      tensors: [],
    });
    hugeArray.writeBigUInt64LE(1n << 30n, 4 + 4 + 8 + 8 + 8 + 6 + 4 + 4); // array length
    writeFileSync(join(dir, "huge-array.gguf"), hugeArray);
    expect(["corrupt", "truncated"]).toContain((await headerError(join(dir, "huge-array.gguf"))).code);

    const badType = ggufBytes({ metadata: [["k", { kind: "u32", value: 1 }]], tensors: [] });
    badType.writeUInt32LE(99, 4 + 4 + 8 + 8 + 8 + 1);
    writeFileSync(join(dir, "bad-type.gguf"), badType);
    expect((await headerError(join(dir, "bad-type.gguf"))).message).toContain("unknown value type 99");
  });

  const fixture = resolve(import.meta.dirname, "../../models/fixtures/tiny-gemma3.gguf");
  it.skipIf(!existsSync(fixture))("reads the fixture model when it has been built", async () => {
    const header = await readGgufHeader(fixture);
    expect(header.architecture).toBe("gemma3");
    expect(header.metadata["tokenizer.ggml.tokens"]).toEqual({ array: "string", length: 262_144 });
  });
});

describe("listLocalModels", () => {
  const models = join(dir, "models");
  beforeAll(() => {
    mkdirSync(models);
    writeFileSync(
      join(models, "gemma-3-1b-it-Q4_K_M.gguf"),
      gemmaLikeGguf({ name: "Gemma 3 1B It", fileType: 15, payloadBytes: 1000 }),
    );
    writeFileSync(join(models, "my-finetune.gguf"), gemmaLikeGguf({ name: "Mine", fileType: 1, contextLength: 4096 }));
    const whole = gemmaLikeGguf();
    writeFileSync(join(models, "corrupt.gguf"), whole.subarray(0, whole.length - 40));
    writeFileSync(join(models, "notes.gguf"), "this was never a model\n");
    writeFileSync(join(models, "gemma-3-4b-it-Q4_K_M.gguf.part"), whole.subarray(0, 100));
    writeFileSync(join(models, "README.txt"), "not listed");
    mkdirSync(join(models, "folder.gguf"));
  });

  it("describes every .gguf file, with an error for the unusable ones, never throwing", async () => {
    const listed = await listLocalModels(models);
    expect(listed.map((model) => model.fileName)).toEqual([
      "corrupt.gguf",
      "gemma-3-1b-it-Q4_K_M.gguf",
      "my-finetune.gguf",
      "notes.gguf",
    ]);
    const [corrupt, catalogued, mine, notes] = listed;
    expect(catalogued).toMatchObject({
      architecture: "gemma3",
      name: "Gemma 3 1B It",
      quantization: "Q4_K_M",
      contextLength: 32768,
      catalog: { alias: "gemma-3-1b", quantization: "Q4_K_M" },
    });
    expect(catalogued.error).toBeUndefined();
    expect(catalogued.sizeBytes).toBe(
      gemmaLikeGguf({ name: "Gemma 3 1B It", fileType: 15, payloadBytes: 1000 }).length,
    );
    expect(mine).toMatchObject({ name: "Mine", quantization: "F16", contextLength: 4096 });
    expect(mine.catalog).toBeUndefined();
    expect(corrupt.error).toMatch(/truncated/);
    expect(notes.error).toMatch(/not a GGUF/);
  });

  it("gives an empty list for a directory that does not exist", async () => {
    expect(await listLocalModels(join(dir, "nowhere"))).toEqual([]);
  });

  it("tells which catalog files are downloaded, partial or missing", () => {
    const status = catalogDownloadStatus(models);
    const find = (alias: string, quantization: string) =>
      status.find((s) => s.alias === alias && s.quantization === quantization);
    expect(find("gemma-3-1b", "Q4_K_M")).toMatchObject({
      state: "downloaded",
      path: join(models, "gemma-3-1b-it-Q4_K_M.gguf"),
    });
    expect(find("gemma-3-4b", "Q4_K_M")).toMatchObject({ state: "partial", localBytes: 100 });
    expect(find("gemma-4-e2b", "Q4_K_M")).toMatchObject({ state: "missing", localBytes: 0 });
  });

  it("scans subfolders (LM Studio's publisher/repo/file.gguf) of every folder, skipping hidden ones, to a bounded depth", async () => {
    const other = join(dir, "lm");
    mkdirSync(join(other, "pub", "repo"), { recursive: true });
    mkdirSync(join(other, ".cache"), { recursive: true });
    mkdirSync(join(other, "a", "b", "c", "d", "e"), { recursive: true });
    writeFileSync(join(other, "pub", "repo", "deep-Q8_0.gguf"), gemmaLikeGguf({ fileType: 7 }));
    writeFileSync(join(other, ".cache", "hidden.gguf"), gemmaLikeGguf());
    writeFileSync(join(other, "a", "b", "c", "d", "four.gguf"), gemmaLikeGguf());
    writeFileSync(join(other, "a", "b", "c", "d", "e", "five.gguf"), gemmaLikeGguf());
    const listed = await listLocalModels([models, other]);
    const fromOther = listed.filter((m) => m.dir === other);
    expect(fromOther.map((m) => m.relativePath)).toEqual(["a/b/c/d/four.gguf", "pub/repo/deep-Q8_0.gguf"]);
    expect(fromOther[1]).toMatchObject({
      fileName: "deep-Q8_0.gguf",
      quantization: "Q8_0",
      path: join(other, "pub", "repo", "deep-Q8_0.gguf"),
    });
    expect(listed.filter((m) => m.dir === models).length).toBe(4);
  });

  it("a file named like a catalog file but of another quantization or size is flagged, naming what was expected", async () => {
    const misnamed = join(dir, "misnamed");
    mkdirSync(misnamed);
    // Gemma 3 270M's Q8_0 name, but a Q4_K_M header and far too small
    writeFileSync(join(misnamed, "gemma-3-270m-it-Q8_0.gguf"), gemmaLikeGguf({ fileType: 15 }));
    const [model] = await listLocalModels(misnamed);
    expect(model.catalog).toEqual({ alias: "gemma-3-270m", quantization: "Q8_0" });
    expect(model.mismatch).toBe(
      "its header says Q4_K_M and it has 0 MB, where gemma-3-270m:Q8_0 is Q8_0, about 292 MB",
    );
    // a right header and a size near the catalog's: nothing to say
    const sized = join(dir, "sized");
    mkdirSync(sized);
    writeFileSync(join(sized, "gemma-3-270m-it-Q8_0.gguf"), gemmaLikeGguf({ fileType: 7, payloadBytes: 280_000_000 }));
    const [right] = await listLocalModels(sized);
    expect(right.mismatch).toBeUndefined();
    rmSync(join(sized, "gemma-3-270m-it-Q8_0.gguf"));
  });
});
