import { basename } from "node:path";
import { abortError, raceAbort } from "../../abort.js";
import type { Llama, LlamaContext, LlamaModel } from "node-llama-cpp";
import { chatFormatForArchitecture } from "../../prompt/chat-format.js";
import { checkGgufFile, checkGgufRunnable } from "../gguf/gguf-check.js";
import { quantizationName } from "../gguf/gguf-file-type.js";
import { resolveModelFile } from "../resolve-model.js";
import { DEFAULT_TEMPERATURE } from "../decoding/defaults.js";
import { DEFAULT_CONTEXT_SIZE } from "./defaults.js";
import { GrammarCache } from "../decoding/grammar-cache.js";
import { LlamaModelHandle } from "./llama-model-handle.js";
import { backendOf, getLlamaRuntime } from "./llama-runtime.js";
import { toModelLoadError } from "./load-errors.js";
import { modelChatFormat } from "./model-chat-format.js";
import { PROMPT_CACHE_FORMAT, PromptCache, type PromptCacheOptions } from "./prompt-cache.js";
import { defaultThreadCount } from "./threads.js";
import { classifyTokens } from "../grounding/token-classes.js";

/** Options of {@link loadModel}. */
export interface LoadModelOptions {
  /** A path to a `.gguf` file, or a catalog alias (`gemma-4-e2b`, `gemma-3-1b:Q8_0`) of a downloaded model. */
  model: string;
  /**
   * `"auto"` (default): offload layers to a GPU when node-llama-cpp's prebuilt binaries find one (CUDA, Vulkan,
   * Metal), else run on the CPU. `false`: CPU only.
   */
  gpu?: "auto" | false;
  /** Context window in tokens. Default: DEFAULT_CONTEXT_SIZE (8,192), capped at the model's trained context. */
  contextSize?: number;
  /**
   * Threads for token evaluation. Default: the CPUs this process may use (affinity, container quota), at most
   * llama.cpp's math-core count; node-llama-cpp's own default oversubscribes small machines (20-40x slower).
   */
  threads?: number;
  /** Seed for sampling with a temperature. Default: none (node-llama-cpp draws one per call). */
  seed?: number;
  /** Default sampling temperature of `generate`. Default: 0 (greedy). */
  temperature?: number;
  /**
   * Under a grammar, evaluate the text it forces in one batch instead of sampling it (jump-forward). Default true
   * (DEFAULT_JUMP_FORWARD).
   */
  jumpForward?: boolean;
  /**
   * Under a grammar, our GBNF matcher picks each token among the model's top candidates, and llama.cpp's grammar
   * passes over the whole vocabulary only when none is allowed (candidate sampling). Default true
   * (DEFAULT_CANDIDATE_SAMPLING); false: llama.cpp's grammar sampler decides every token, for comparison.
   */
  candidateSampling?: boolean;
  /**
   * Under candidate sampling, check the tokens jump-forward held back (`":"` before a string's content) in the batch
   * of the tokens before them (speculation): each one the model's own pick confirms saves a decode, and the picks are
   * the same. Default DEFAULT_SPECULATION.
   */
  speculation?: boolean;
  /**
   * Context sequences: how many `generate` calls run at once, their decode steps batched by llama.cpp (an evaluation's
   * `--parallel`). Each holds its own KV cache of `contextSize` tokens, so memory grows with it. Default 1.
   */
  sequences?: number;
  /**
   * Save the evaluated state of a prompt's shared opening (`GenerateOptions.sharedPrefix`: an agent's system prompt)
   * and restore it in later processes instead of prefilling it: `true` for the default folder and bounds, or where and
   * how much. Default false (the CLI turns it on; `--no-prompt-cache` off).
   */
  promptCache?: boolean | PromptCacheOptions;
  /** Called with the load progress, 0 to 1. */
  onProgress?: (fraction: number) => void;
  /** Where catalog aliases are looked up. Default: the models directory (env `GEMMA_AGENT_MODELS`). */
  modelsDir?: string;
  /**
   * Stops the load (Ctrl-C): llama.cpp's load and context creation are told to stop, and the promise rejects with an
   * AbortError at once, whatever is still loading (it is disposed when it finishes). Default: none.
   */
  signal?: AbortSignal;
}

function checkOptions(options: LoadModelOptions): void {
  if (typeof options?.model !== "string" || options.model.trim() === "")
    throw new TypeError("loadModel: `model` must be a path or a catalog alias");
  if (options.gpu !== undefined && options.gpu !== "auto" && options.gpu)
    throw new TypeError('loadModel: `gpu` must be "auto" or false');
  for (const key of ["contextSize", "threads", "sequences"] as const) {
    const value = options[key];
    if (value !== undefined && !(Number.isInteger(value) && value >= 1))
      throw new TypeError(`loadModel: \`${key}\` must be a positive integer`);
  }
  if (options.temperature !== undefined && !(options.temperature >= 0))
    throw new TypeError("loadModel: `temperature` must be >= 0");
  if (options.seed !== undefined && !Number.isInteger(options.seed))
    throw new TypeError("loadModel: `seed` must be an integer");
}

/**
 * A model or context being made, or an AbortError as soon as `signal` aborts (llama.cpp may take a while to notice
 * its own signal): what finishes after the abort is disposed, never leaked.
 */
function raceLoad<T extends { dispose(): Promise<void> }>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (!signal) return work;
  return raceAbort(work, signal).catch((error: unknown) => {
    if (signal.aborted) void work.then((late) => late.dispose()).catch(() => undefined);
    throw error;
  });
}

/** The prompt cache of a loaded model: keyed by its file, its context's settings and the runtime. */
function promptCacheFor(
  options: true | PromptCacheOptions,
  modelPath: string,
  context: LlamaContext,
  llama: Llama,
): PromptCache {
  return new PromptCache(
    {
      modelPath,
      contextSize: context.contextSize,
      settings: {
        batchSize: context.batchSize,
        flashAttention: context.flashAttention,
        gpu: llama.gpu,
        llamaCpp: llama.llamaCppRelease,
        cacheFormat: PROMPT_CACHE_FORMAT,
      },
    },
    options === true ? {} : options,
  );
}

/** The handle over a loaded model and its context: its description, chat format, grammars, sampling, caches. */
function handleFor(parts: {
  options: LoadModelOptions;
  path: string;
  architecture: string;
  model: LlamaModel;
  context: LlamaContext;
  llama: Llama;
  threads: number;
}): LlamaModelHandle {
  const { options, path, architecture, model, context, llama } = parts;
  const metadata = model.fileInfo.metadata;
  const tokenClasses = classifyTokens(model);
  return new LlamaModelHandle({
    model,
    context,
    info: {
      architecture,
      name:
        typeof metadata?.general?.name === "string" && metadata.general.name !== ""
          ? metadata.general.name
          : basename(path),
      contextLength: context.contextSize,
      trainContextLength: model.trainContextSize,
      vocabularySize: tokenClasses.vocabularySize,
      quantization: quantizationName(metadata?.general?.file_type),
      path,
    },
    chatFormat: chatFormatForArchitecture(architecture) ?? modelChatFormat(model),
    grammars: new GrammarCache(llama),
    tokenClasses,
    threads: parts.threads,
    backend: backendOf(llama, model.gpuLayers),
    sampling: {
      temperature: options.temperature ?? DEFAULT_TEMPERATURE,
      seed: options.seed,
    },
    jumpForward: options.jumpForward,
    candidateSampling: options.candidateSampling,
    speculation: options.speculation,
    ...(options.promptCache && { promptCache: promptCacheFor(options.promptCache, path, context, llama) }),
  });
}

/**
 * Load a GGUF model with node-llama-cpp and return a {@link LlamaModelHandle}: one context with one sequence, the
 * chat format of its architecture (Gemma 3 / 3n / 4 turns; the model's own template otherwise), grammar-constrained
 * generation and KV-cache reuse.
 *
 * The file is checked before llama.cpp sees it. Every failure about the model is a ModelLoadError whose `code` is
 * `not_found`, `not_gguf`, `corrupt`, `out_of_memory` or `unsupported_architecture` and whose message says what to
 * do. Bad options throw a TypeError.
 */
export async function loadModel(options: LoadModelOptions): Promise<LlamaModelHandle> {
  checkOptions(options);
  const gpu = options.gpu ?? "auto";
  const { path } = resolveModelFile(options.model, { modelsDir: options.modelsDir });
  const { signal } = options;
  const checked = await checkGgufFile(path);
  const runtime = await raceAbort(getLlamaRuntime(gpu), signal);
  const { llama } = runtime;
  await checkGgufRunnable(checked, llama);

  let model: LlamaModel | undefined;
  let context: LlamaContext | undefined;
  try {
    model = await raceLoad(
      llama.loadModel({
        modelPath: path,
        gpuLayers: gpu === false ? 0 : "auto",
        ...(options.onProgress && { onLoadProgress: options.onProgress }),
        ...(signal && { loadSignal: signal }),
      }),
      signal,
    );
    const trainContextLength = model.trainContextSize;
    const contextSize =
      options.contextSize ?? Math.min(DEFAULT_CONTEXT_SIZE, trainContextLength || DEFAULT_CONTEXT_SIZE);
    const threads = options.threads ?? defaultThreadCount(llama.cpuMathCores);
    context = await raceLoad(
      model.createContext({
        contextSize,
        threads,
        sequences: options.sequences ?? 1,
        failedCreationRemedy: false,
        ...(signal && { createSignal: signal }),
      }),
      signal,
    );

    return handleFor({ options, path, architecture: checked.architecture, model, context, llama, threads });
  } catch (error) {
    await context?.dispose().catch(() => undefined);
    await model?.dispose().catch(() => undefined);
    if (signal?.aborted) throw abortError(signal.reason);
    throw toModelLoadError(error, path, runtime.recentLogs());
  }
}
