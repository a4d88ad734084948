import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "../../agent/events.js";
import type { ModelHandle } from "../../model/model-handle.js";
import { EvalSetupError } from "../errors.js";
import { ChildProcessModel, type ChildProcessModelOptions } from "../models/child-process-model.js";
import { FAILURE_PROFILES, type FailureRates } from "../models/failure-profiles.js";
import { HeuristicModel } from "../models/heuristic-model.js";
import type { ModelSpec } from "../models/model-spec.js";
import { readTrace, ReplayModel } from "../models/replay-model.js";
import { TrajectoryModel } from "../models/trajectory-model.js";
import { hashSeed, seededRandom } from "../../random.js";
import { GGUF_CONCURRENCY, MAX_TRACE_FILE_BYTES, SCRIPTED_CONCURRENCY, SERVER_CONCURRENCY } from "../defaults.js";
import { checkRegularFile, RegularFileError } from "../../regular-file.js";
import type { EvalTask } from "./eval-task.js";
import type { ServerThroughput } from "../report/eval-report.js";
import type { ServerModelRef } from "../../model/http/index.js";
import { ServerLease } from "../models/server-lease.js";
import { ServerPool, type PoolHandleOptions, type ServerProviderOptions } from "../models/server-pool.js";

/** A model source for the runner: a fresh or shared model per run, and how many runs may overlap. */
export interface ModelProvider {
  /** How the model is named in reports. */
  readonly name: string;
  /** Runs in flight at once: many for scripted models, one for a real model. */
  readonly concurrency: number;
  /**
   * The same prompt always gets the same reply (a GGUF at temperature 0): the runner then makes one run per task and
   * seed under the largest budget and plays the smaller budgets back from it (see budget-prefix.ts).
   */
  readonly deterministic?: boolean;
  /** Set up before the first run; a failure here is a setup error (the eval does not start). */
  prepare?(): Promise<void>;
  /** The model for one run of `task` with `seed`. Throwing fails that run only. */
  acquire(task: EvalTask, seed: number): Promise<ModelHandle>;
  /** Failures the provider sees after a run (a replay whose recording went on longer). */
  review?(model: ModelHandle): string[];
  /** The run on `model` is over (a server pool gives the server to the next run). */
  release?(model: ModelHandle): void;
  /**
   * Why the run could not be made for reasons outside the model (every server it could use went down): the record
   * is then a harness error, not a finished run (a resumed sweep runs it again).
   */
  infrastructureFailure?(model: ModelHandle): string | undefined;
  /** Model servers: each one's share of the runs, for the report. */
  serverReport?(): ServerThroughput[];
  dispose(): Promise<void>;
}

/** Options for the providers that need them. */
export interface ProviderOptions {
  /** How the GGUF child process loads its model (factory module and options). */
  gguf?: Omit<ChildProcessModelOptions, "factoryOptions"> & { loadOptions?: Record<string, unknown> };
  /** How models on servers (`http://host:port/v1#name`) are used: per-server concurrency, the handles' options. */
  server?: ServerProviderOptions;
}

function trajectoryProvider(name: string, rates: FailureRates = FAILURE_PROFILES.perfect): ModelProvider {
  return {
    name,
    concurrency: SCRIPTED_CONCURRENCY,
    async acquire(task, seed) {
      if (!task.trajectory) throw new Error(`task ${task.id} has no trajectory for ${name} to follow`);
      return new TrajectoryModel(task.trajectory, {
        rates,
        random: seededRandom(hashSeed(seed, name, task.id)),
        skillNames: task.registry.names(),
        name,
      });
    },
    async dispose() {},
  };
}

/**
 * The traces a replay folder holds for `taskIds`, checked before the sweep starts: a `<task-id>.jsonl` there that is
 * a FIFO, a device or a folder, or is over MAX_TRACE_FILE_BYTES, is an `EvalSetupError("trace_invalid")` naming it
 * (a missing one fails its task's runs only: a folder may hold the traces of some tasks). Nothing is read here; each
 * trace is read, through the same bounded reader, when its run starts. A `path` that is not a folder is left alone.
 */
export function checkReplayFolder(path: string, taskIds: Iterable<string>): void {
  if (!statSync(path, { throwIfNoEntry: false })?.isDirectory()) return;
  for (const id of taskIds) {
    try {
      checkRegularFile(join(path, `${id}.jsonl`), MAX_TRACE_FILE_BYTES, "a trace file");
    } catch (error) {
      if (error instanceof RegularFileError && error.code === "not_found") continue;
      throw new EvalSetupError("trace_invalid", `trace ${(error as Error).message}`, { cause: error });
    }
  }
}

function replayProvider(name: string, path: string): ModelProvider {
  if (!existsSync(path)) throw new EvalSetupError("trace_invalid", `no trace file or directory ${path}`);
  const perTask = statSync(path).isDirectory();
  const shared: AgentEvent[] | undefined = perTask ? undefined : readTrace(path);
  return {
    name,
    concurrency: SCRIPTED_CONCURRENCY,
    async acquire(task) {
      const file = join(path, `${task.id}.jsonl`);
      if (perTask && !existsSync(file)) throw new Error(`replay: no trace ${file} for task ${task.id}`);
      return new ReplayModel(shared ?? readTrace(file), { name });
    },
    review(model) {
      const unused = (model as ReplayModel).unusedSteps;
      return unused > 0 ? [`replay: the run ended with ${unused} recorded model call(s) not replayed`] : [];
    },
    async dispose() {},
  };
}

function ggufProvider(name: string, model: string, options: ProviderOptions["gguf"] = {}): ModelProvider {
  let current: ChildProcessModel | undefined;
  const start = async () => {
    const { loadOptions, ...processOptions } = options;
    current = await ChildProcessModel.start({ ...processOptions, factoryOptions: { ...loadOptions, model } });
    return current;
  };
  const temperature = options.loadOptions?.temperature;
  // `--parallel N` loads the model with N context sequences: N runs at once, their decode steps batched
  const sequences = Number(options.loadOptions?.sequences ?? GGUF_CONCURRENCY);
  return {
    name,
    concurrency: sequences,
    deterministic: temperature === undefined || temperature === 0,
    async prepare() {
      await start();
    },
    async acquire() {
      // After a native crash the process is gone: the next task gets a fresh one.
      return current?.alive ? current : start();
    },
    async dispose() {
      await current?.dispose();
    },
  };
}

/**
 * A model served by one or more servers (`--model http://a/v1#m --model http://b/v1#m`): runs are spread over them,
 * least busy first, each server with its own concurrency limit; a server that fails mid-sweep is taken out and the
 * runs in flight on it move to the others (see ServerPool, ServerLease). At temperature 0 it is deterministic: the
 * runner plays smaller budgets back from the largest one's run.
 */
function serverProvider(
  name: string,
  refs: readonly ServerModelRef[],
  options: ServerProviderOptions = {},
): ModelProvider {
  const concurrency = options.concurrency ?? SERVER_CONCURRENCY;
  const handle: PoolHandleOptions = { maxConcurrency: concurrency, ...options.handle };
  const pool = new ServerPool(refs, concurrency, handle);
  const temperature = handle.temperature;
  return {
    name,
    concurrency: concurrency * refs.length,
    deterministic: temperature === undefined || temperature === 0,
    async prepare() {
      await pool.connect();
    },
    async acquire() {
      return new ServerLease(pool, await pool.take());
    },
    release(model: ModelHandle) {
      if (model instanceof ServerLease) model.release();
    },
    infrastructureFailure(model: ModelHandle) {
      return model instanceof ServerLease ? model.serverFailure : undefined;
    },
    serverReport: () => pool.report(name),
    async dispose() {},
  };
}

/** The provider for a parsed `--model`. Replay files are read here, so a bad trace is a setup error. */
export function createModelProvider(spec: ModelSpec, options: ProviderOptions = {}): ModelProvider {
  switch (spec.kind) {
    case "oracle":
      return trajectoryProvider(spec.name);
    case "profile":
      return trajectoryProvider(spec.name, spec.rates);
    case "heuristic":
      return {
        name: spec.name,
        concurrency: SCRIPTED_CONCURRENCY,
        async acquire(task) {
          return new HeuristicModel({
            query: task.query,
            skillNames: task.registry.names(),
            lookups: task.lookups ?? [],
          });
        },
        async dispose() {},
      };
    case "replay":
      return replayProvider(spec.name, spec.path);
    case "gguf":
      return ggufProvider(spec.name, spec.model, options.gguf);
    case "server":
      return serverProvider(spec.name, spec.servers, options.server);
  }
}
