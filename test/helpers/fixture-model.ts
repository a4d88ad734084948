/**
 * The fixture model for integration tests: `models/fixtures/tiny-gemma3.gguf` (git-ignored), built on first use and
 * kept. A sidecar file records the generator version, so a changed generator rebuilds the cached file.
 *
 *   let model: LlamaModelHandle;
 *   beforeAll(async () => { model = await loadFixtureModel(); });
 *   afterAll(() => model?.dispose());
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { FIXTURE_VERSION } from "../../scripts/lib/fixture-model.js";
import { FIXTURE_MODEL_PATH, makeFixtureModel } from "../../scripts/make-fixture-model.js";
import { loadModel, type LoadModelOptions } from "../../src/model/llama/index.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";

/** Path of the fixture model, built first if missing or stale. */
export function fixtureModelPath(): string {
  const stamp = `${FIXTURE_MODEL_PATH}.version`;
  const current =
    existsSync(FIXTURE_MODEL_PATH) && existsSync(stamp) && readFileSync(stamp, "utf8") === FIXTURE_VERSION;
  if (!current) {
    makeFixtureModel(FIXTURE_MODEL_PATH);
    writeFileSync(stamp, FIXTURE_VERSION);
  }
  return FIXTURE_MODEL_PATH;
}

/**
 * Load the fixture model on the CPU with a small context; options override. One thread: the fixture is tiny, and test
 * machines run other processes beside it; with every core's thread competing, llama.cpp's spinning threads were
 * measured 15x slower per token (90 ms instead of 6 ms on a busy 2-core machine).
 */
export function loadFixtureModel(options: Partial<LoadModelOptions> = {}): Promise<LlamaModelHandle> {
  return loadModel({ model: fixtureModelPath(), gpu: false, contextSize: 4096, threads: 1, ...options });
}
