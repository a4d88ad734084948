import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { abortError } from "../../abort.js";
import { CodedError, errorFromJson, type ErrorJson } from "../../coded-error.js";
import { withoutUndefined } from "../../without-undefined.js";
import { ModelLoadError, type ModelLoadErrorCode } from "../../model/errors.js";
import type {
  CallStats,
  DecisionBranch,
  GenerateOptions,
  GenerationStats,
  ModelHandle,
  ModelInfo,
} from "../../model/model-handle.js";
import {
  chatFormatForArchitecture,
  gemma3ChatFormat,
  gemma4ChatFormat,
  type ChatFormat,
} from "../../prompt/chat-format.js";
import { WORKER_EXIT_GRACE_MS, WORKER_GENERATE_TIMEOUT_MS } from "../defaults.js";
import type { FromWorker, StatsTotals, ToWorker } from "./worker-protocol.js";

/**
 * The model process died or stopped answering; the task that was running fails, the next one gets a fresh process.
 * Not a CodedError: a crash is not a setup error (the CLI reports any CodedError as one, exit 2), and nothing
 * switches on its kind (callers read `alive`).
 */
export class ModelProcessError extends Error {
  override readonly name = "ModelProcessError";
}

/** Options of {@link ChildProcessModel.start}. */
export interface ChildProcessModelOptions {
  /** Path or URL of the factory module the worker imports (default: the GGUF factory next to this file). */
  factory?: string;
  /** Passed to the factory's `createModel`; must survive structured cloning. */
  factoryOptions?: unknown;
  /** Default {@link WORKER_GENERATE_TIMEOUT_MS}. */
  generateTimeoutMs?: number;
  /** Extra environment for the process. */
  env?: NodeJS.ProcessEnv;
}

const LOAD_ERROR_CODES: readonly ModelLoadErrorCode[] = [
  "not_found",
  "not_gguf",
  "corrupt",
  "out_of_memory",
  "unsupported_architecture",
];

/**
 * The error a failed load rejects with: a ModelLoadError from the process as one (its code kept, so the CLI and the
 * runner treat it as the in-process loader's), any other coded error as it was thrown (a setup error), and anything
 * else as a ModelProcessError.
 */
function loadError(json: ErrorJson): Error {
  if (json.name === "ModelLoadError" && LOAD_ERROR_CODES.includes(json.code as ModelLoadErrorCode))
    return new ModelLoadError(json.code as ModelLoadErrorCode, json.message, json.path);
  const error = errorFromJson(json);
  if (error instanceof CodedError) return error;
  return new ModelProcessError(`the model process could not load the model: ${json.message}`);
}

/** This file's sibling with the same extension (`.ts` under tsx and vitest, `.js` once built). */
function sibling(name: string): string {
  const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  return fileURLToPath(new URL(`./${name}${ext}`, import.meta.url));
}

interface Pending {
  resolve: (value: string | number) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  /** A generate call's `onStats`: the child's counts of that call come back with its reply. */
  onStats?: (stats: CallStats) => void;
  /** A generate call's decision `onBranch`: the child's branch points of that call come back with its reply. */
  onBranch?: (branch: DecisionBranch) => void;
}

/**
 * A ModelHandle whose model lives in a child process (the worker), so a native crash in llama.cpp kills that process,
 * not the benchmark. Each generate call is a message round trip; its reply carries that call's own token counts (to
 * `onStats`), and `stats` is the last reply's counts with totals kept here.
 * When the process exits unexpectedly, the call in flight rejects with {@link ModelProcessError} and `alive` turns
 * false.
 */
export class ChildProcessModel implements ModelHandle {
  readonly info: ModelInfo | undefined;
  readonly chatFormat: ChatFormat | undefined;
  /** The child model's context window and reply overrun, when it has them (the agent fits prompts to them). */
  readonly contextSize: number | undefined;
  readonly replyOverrun: number | undefined;
  /** Whether the model in the child applies decision offsets (see ModelHandle.scoresDecisions). */
  readonly scoresDecisions: boolean;
  /** Counts a prompt's tokens in the child (a round trip); undefined when the child model cannot. */
  readonly countTokens: ((prompt: string) => Promise<number>) | undefined;
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, Pending>();
  readonly #timeoutMs: number;
  #stats: GenerationStats | undefined;
  #nextId = 1;
  #exit: string | undefined;

  private constructor(child: ChildProcess, ready: Extract<FromWorker, { type: "ready" }>, timeoutMs: number) {
    this.#child = child;
    this.#timeoutMs = timeoutMs;
    this.info = ready.info;
    this.contextSize = ready.contextSize;
    this.replyOverrun = ready.replyOverrun;
    this.scoresDecisions = ready.scoresDecisions === true;
    this.countTokens = ready.countsTokens
      ? (prompt) => this.#request<number>({ type: "count-tokens", id: this.#nextId++, prompt })
      : undefined;
    this.chatFormat =
      ready.chatFormat === "gemma4"
        ? gemma4ChatFormat
        : ready.chatFormat === "gemma3"
          ? gemma3ChatFormat
          : ready.info
            ? chatFormatForArchitecture(ready.info.architecture)
            : undefined;
    child.on("message", (message: FromWorker) => this.#onMessage(message));
    child.on("exit", (code, signal) => this.#onExit(code, signal));
  }

  /**
   * Fork the worker and load the model in it. Resolves once it is ready; rejects with ModelLoadError when the
   * factory threw one (its code is kept), with any other coded error as it was thrown, and with ModelProcessError when the process died while loading.
   */
  static async start(options: ChildProcessModelOptions = {}): Promise<ChildProcessModel> {
    const worker = sibling("model-worker");
    const execArgv = worker.endsWith(".ts") ? ["--import", "tsx"] : [];
    const child = fork(worker, [], {
      execArgv,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "advanced",
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    const ready = await new Promise<Extract<FromWorker, { type: "ready" }>>((resolve, reject) => {
      const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
        reject(
          new ModelProcessError(
            `the model process exited while loading (${signal ?? `code ${code}`})${stderr ? `: ${stderr.trim().split("\n").at(-1)}` : ""}`,
          ),
        );
      child.once("exit", onExit);
      child.once("message", (message: FromWorker) => {
        child.off("exit", onExit);
        if (message.type === "ready") return resolve(message);
        child.kill();
        reject(
          message.type === "load-error"
            ? loadError(message.error)
            : new ModelProcessError(`the model process could not load the model: ${message.type}`),
        );
      });
      const load: ToWorker = {
        type: "load",
        factory: options.factory ?? sibling("gguf-model-factory"),
        options: options.factoryOptions ?? {},
      };
      child.send(load);
    });
    return new ChildProcessModel(child, ready, options.generateTimeoutMs ?? WORKER_GENERATE_TIMEOUT_MS);
  }

  /** False once the process has exited. */
  get alive(): boolean {
    return this.#exit === undefined;
  }

  /**
   * The counts of the call whose reply came last, and the child model's totals then; a snapshot. Undefined until a
   * reply carried counts. Under concurrency a caller's own counts come to its `GenerateOptions.onStats`.
   */
  get stats(): GenerationStats | undefined {
    return this.#stats && structuredClone(this.#stats);
  }

  generate(prompt: string, options: GenerateOptions = {}): Promise<string> {
    if (options.signal?.aborted) return Promise.reject(abortError(options.signal.reason));
    if (this.#exit !== undefined)
      return Promise.reject(new ModelProcessError(`the model process is gone (${this.#exit})`));
    const id = this.#nextId++;
    const { jsonSchema, maxTokens, temperature, grounding } = options;
    const { onBranch, ...decision } = options.decision ?? {};
    return new Promise<string>((resolve, reject) => {
      const cleanup = () => options.signal?.removeEventListener("abort", onAbort);
      const onAbort = () => {
        this.#settle(id)?.reject(abortError(options.signal?.reason));
        this.#send({ type: "abort", id });
      };
      const timer = setTimeout(() => {
        this.#settle(id)?.reject(
          new ModelProcessError(`the model process did not answer in ${this.#timeoutMs} ms; killed`),
        );
        this.#child.kill("SIGKILL");
      }, this.#timeoutMs);
      this.#pending.set(id, {
        resolve: (text) => (cleanup(), resolve(text as string)),
        reject: (error) => (cleanup(), reject(error)),
        timer,
        ...(options.onStats && { onStats: options.onStats }),
        ...(onBranch && { onBranch }),
      });
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.#send({
        type: "generate",
        id,
        prompt,
        options: withoutUndefined({
          jsonSchema,
          maxTokens,
          temperature,
          grounding,
          decision: options.decision ? decision : undefined,
        }),
      });
    });
  }

  /** One request/reply round trip that needs no abort (it is quick): rejects when the process exits or times out. */
  #request<T extends string | number>(message: Extract<ToWorker, { id: number }>): Promise<T> {
    if (this.#exit !== undefined)
      return Promise.reject(new ModelProcessError(`the model process is gone (${this.#exit})`));
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#settle(message.id)?.reject(
          new ModelProcessError(`the model process did not answer in ${this.#timeoutMs} ms; killed`),
        );
        this.#child.kill("SIGKILL");
      }, this.#timeoutMs);
      this.#pending.set(message.id, { resolve: (value) => resolve(value as T), reject, timer });
      this.#send(message);
    });
  }

  /** Ask the process to free the model and exit; kill it when it has not exited after a grace period. */
  async dispose(): Promise<void> {
    if (this.#exit !== undefined) return;
    const exited = new Promise<void>((resolve) => this.#child.once("exit", () => resolve()));
    this.#send({ type: "dispose" });
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), WORKER_EXIT_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }

  #send(message: ToWorker): void {
    if (this.#exit === undefined && this.#child.connected) this.#child.send(message);
  }

  #settle(id: number): Pending | undefined {
    const pending = this.#pending.get(id);
    if (!pending) return undefined;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    return pending;
  }

  #onMessage(message: FromWorker): void {
    if (message.type === "result") {
      const pending = this.#settle(message.id);
      if (message.stats) this.#record(message.stats, message.totals, pending);
      for (const branch of message.branches ?? []) pending?.onBranch?.(branch);
      pending?.resolve(message.text);
    } else if (message.type === "count") {
      this.#settle(message.id)?.resolve(message.tokens);
    } else if (message.type === "error") {
      const pending = this.#settle(message.id);
      if (message.stats) this.#record(message.stats, message.totals, pending);
      pending?.reject(errorFromJson(message.error));
    }
  }

  /** A call's counts from the child: into `stats` (with the child's totals), and to the call's own `onStats`. */
  #record(call: CallStats, totals: StatsTotals | undefined, pending: Pending | undefined): void {
    const none = { calls: 0, promptTokens: 0, evaluatedPromptTokens: 0, generatedTokens: 0, generationMs: 0 };
    this.#stats = { ...call, totals: totals ?? this.#stats?.totals ?? none };
    pending?.onStats?.({ ...call });
  }

  #onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.#exit = signal ?? `code ${code}`;
    // settle() deletes from the map: iterate over a copy of its keys
    // oxlint-disable-next-line unicorn/no-useless-spread
    for (const id of [...this.#pending.keys()]) {
      this.#settle(id)?.reject(
        new ModelProcessError(`the model process exited during a generate call (${this.#exit})`),
      );
    }
  }
}
