import { abortError, raceAbort } from "../abort.js";
import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import { budgetsFor, catalogModelFor, defaultModelAlias, type ModelBudgets } from "../model/catalog.js";
import { catalogMismatch } from "../model/catalog-mismatch.js";
import { pullModel, type PullProgress } from "../model/download/pull-model.js";
import { ModelLoadError } from "../model/errors.js";
import { readGgufHeader } from "../model/gguf/gguf-header.js";
import type { ModelHandle, ModelInfo } from "../model/model-handle.js";
import { modelsDir, modelsDirs } from "../model/models-dir.js";
import { partialBytes, resolveModelFile, type ResolvedModel } from "../model/resolve-model.js";
import { ScriptedModel } from "../testing/scripted-model.js";
import { MAX_SCRIPT_FILE_BYTES } from "../defaults.js";
import { readRegularText, RegularFileError } from "../regular-file.js";
import {
  loadServerModel,
  modelSpecWithServer,
  serverGroundingNote,
  type ServerCommandOptions,
} from "./server-model.js";
import { CliUsageError, hint, type CliIO } from "./cli-io.js";
import { formatBytes, formatDuration } from "./format.js";
import { modelFlags, type ModelCommandOptions, type ModelFlags } from "./model-options.js";
import type { Progress } from "./progress.js";
import { askQuestion, isInteractive } from "./terminal-question.js";
import { parseCliModelSpec, SCRIPT_PREFIX } from "./model-spec.js";

/** What a command needs of a model: a ModelHandle that says what it is and can be released. */
export type CliModel = ModelHandle & {
  readonly info: ModelInfo;
  readonly backend: string;
  readonly threads: number;
  dispose(): Promise<void> | void;
};

/**
 * The replies of a script file: objects become their JSON, strings stay as they are. Read through the bounded reader:
 * a regular file of at most MAX_SCRIPT_FILE_BYTES (a FIFO, device or folder is refused at once, never waited on).
 */
export function scriptedReplies(path: string): string[] {
  let replies: unknown;
  try {
    replies = JSON.parse(readRegularText(path, MAX_SCRIPT_FILE_BYTES, "a script of replies"));
  } catch (error) {
    if (error instanceof RegularFileError && error.code !== "not_found")
      throw new CliUsageError(`--model ${SCRIPT_PREFIX}${error.message}`);
    throw new CliUsageError(
      `--model ${SCRIPT_PREFIX}${path}: cannot read a JSON array of replies (${(error as Error).message})`,
    );
  }
  const bad = Array.isArray(replies)
    ? replies.findIndex((r) => typeof r !== "string" && (r === null || typeof r !== "object" || Array.isArray(r)))
    : -1;
  if (!Array.isArray(replies) || bad >= 0) {
    throw new CliUsageError(
      `--model ${SCRIPT_PREFIX}${path}: expected a JSON array of replies, each an action object ({"skill_name": ..., "arguments": {...}} or {"final_answer": ...}) or a string of raw text${bad >= 0 ? ` (reply ${bad + 1} is neither)` : ""}`,
    );
  }
  return replies.map((r) => (typeof r === "string" ? r : JSON.stringify(r)));
}

function loadScriptedModel(path: string): CliModel {
  const model = new ScriptedModel(scriptedReplies(path), { name: path });
  return Object.assign(model, { backend: "scripted", threads: 0, dispose: () => {} });
}

/** A command's model, found: scripted replies (their file's absolute path), a model server, or a GGUF file. */
export type FoundModel =
  { kind: "script"; path: string } | { kind: "server"; url: string } | { kind: "gguf"; resolved: ResolvedModel };

/**
 * Turn `--model` (or the catalog default) into what it names: a script's file, a server, or a GGUF file looked for in
 * every models folder. A catalog model that is not downloaded is offered for download on an interactive terminal (its
 * size shown; a partial download is offered for resuming, with the bytes already there); otherwise it is a setup error
 * naming the exact pull command, written as the tool was started. Ctrl-C at the question interrupts (exit 130). A file
 * named like a catalog file that is not one gets a warning.
 */
export async function resolveModelForCli(io: CliIO, spec: string | undefined, progress: Progress): Promise<FoundModel> {
  const parsed = parseCliModelSpec(spec ?? defaultModelAlias());
  // a model on a server (http://host:port/v1#name) is connected to when it is loaded
  if (parsed.kind === "server") return { kind: "server", url: parsed.url.trim() };
  if (parsed.kind === "script") return { kind: "script", path: resolve(io.cwd, parsed.path) };
  return { kind: "gguf", resolved: await resolveGgufForCli(io, parsed.name, progress) };
}

/** A GGUF spec found in the models folders, or offered for download (see {@link resolveModelForCli}). */
async function resolveGgufForCli(io: CliIO, wanted: string, progress: Progress): Promise<ResolvedModel> {
  const dirs = modelsDirs(io.env);
  const dir = modelsDir(io.env);
  let resolved: ResolvedModel;
  try {
    resolved = resolveModelFile(wanted, { modelsDirs: dirs, cwd: io.cwd });
  } catch (error) {
    if (!(error instanceof ModelLoadError) || error.code !== "not_found") throw error;
    const known = catalogModelFor(wanted);
    if (!known) throw error;
    const { entry, file } = known;
    const have = partialBytes(join(dir, file.fileName));
    const state =
      have !== undefined
        ? `is partly downloaded (${formatBytes(have)} of ${formatBytes(file.sizeBytes)})`
        : "is not downloaded";
    const pullLine = `model ${wanted} ${state}; run: ${hint(io, `pull ${wanted}`)}${have !== undefined ? " to resume" : ""}`;
    if (!isInteractive(io)) throw new CliUsageError(pullLine);
    const question =
      have !== undefined
        ? `${entry.name} (${wanted}, ${formatBytes(file.sizeBytes)}) ${state}. Resume the download to ${dir} now? [y/N] `
        : `${entry.name} (${wanted}, ${formatBytes(file.sizeBytes)}) ${state}. Download it to ${dir} now? [y/N] `;
    const reply = await askQuestion(io, question);
    // runCli answers any error thrown after an interrupt with exit 130
    if (io.signal.aborted) throw abortError(io.signal.reason);
    if (!reply || !/^y(es)?$/i.test(reply)) throw new CliUsageError(pullLine);
    progress.start(`${have !== undefined ? "resuming" : "downloading"} ${wanted}`);
    const result = await pullModel(wanted, {
      modelsDir: dir,
      env: io.env,
      signal: io.signal,
      onProgress: (p) => progress.update(describePull(wanted, p)),
    });
    progress.succeed(`downloaded ${wanted}${result.resumed ? " (resumed)" : ""}`);
    resolved = resolveModelFile(wanted, { modelsDirs: dirs, cwd: io.cwd });
  }
  await warnIfMisnamed(io, resolved);
  return resolved;
}

/**
 * A file that carries a catalog file's name but whose header or size says it is another quantization or model: one
 * warning line on stderr naming what was expected (the run goes on with the file).
 */
async function warnIfMisnamed(io: CliIO, resolved: ResolvedModel): Promise<void> {
  if (!resolved.entry || !resolved.file) return;
  let mismatch: string | undefined;
  try {
    const header = await readGgufHeader(resolved.path);
    mismatch = catalogMismatch(
      { sizeBytes: statSync(resolved.path).size, quantization: header.quantization },
      resolved.entry,
      resolved.file,
    );
  } catch {
    return; // a file that cannot be read gets the loader's own error
  }
  if (mismatch)
    io.stderr.write(
      `gemma-agent: warning: ${resolved.path} is named like the catalog's ${resolved.entry.alias}:${resolved.file.quantization}, but ${mismatch}.\n`,
    );
}

/**
 * One progress line of a download: `gemma-4-e2b 1.2 GB / 3.1 GB (38%) 24.5 MB/s, 1m 17s left`; while it waits,
 * what it waits for and for how long: `gemma-4-e2b: waiting for huggingface.co to answer (12s; gives up after
 * 1m 00s)`, `gemma-4-e2b 1.2 GB / 3.1 GB (38%): no data from huggingface.co for 5s; gives up after 1m 00s`.
 */
export function describePull(
  name: string,
  p: Pick<PullProgress, "receivedBytes" | "totalBytes" | "bytesPerSecond" | "etaSeconds"> &
    Partial<Pick<PullProgress, "phase" | "idleMs" | "stallTimeoutMs" | "host">>,
): string {
  const waited = p.idleMs !== undefined ? formatDuration(p.idleMs / 1000) : undefined;
  const limit = p.stallTimeoutMs !== undefined ? `; gives up after ${formatDuration(p.stallTimeoutMs / 1000)}` : "";
  if (p.phase === "connecting")
    return `${name}: waiting for ${p.host ?? "the server"} to answer (${waited ?? "0s"}${limit})`;
  const total = p.totalBytes
    ? ` / ${formatBytes(p.totalBytes)} (${Math.floor((100 * p.receivedBytes) / p.totalBytes)}%)`
    : "";
  if (p.idleMs !== undefined && p.idleMs >= 2000)
    return `${name} ${formatBytes(p.receivedBytes)}${total}: no data from ${p.host ?? "the server"} for ${waited}${limit}`;
  const eta = p.etaSeconds !== undefined ? `, ${formatDuration(p.etaSeconds)} left` : "";
  return `${name} ${formatBytes(p.receivedBytes)}${total} ${formatBytes(p.bytesPerSecond)}/s${eta}`;
}

/**
 * Load the resolved model, with a percentage on the progress line. A server URL is connected to instead (dialect,
 * models), with `server`'s flags and environment (the API key) and its signal.
 */
export async function loadModelForCli(
  found: FoundModel,
  flags: ModelFlags,
  progress: Progress,
  server?: { io: Pick<CliIO, "env"> & { signal?: AbortSignal }; options: ServerCommandOptions },
): Promise<CliModel> {
  if (found.kind === "script") return loadScriptedModel(found.path);
  if (found.kind === "server")
    return loadServerModel(server?.io ?? { env: process.env }, found.url, { ...server?.options, ...flags }, progress);
  const { resolved } = found;
  const label = resolved.alias ?? resolved.path;
  progress.start(`loading ${label}`);
  try {
    // node-llama-cpp loads only when a model does: `--help`, `models` and `pull` start fast without it
    const { loadModel } = await raceAbort(import("../model/llama/index.js"), server?.io.signal);
    const handle = await loadModel({
      model: resolved.path,
      ...flags,
      ...(server?.io.signal && { signal: server.io.signal }),
      onProgress: (fraction: number) => progress.update(`loading ${label} ${Math.round(fraction * 100)}%`),
    });
    progress.succeed(
      `loaded ${label} (${handle.info.architecture}, ${handle.info.quantization}, ${handle.backend}, ${handle.threads} threads)`,
    );
    return handle;
  } catch (error) {
    progress.fail(`could not load ${label}`);
    throw error;
  }
}

/** The run budgets: flags first, then the catalog's for this model, then its architecture's. */
export function budgetsForModel(resolved: Pick<ResolvedModel, "entry">, architecture: string): ModelBudgets {
  return resolved.entry ? budgetsFor(resolved.entry) : budgetsFor(architecture);
}

/**
 * The one way a command gets its model (ask, run, chat): `spec` (`--model`, else what the command defaults to, else
 * the catalog default) with the server flags, found (or offered for download), loaded with the model flags; and the
 * run budgets for it (the catalog's).
 */
export async function loadCommandModel(
  io: CliIO,
  spec: string | undefined,
  options: ModelCommandOptions & ServerCommandOptions,
  progress: Progress,
): Promise<{ model: CliModel; budgets: ModelBudgets }> {
  const found = await resolveModelForCli(io, modelSpecWithServer(spec, options), progress);
  // an interactive command keeps its system prompt's state across runs (`--no-prompt-cache` turns it off)
  // with a warning line, not a failed run, when its folder fails (read-only, full, something foreign at its names)
  const promptCache = options.promptCache !== false && {
    onWarning: (message: string) => io.stderr.write(`gemma-agent: warning: ${message}\n`),
  };
  const flags = { ...modelFlags(options), promptCache };
  const model = await loadModelForCli(found, flags, progress, { io, options });
  const note =
    found.kind === "server" ? serverGroundingNote((options as { grounding?: unknown }).grounding) : undefined;
  if (note) io.stderr.write(note);
  return { model, budgets: budgetsForModel(found.kind === "gguf" ? found.resolved : {}, model.info.architecture) };
}
