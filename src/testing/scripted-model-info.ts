import type { ModelInfo } from "../model/model-handle.js";

/**
 * The `info` of a model that is no real network (a script, a replay, a trajectory): no context limit, no vocabulary,
 * no quantization. `architecture` says which kind it is (`scripted` unless given).
 */
export function scriptedModelInfo(name: string, architecture = "scripted"): ModelInfo {
  return { architecture, name, contextLength: Infinity, vocabularySize: 0, quantization: "none" };
}
