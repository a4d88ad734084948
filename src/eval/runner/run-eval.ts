import type { TrajectoryAction } from "../models/trajectory-model.js";
import { withoutUndefined } from "../../without-undefined.js";
import { setMaxListeners } from "node:events";
import { Agent, type LoopSettings } from "../../agent/agent.js";
import { DEFAULT_FINAL_ROUND_WITHOUT_TOOLS } from "../../defaults.js";
import { emptyRunStats, type AgentState } from "../../agent/agent-state.js";
import type { RunStats } from "../../agent/events.js";
import type { ModelHandle } from "../../model/model-handle.js";
import { describeThrown } from "../../safe-stringify.js";
import { PrefixReplayModel, RecordingModel } from "./budget-prefix.js";
import { collectCalls } from "./collect-calls.js";
import type { EvalTask } from "./eval-task.js";
import type { ModelProvider } from "./model-providers.js";
import { promisePool } from "../../promise-pool.js";
import type { RunCounters, RunRecord } from "./run-record.js";

/** Progress of an eval, after each run. */
export interface EvalProgress {
  done: number;
  total: number;
  model: string;
}

/** Options of {@link runEval}. */
export interface RunEvalOptions {
  tasks: readonly EvalTask[];
  providers: readonly ModelProvider[];
  /** Iteration budgets, each >= 1. */
  budgets: readonly number[];
  /** Seed values (not a count). */
  seeds: readonly number[];
  /** Aborting stops starting runs; finished runs are returned and `interrupted` is set. */
  signal?: AbortSignal;
  onProgress?: (progress: EvalProgress) => void;
  /** Constrain replies with the action grammar. Default true (the agent's default). */
  grammar?: boolean;
  /** How the loop runs (final round, thought, prompt style, context fitting). Default: the agent's defaults. */
  loop?: LoopSettings;
  /** Told each record as its run finishes (a sweep's results file); runs that were interrupted are not told. */
  onRecord?: (record: RunRecord) => void;
  /**
   * Records of an earlier, interrupted sweep (`--resume`): their runs are not made again and they are returned with
   * the new ones. Matched by model, task, budget and seed.
   */
  done?: readonly RunRecord[];
  /**
   * Told each finished run's record with its events as JSON Lines (`eval --traces`); runs that were interrupted are
   * not told. A run made again (see runBudgetPrefixes) is told again, and the later one is the one its record is.
   */
  onTrace?: (record: RunRecord, jsonl: string) => void;
}

/** The key a record is matched by when a sweep resumes: model, budget, seed and task. */
export function recordKey(record: Pick<RunRecord, "model" | "budget" | "seed" | "taskId">): string {
  return `${record.model}\u0000${record.budget}\u0000${record.seed}\u0000${record.taskId}`;
}

/** The records of an eval, in a fixed order: model, budget, seed, then task order. */
export interface EvalRuns {
  records: RunRecord[];
  interrupted: boolean;
}

/** A record for a run that could not be made (the model could not be had, the run threw): no counts, no tokens. */
/** The skill calls a trajectory makes (a `calls` step's each). */
function trajectoryCalls(trajectory: readonly TrajectoryAction[]): number {
  return trajectory.reduce(
    (n, action) => n + (action.type === "call" ? 1 : action.type === "calls" ? action.calls.length : 0),
    0,
  );
}

function harnessError(
  base: Pick<
    RunRecord,
    "model" | "taskId" | "category" | "budget" | "seed" | "workflow" | "baselineOf" | "expectedCalls"
  >,
  message: string,
  wallMs: number,
): RunRecord {
  return {
    ...base,
    success: false,
    failures: [message],
    stopReason: "harness_error",
    ...recordCounters(emptyRunStats(), { iterations: 0, skillCalls: 0, tokens: false }),
    wallMs,
  };
}

/**
 * The counters of a record from the run's stats: `iterations` and `skillCalls` (the calls collected from its events)
 * as given, validation errors by type sorted, token counts only when the model reports them (`tokens`), else null.
 */
function recordCounters(
  stats: RunStats,
  run: { iterations: number; skillCalls: number; tokens: boolean },
): Pick<RunRecord, keyof RunCounters | "iterations" | "promptTokens" | "evaluatedPromptTokens" | "generatedTokens"> {
  const { tokens } = run;
  return {
    iterations: run.iterations,
    skillCalls: run.skillCalls,
    validationErrors: stats.validationErrors,
    validationErrorsByType: sortedCounts(stats.validationErrorsByType),
    toolErrors: stats.toolErrors,
    emptyAnswers: stats.emptyAnswers,
    repeatedCalls: stats.repeatedCalls,
    promptTokens: tokens ? stats.promptTokens : null,
    evaluatedPromptTokens: tokens ? stats.evaluatedPromptTokens : null,
    generatedTokens: tokens ? stats.generatedTokens : null,
  };
}

/** Sorted copy of a count record, so two reports of the same runs serialize identically. */
function sortedCounts(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

/** What one run needs besides the task: the model, how the record is named, and the run's settings. */
interface RunSetup {
  provider: ModelProvider;
  budget: number;
  seed: number;
  grammar: boolean;
  loop?: LoopSettings;
  signal?: AbortSignal;
  /** Wraps the acquired model (recording, for budget-prefix runs). */
  wrap?: (model: ModelHandle) => ModelHandle;
  /** Told the record and events of each run that ended (not interrupted). */
  trace?: RunEvalOptions["onTrace"];
}

/** The task on a fresh Agent with `model`: the loop, or the task's workflow in its place. */
function runOnAgent(task: EvalTask, model: ModelHandle, setup: RunSetup): Promise<AgentState> {
  const { budget, signal } = setup;
  const agent = new Agent({
    ...setup.loop,
    model,
    registry: task.registry,
    grammar: setup.grammar,
    ...(task.parallelCalls && { parallelCalls: true }),
  });
  const runOptions = { maxIterations: Math.min(budget, task.maxIterations ?? budget), signal };
  return task.workflow ? agent.run(task.workflow.run, task.query, runOptions) : agent.run(task.query, runOptions);
}

/**
 * One run: a fresh Agent on the task's skills with the provider's model and `min(budget, task.maxIterations)`
 * iterations, judged by the task, with the run's state and model when it ran. Never throws: a model that cannot be
 * had or a run that throws is a failed record.
 */
async function runTaskWithState(
  task: EvalTask,
  setup: RunSetup,
): Promise<{ record: RunRecord; state?: AgentState; model?: ModelHandle }> {
  const { provider, budget, seed } = setup;
  const started = performance.now();
  const base = {
    model: provider.name,
    taskId: task.id,
    ...(task.category && { category: task.category }),
    budget,
    seed,
    workflow: task.workflow?.name,
    baselineOf: task.baselineOf,
    ...(task.trajectory && { expectedCalls: trajectoryCalls(task.trajectory) }),
  };
  let model: ModelHandle;
  let state: AgentState;
  let acquired: ModelHandle | undefined;
  try {
    acquired = await provider.acquire(task, seed);
    model = setup.wrap ? setup.wrap(acquired) : acquired;
    state = await runOnAgent(task, model, setup);
  } catch (error) {
    return { record: harnessError(base, `harness error: ${describeThrown(error)}`, performance.now() - started) };
  } finally {
    if (acquired) provider.release?.(acquired);
  }
  const wallMs = performance.now() - started;
  const infrastructure = acquired && provider.infrastructureFailure?.(acquired);
  if (infrastructure) return { record: harnessError(base, `harness error: ${infrastructure}`, wallMs) };
  const calls = collectCalls(state.stream);
  const verdict = task.judge({ answer: state.answer, calls, state });
  const failures = [...verdict.failures];
  for (const event of state.stream.ofType("model-error")) failures.push(`model error: ${event.message}`);
  failures.push(...(provider.review?.(model) ?? []));
  const stats = state.stats;
  const tokens = model.stats !== undefined || state.stats.promptTokens > 0;
  const record: RunRecord = {
    ...base,
    success: verdict.success && failures.length === verdict.failures.length,
    failures,
    ...(verdict.errorType && { errorType: verdict.errorType }),
    stopReason: state.stopReason ?? "harness_error",
    ...recordCounters(stats, { iterations: state.iterations, skillCalls: calls.length, tokens }),
    answer: state.answer,
    finalRounds: stats.finalRounds,
    contextTrims: stats.contextTrims,
    wallMs,
  };
  if (setup.trace && record.stopReason !== "aborted" && !setup.signal?.aborted)
    setup.trace(record, state.stream.toJSONL());
  return { record, state, model };
}

/**
 * Every budget of one (task, seed) for a deterministic provider: one real run under the largest budget, recorded,
 * then each smaller budget played back from it through the loop (see budget-prefix.ts; with the final round on, the
 * last call of a smaller budget is made for real). A playback that diverges (it should not) is run for real instead.
 * Records come back in budget order.
 */
async function runBudgetPrefixes(
  task: EvalTask,
  setup: Omit<RunSetup, "budget" | "wrap">,
  budgets: readonly number[],
): Promise<RunRecord[]> {
  const largest = Math.max(...budgets);
  let recording: RecordingModel | undefined;
  const full = await runTaskWithState(task, {
    ...setup,
    budget: largest,
    wrap: (m) => (recording = new RecordingModel(m)),
  });
  const records = new Map<number, RunRecord>([[largest, full.record]]);
  for (const budget of budgets) {
    if (budget === largest) continue;
    if (!full.state || !recording || setup.signal?.aborted) {
      records.set(budget, (await runTaskWithState(task, { ...setup, budget })).record);
      continue;
    }
    // a workflow has no final round: its smaller budgets are pure prefixes of the largest
    const finalRound = !task.workflow && (setup.loop?.finalRoundWithoutTools ?? DEFAULT_FINAL_ROUND_WITHOUT_TOOLS);
    const replay = new PrefixReplayModel(full.state.stream.toArray(), recording, {
      ...(finalRound && { liveFrom: budget }),
    });
    const replayProvider: ModelProvider = {
      name: setup.provider.name,
      concurrency: 1,
      acquire: async () => replay,
      dispose: async () => {},
    };
    const derived = await runTaskWithState(task, { ...setup, provider: replayProvider, budget });
    const diverged = derived.state?.stream.ofType("model-error").some((e) => /replay/.test(e.message)) ?? true;
    records.set(
      budget,
      diverged
        ? (await runTaskWithState(task, { ...setup, budget })).record
        : { ...derived.record, wallMs: replay.elapsedMs, derivedFrom: largest },
    );
  }
  return budgets.map((b) => records.get(b)!);
}

/**
 * Run every task under every provider × budget × seed. Providers run one after another (one real model in memory
 * at a time); within a provider, runs overlap up to its concurrency. Each provider is prepared first (a model
 * that cannot load stops the eval with its setup error) and disposed at the end.
 */
export async function runEval(options: RunEvalOptions): Promise<EvalRuns> {
  const { tasks, providers, budgets, seeds } = options;
  // Every run in flight listens on the signal: a signal of our own, following the caller's, takes them all without
  // Node's "possible memory leak" warning, and leaves the caller's signal untouched.
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const follow = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) follow();
  else options.signal?.addEventListener("abort", follow, { once: true });
  const signal = controller.signal;
  try {
    return await runAll(options, jobsOf(tasks, budgets, seeds), providers, signal);
  } finally {
    options.signal?.removeEventListener("abort", follow);
  }
}

function jobsOf(tasks: readonly EvalTask[], budgets: readonly number[], seeds: readonly number[]) {
  return budgets.flatMap((budget) => seeds.flatMap((seed) => tasks.map((task) => ({ task, budget, seed }))));
}

/** One provider's part of an eval: what its runs share, and where they report progress. */
interface ProviderRuns {
  options: RunEvalOptions;
  jobs: ReturnType<typeof jobsOf>;
  setup: (seed: number) => Omit<RunSetup, "budget" | "wrap">;
  progress: (count: number) => void;
  signal: AbortSignal;
  /** The records of an earlier sweep, by {@link recordKey}: their runs are not made again. */
  done: ReadonlyMap<string, RunRecord>;
  /** A run finished: keep its record (and tell `onRecord`, unless the run was interrupted). */
  finish: (record: RunRecord) => void;
  /** Every record of this provider, earlier and new, in the job order (budget, seed, task). */
  collect: () => RunRecord[];
}

/**
 * A deterministic provider's records: one real run per (seed, task) under the largest budget, the smaller budgets
 * played back from it; returned in the job order (budget, seed, task).
 */
async function runByPrefixes(provider: ModelProvider, runs: ProviderRuns): Promise<RunRecord[]> {
  const { options, setup, progress, signal, done } = runs;
  const key = (budget: number, seed: number, taskId: string) =>
    recordKey({ model: provider.name, budget, seed, taskId });
  const finished = (task: EvalTask, seed: number) => options.budgets.every((b) => done.has(key(b, seed, task.id)));
  const pairs = options.seeds.flatMap((seed) => options.tasks.map((task) => ({ task, seed })));
  const open = pairs.filter(({ task, seed }) => !finished(task, seed));
  progress((pairs.length - open.length) * options.budgets.length);
  await promisePool(
    open,
    provider.concurrency,
    async ({ task, seed }) => {
      const byBudget = await runBudgetPrefixes(task, setup(seed), options.budgets);
      for (const record of byBudget) if (!done.has(recordKey(record))) runs.finish(record);
      progress(byBudget.length);
    },
    signal,
  );
  return runs.collect();
}

/** A provider's records, one real run per job, in the job order. */
async function runEachJob(provider: ModelProvider, runs: ProviderRuns): Promise<RunRecord[]> {
  const { jobs, setup, progress, signal, done } = runs;
  const open = jobs.filter((job) => !done.has(recordKey({ model: provider.name, taskId: job.task.id, ...job })));
  progress(jobs.length - open.length);
  await promisePool(
    open,
    provider.concurrency,
    async ({ task, budget, seed }) => {
      runs.finish((await runTaskWithState(task, { ...setup(seed), budget })).record);
      progress(1);
    },
    signal,
  );
  return runs.collect();
}

async function runAll(
  options: RunEvalOptions,
  jobs: ReturnType<typeof jobsOf>,
  providers: readonly ModelProvider[],
  signal: AbortSignal,
): Promise<EvalRuns> {
  const total = jobs.length * providers.length;
  const records: RunRecord[] = [];
  let done = 0;
  const earlier = new Map((options.done ?? []).map((r) => [recordKey(r), r]));
  const grammar = options.grammar ?? true;
  for (const provider of providers) {
    if (signal.aborted) break;
    await provider.prepare?.();
    try {
      const found = new Map<string, RunRecord>();
      const runs: ProviderRuns = {
        options,
        jobs,
        signal,
        done: earlier,
        finish: (record) => {
          found.set(recordKey(record), record);
          if (record.stopReason !== "aborted" && !signal.aborted) options.onRecord?.(record);
        },
        collect: () =>
          jobs.flatMap((job) => {
            const key = recordKey({ model: provider.name, taskId: job.task.id, ...job });
            return found.get(key) ?? earlier.get(key) ?? [];
          }),
        setup: (seed) => ({
          provider,
          seed,
          grammar,
          signal,
          ...withoutUndefined({ loop: options.loop, trace: options.onTrace }),
        }),
        progress: (count) => options.onProgress?.({ done: (done += count), total, model: provider.name }),
      };
      const deterministic = provider.deterministic && options.budgets.length > 1;
      for (const record of await (deterministic ? runByPrefixes(provider, runs) : runEachJob(provider, runs)))
        records.push(record);
    } finally {
      await provider.dispose();
    }
  }
  const interrupted = signal.aborted;
  // Runs interrupted mid-way end as "aborted": they measure nothing and are dropped.
  return { records: interrupted ? records.filter((r) => r.stopReason !== "aborted") : records, interrupted };
}
