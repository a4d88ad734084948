import { budgetsFor, defaultModelAlias, findCatalogEntry, catalogFileFor, splitModelSpec, type ModelBudgets } from "../model/catalog.js";
import { pullModel } from "../model/download.js";
import { ModelLoadError } from "../model/errors.js";
import { modelsDir } from "../model/models-dir.js";
import { resolveModelFile, type ResolvedModel } from "../model/resolve-model.js";
import { CliUsageError, type CliIO } from "./cli-io.js";
import { formatBytes, formatDuration } from "./format.js";
import type { Progress } from "./progress.js";
import { askQuestion, isInteractive } from "./terminal-question.js";
import { readFileSync } from "node:fs";
import { ScriptedModel } from "../testing/scripted-model.js";
import type { ModelHandle, ModelInfo } from "../model/model-handle.js";

/** What a command needs of a model: a ModelHandle that says what it is and can be released. */
export type CliModel = ModelHandle & { readonly info: ModelInfo; readonly backend: string; readonly threads: number; dispose(): Promise<void> | void };

/** `--model script:FILE.json`: a JSON array of replies, played in order (a scripted, deterministic run; no GGUF). */
export const SCRIPT_PREFIX = "script:";

function loadScriptedModel(path: string): CliModel {
  let replies: unknown;
  try {
    replies = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new CliUsageError(`--model ${SCRIPT_PREFIX}${path}: cannot read a JSON array of replies (${(error as Error).message})`);
  }
  if (!Array.isArray(replies) || !replies.every((r) => typeof r === "string")) {
    throw new CliUsageError(`--model ${SCRIPT_PREFIX}${path}: expected a JSON array of strings (the model's replies, in order)`);
  }
  const model = new ScriptedModel(replies as string[], { name: path });
  return Object.assign(model, { backend: "scripted", threads: 0, dispose: () => {} });
}

/** Model flags shared by the commands that load a model. */
export interface ModelFlags {
  model?: string;
  gpu?: "auto" | false;
  threads?: number;
  contextSize?: number;
  seed?: number;
  temperature?: number;
}

/**
 * Turn `--model` (or the catalog default) into a file path. A catalog model that is not downloaded is offered for
 * download on an interactive terminal (its size shown); otherwise it is a setup error naming the exact pull command.
 */
export async function resolveModelForCli(io: CliIO, spec: string | undefined, progress: Progress): Promise<ResolvedModel> {
  const dir = modelsDir(io.env);
  const wanted = spec ?? defaultModelAlias();
  if (wanted.startsWith(SCRIPT_PREFIX)) return { path: wanted };
  try {
    return resolveModelFile(wanted, { modelsDir: dir });
  } catch (error) {
    if (!(error instanceof ModelLoadError) || error.code !== "not_found") throw error;
    const [alias, quant] = splitModelSpec(wanted);
    const entry = findCatalogEntry(alias);
    const file = entry && catalogFileFor(entry, quant);
    if (!entry || !file || !isInteractive(io)) {
      throw new CliUsageError(entry ? `model ${wanted} is not downloaded; run: gemma-agent pull ${wanted}` : error.message);
    }
    const reply = await askQuestion(io, `${entry.name} (${wanted}, ${formatBytes(file.sizeBytes)}) is not downloaded. Download it to ${dir} now? [y/N] `);
    if (!reply || !/^y(es)?$/i.test(reply)) throw new CliUsageError(`model ${wanted} is not downloaded; run: gemma-agent pull ${wanted}`);
    progress.start(`downloading ${wanted}`);
    await pullModel(wanted, {
      modelsDir: dir,
      env: io.env,
      signal: io.signal,
      onProgress: (p) => progress.update(describePull(wanted, p)),
    });
    progress.succeed(`downloaded ${wanted}`);
    return resolveModelFile(wanted, { modelsDir: dir });
  }
}

/** `gemma-4-e2b 1.2 GB / 3.1 GB (38%) 24.5 MB/s, 1m 17s left`. */
export function describePull(name: string, p: { receivedBytes: number; totalBytes?: number; bytesPerSecond: number; etaSeconds?: number }): string {
  const total = p.totalBytes ? ` / ${formatBytes(p.totalBytes)} (${Math.floor((100 * p.receivedBytes) / p.totalBytes)}%)` : "";
  const eta = p.etaSeconds !== undefined ? `, ${formatDuration(p.etaSeconds)} left` : "";
  return `${name} ${formatBytes(p.receivedBytes)}${total} ${formatBytes(p.bytesPerSecond)}/s${eta}`;
}

/** Load the resolved model, with a percentage on the progress line. */
export async function loadModelForCli(resolved: ResolvedModel, flags: ModelFlags, progress: Progress): Promise<CliModel> {
  if (resolved.path.startsWith(SCRIPT_PREFIX)) return loadScriptedModel(resolved.path.slice(SCRIPT_PREFIX.length));
  const label = resolved.alias ?? resolved.path;
  progress.start(`loading ${label}`);
  try {
    // node-llama-cpp loads only when a model does: `--help`, `models` and `pull` start fast without it
    const { loadModel } = await import("../model/llama/index.js");
    const handle = await loadModel({
      model: resolved.path,
      gpu: flags.gpu ?? "auto",
      ...(flags.threads !== undefined && { threads: flags.threads }),
      ...(flags.contextSize !== undefined && { contextSize: flags.contextSize }),
      ...(flags.seed !== undefined && { seed: flags.seed }),
      ...(flags.temperature !== undefined && { temperature: flags.temperature }),
      onProgress: (fraction: number) => progress.update(`loading ${label} ${Math.round(fraction * 100)}%`),
    });
    progress.succeed(`loaded ${label} (${handle.info.architecture}, ${handle.info.quantization}, ${handle.backend}, ${handle.threads} threads)`);
    return handle;
  } catch (error) {
    progress.fail(`could not load ${label}`);
    throw error;
  }
}

/** The run budgets: flags first, then the catalog's for this model, then its architecture's. */
export function budgetsForModel(resolved: ResolvedModel, architecture: string): ModelBudgets {
  return resolved.entry ? budgetsFor(resolved.entry) : budgetsFor(architecture);
}
