/**
 * The real test models for test/model/: Gemma 3 270M (base, Q4_K_M) from `GEMMA_AGENT_TEST_MODEL` and
 * SmolLM2-135M-Instruct (Q4_1) from `GEMMA_AGENT_TEST_MODEL_INSTRUCT` (`npm run fetch-test-models -- --env` prints
 * both; `.ci/run` sets them). A variable set to a file that is not there fails the test file at once (CI must never
 * skip them silently). Unset: the file `npm run fetch-test-models` placed is used when it is there; otherwise the tests
 * skip, saying how to fetch.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { TEST_MODELS, testModelsDir } from "../../scripts/lib/test-models.js";
import { loadModel, type LlamaModelHandle, type LoadModelOptions } from "../../src/model/llama/index.js";

export type TestModelVariable = "GEMMA_AGENT_TEST_MODEL" | "GEMMA_AGENT_TEST_MODEL_INSTRUCT";

const HOW =
  "run `npm run fetch-test-models` and set GEMMA_AGENT_TEST_MODEL / GEMMA_AGENT_TEST_MODEL_INSTRUCT to the paths it prints (`-- --env` prints export lines)";

/** The model's path, or undefined (with a console note) when its variable is unset; throws when set to a missing file. */
export function testModelPath(variable: TestModelVariable): string | undefined {
  const path = process.env[variable];
  if (!path) {
    const fetched = join(testModelsDir(), TEST_MODELS.find((m) => m.env === variable)!.file);
    if (existsSync(fetched)) return fetched;
    console.info(`${variable} is not set and ${fetched} is not there: real-model tests skipped; ${HOW}`);
    return undefined;
  }
  if (!existsSync(path)) throw new Error(`${variable}=${path} does not exist; ${HOW}`);
  return path;
}

/** One real test model as the tests take it: its name, key, variable and path (undefined: its tests skip). */
export interface RealTestModel {
  name: string;
  key: (typeof TEST_MODELS)[number]["key"];
  variable: TestModelVariable;
  path: string | undefined;
}

/**
 * Every real test model, in TEST_MODELS' order (the one list, scripts/lib/test-models.ts): for `describe.each`, so a
 * test over "each model" covers the same models as every other test and script.
 */
export function realTestModels(): RealTestModel[] {
  return TEST_MODELS.map((m) => ({ name: m.name, key: m.key, variable: m.env, path: testModelPath(m.env) }));
}

/**
 * Load a real test model on the CPU; a 4,096-token context unless `options` says otherwise. Threads: the loader's default
 * (the cores available), or `GEMMA_AGENT_TEST_THREADS` (1 when something else is using the cores).
 */
export function loadTestModel(path: string, options: Partial<LoadModelOptions> = {}): Promise<LlamaModelHandle> {
  const threads = process.env.GEMMA_AGENT_TEST_THREADS ? Number(process.env.GEMMA_AGENT_TEST_THREADS) : undefined;
  return loadModel({ model: path, gpu: false, contextSize: 4096, ...(threads && { threads }), ...options });
}
