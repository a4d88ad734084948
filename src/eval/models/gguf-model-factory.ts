/**
 * The worker's default factory: loads a GGUF through the node-llama-cpp loader. Imported only inside the model
 * process, so llama.cpp never runs in the benchmark's own process.
 */
import { loadModel, type LoadModelOptions } from "../../model/llama/index.js";
import type { WorkerServedModel } from "./worker-protocol.js";

/** The loader options that cross the process boundary (no callbacks). */
export type GgufFactoryOptions = Omit<LoadModelOptions, "onProgress">;

/** Load the model named by `options.model` (a path or an alias) with the loader's defaults for anything not given. */
export async function createModel(options: GgufFactoryOptions): Promise<WorkerServedModel> {
  return loadModel(options);
}
