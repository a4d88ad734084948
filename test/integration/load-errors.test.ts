import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { readGgufFileInfo } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureGgufFile } from "../../scripts/lib/fixture-model.js";
import { writeGgufFile } from "../../scripts/lib/gguf-writer.js";
import { ModelLoadError } from "../../src/model/errors.js";
import { loadModel } from "../../src/model/llama/index.js";
import { getLlamaRuntime } from "../../src/model/llama/llama-runtime.js";
import { benchAccess } from "../../src/model/llama/bench-access.js";
import { fixtureModelPath } from "../helpers/fixture-model.js";

const dir = mkdtempSync(join(tmpdir(), "load-errors-"));
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
let fixture: string;

beforeAll(() => {
  fixture = fixtureModelPath();
  process.on("unhandledRejection", onUnhandled);
});
afterAll(() => {
  process.off("unhandledRejection", onUnhandled);
  rmSync(dir, { recursive: true, force: true });
});

/** The first `bytes` bytes of the fixture, as a new file. */
function truncatedCopy(name: string, bytes: number): string {
  const buffer = Buffer.alloc(bytes);
  const fd = openSync(fixture, "r");
  try {
    readSync(fd, buffer, 0, bytes, 0);
  } finally {
    closeSync(fd);
  }
  const path = join(dir, name);
  writeFileSync(path, buffer);
  return path;
}

async function loadError(model: string, options: { contextSize?: number } = {}): Promise<ModelLoadError> {
  const error = await loadModel({ model, gpu: false, ...options }).then(
    async (handle) => {
      await handle.dispose();
      throw new Error(`expected ${model} to fail loading`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelLoadError);
  return error as ModelLoadError;
}

describe("loadModel failures", () => {
  it("a missing file is not_found, with what to do", async () => {
    const error = await loadError(join(dir, "nope.gguf"));
    expect(error.code).toBe("not_found");
    expect(error.message).toMatch(/No model file at .*nope\.gguf/);
    expect(error.message).toMatch(/gemma-agent pull/);
  });

  it("a directory is not_found and says to pass a .gguf file", async () => {
    const error = await loadError(`${dir}/`);
    expect(error.code).toBe("not_found");
    expect(error.message).toMatch(/is a directory/);
  });

  it("a file without the GGUF magic is not_gguf; an HTML page is called one", async () => {
    const text = join(dir, "notes.gguf");
    writeFileSync(text, "just some text, not a model at all\n");
    expect((await loadError(text)).code).toBe("not_gguf");
    const html = join(dir, "page.gguf");
    writeFileSync(html, "<!DOCTYPE html><html><body>Sign in</body></html>");
    const error = await loadError(html);
    expect(error.code).toBe("not_gguf");
    expect(error.message).toMatch(/HTML page/);
  });

  it("a truncated header is corrupt (not a TypeError from the parser)", async () => {
    for (const bytes of [16, 200, 5_000_000]) {
      const error = await loadError(truncatedCopy(`head-${bytes}.gguf`, bytes));
      expect(error.code).toBe("corrupt");
      expect(error.message).toMatch(/damaged or incomplete/);
      expect(error.message).toMatch(/download it again/);
    }
  });

  it("a file whose tensor data is cut off is corrupt", async () => {
    const info = await readGgufFileInfo(fixture, { sourceType: "filesystem", readTensorInfo: true });
    const firstTensorData = Math.min(...info.tensorInfo!.map((t) => Number(t.fileOffset)));
    const size = readFileSync(fixture).length;
    for (const bytes of [firstTensorData, firstTensorData + 1000, size - 1000]) {
      const error = await loadError(truncatedCopy(`data-${bytes}.gguf`, bytes));
      expect(error.code).toBe("corrupt");
      expect(error.message).toMatch(/truncated|damaged/);
    }
  });

  it("a file with a missing tensor reaches llama.cpp and comes back corrupt", async () => {
    const file = fixtureGgufFile();
    const path = join(dir, "missing-tensor.gguf");
    writeGgufFile(path, { ...file, tensors: file.tensors.filter((t) => t.name !== "blk.1.ffn_down.weight") });
    const error = await loadError(path);
    expect(error.code).toBe("corrupt");
  });

  it("an architecture llama.cpp cannot run is unsupported_architecture", async () => {
    const path = join(dir, "alien.gguf");
    writeGgufFile(path, fixtureGgufFile({ architecture: "alien-transformer" }));
    const error = await loadError(path);
    expect(error.code).toBe("unsupported_architecture");
    expect(error.message).toMatch(/alien-transformer/);
  });

  it("too little memory is out_of_memory", async () => {
    // Cap the RAM node-llama-cpp may use (its real memory check runs, on the shared runtime loadModel uses).
    const { llama } = await getLlamaRuntime(false);
    await llama.setRamCap(1_000_000);
    try {
      const error = await loadError(fixture);
      expect(error.code).toBe("out_of_memory");
      expect(error.message).toMatch(/Not enough memory/);
      expect(error.message).toMatch(/smaller quantization or model|context-size/);
    } finally {
      await llama.setRamCap(null);
    }
  });

  it("left no unhandled rejection behind, and the fixture still loads", async () => {
    const handle = await loadModel({ model: fixture, gpu: false, contextSize: 1024 });
    expect(handle.info.architecture).toBe("gemma3");
    // Default threads: never more than the CPUs this process may use (node-llama-cpp's default would be more here).
    expect(handle.threads).toBeGreaterThanOrEqual(1);
    expect(handle.threads).toBeLessThanOrEqual(availableParallelism());
    expect(benchAccess(handle).llamaObjects.context.idealThreads).toBe(handle.threads);
    await handle.dispose();
    expect(unhandled).toEqual([]);
  });
});
