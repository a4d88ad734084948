import { accessSync, constants, mkdirSync, statSync, type Stats } from "node:fs";
import type { LoopSettings } from "../agent/agent.js";
import { dirname, resolve } from "node:path";
import { bfclTasks } from "./bfcl/bfcl-tasks.js";
import { loadBfclCategory } from "./bfcl/bfcl-files.js";
import { DEFAULT_BFCL_BUDGETS, DEFAULT_EVAL_BUDGETS, DEFAULT_EVAL_SEEDS, FIRST_SEED } from "./defaults.js";
import { EvalSetupError } from "./errors.js";
import { mergeServerSpecs, parseModelSpec, type ModelSpec } from "./models/model-spec.js";
import { openResultsFile, type ResultsFile } from "./runner/results-file.js";
import { buildReport } from "./report/build-report.js";
import type { EvalReport } from "./report/eval-report.js";
import type { EvalTask } from "./runner/eval-task.js";
import {
  checkReplayFolder,
  createModelProvider,
  type ModelProvider,
  type ProviderOptions,
} from "./runner/model-providers.js";
import { runEval, type EvalProgress, type RunEvalOptions } from "./runner/run-eval.js";
import { loadSuite } from "./suite/load-suite.js";
import type { Suite } from "./suite/suite-schema.js";
import { suiteTasks } from "./suite/suite-tasks.js";
import { loadSuiteWorkflows } from "./suite/suite-workflows.js";
import { withLoopBaselines } from "./runner/loop-baseline.js";
import { traceWriter } from "./runner/trace-dir.js";
import { withoutUndefined } from "../without-undefined.js";

/** Options shared by suite and BFCL evals. */
export interface EvaluateOptions extends ProviderOptions {
  /** `--model` values, or parsed specs. */
  models: readonly (string | ModelSpec)[];
  /** Default {@link DEFAULT_EVAL_BUDGETS} for suites, {@link DEFAULT_BFCL_BUDGETS} for BFCL. */
  budgets?: readonly number[];
  /** How many seeds (1..N from FIRST_SEED). Default {@link DEFAULT_EVAL_SEEDS}. */
  seeds?: number;
  signal?: AbortSignal;
  onProgress?: (progress: EvalProgress) => void;
  /** Providers to use instead of the ones the specs name (tests; custom models). */
  providers?: readonly ModelProvider[];
  /** Constrain replies with the action grammar. Default true; false measures the model writing JSON on its own. */
  grammar?: boolean;
  /** How the loop runs (final round, thought, prompt style, context fitting); the report records what was given. */
  loop?: LoopSettings;
  /**
   * Run only the first N tasks (in file order): a fixed sample when a whole suite or BFCL category would take hours
   * on a real model. The report records it.
   */
  limit?: number;
  /** Run only the tasks with these ids (`--task`), in suite order; an unknown id is a setup error. */
  taskIds?: readonly string[];
  /**
   * Write each finished run to this JSON Lines file as it finishes; with `resume`, continue the interrupted sweep
   * whose file it is (its finished runs are kept, not run again). See results-file.ts.
   */
  results?: { path: string; resume?: boolean };
  /**
   * Also run the loop on every task that names a workflow (as `<id>@loop`), and compare the two in the report
   * (`workflowComparison`: success rate, steps, tokens and time). Default false.
   */
  compareLoop?: boolean;
  /**
   * Write each run's events to this folder, one JSON Lines file per run: `<model>/b<budget>-s<seed>/<task-id>.jsonl`
   * (see trace-dir.ts). A folder of them replays with `replay:<folder>`.
   */
  traces?: string;
}

/**
 * The `traces` folder must be a folder we can write, or not exist yet (it is made now): checked before any model
 * loads, so that a bad path does not end the eval after its first run.
 */
function checkTraceDir(dir: string | undefined): void {
  if (dir === undefined) return;
  let found: Stats | undefined;
  try {
    found = statSync(dir, { throwIfNoEntry: false });
    if (!found) mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new EvalSetupError("unsupported", `--traces: cannot write to ${dir}: ${(error as Error).message}`);
  }
  if (found && !found.isDirectory())
    throw new EvalSetupError("unsupported", `--traces: ${dir} is not a folder: give a folder for the run traces`);
}

function checkBudgets(budgets: readonly number[]): number[] {
  if (budgets.length === 0) throw new EvalSetupError("unsupported", "at least one budget is needed");
  for (const b of budgets)
    if (!Number.isInteger(b) || b < 1)
      throw new EvalSetupError("unsupported", `a budget must be a whole number >= 1 (got ${b})`);
  return [...new Set(budgets)].sort((a, b) => a - b);
}

function seedList(count: number | undefined): number[] {
  const n = count ?? DEFAULT_EVAL_SEEDS;
  if (!Number.isInteger(n) || n < 1)
    throw new EvalSetupError("unsupported", `seeds must be a whole number >= 1 (got ${n})`);
  return Array.from({ length: n }, (_, i) => FIRST_SEED + i);
}

/**
 * The providers of `options.models` for `taskCount` chosen tasks; `runTasks` are those the sweep runs (with their
 * loop baselines): a replay folder's traces are checked for them before anything runs.
 */
function providersFor(
  options: EvaluateOptions,
  bfcl: boolean,
  taskCount: number,
  runTasks: readonly EvalTask[],
): ModelProvider[] {
  if (options.providers) return [...options.providers];
  if (options.models.length === 0) throw new EvalSetupError("model_spec", "no model given (--model)");
  const specs = mergeServerSpecs(options.models.map((m) => (typeof m === "string" ? parseModelSpec(m) : m)));
  return specs.map((spec) => {
    if (bfcl && spec.kind === "heuristic")
      throw new EvalSetupError(
        "unsupported",
        "the heuristic planner knows the built-in skills only; it cannot run BFCL (use oracle, profile:<name>, replay:<dir> or a GGUF)",
      );
    if (spec.kind === "replay" && taskCount > 1 && isFile(spec.path)) {
      throw new EvalSetupError(
        "unsupported",
        `replay:${spec.path} is the trace of one run, and this eval has ${taskCount} tasks: pick its task with --task ID, or replay a directory of <task-id>.jsonl traces`,
      );
    }
    if (spec.kind === "replay")
      checkReplayFolder(
        spec.path,
        runTasks.map((task) => task.id),
      );
    return createModelProvider(spec, options);
  });
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** What {@link evaluate} runs: a suite's or a BFCL category's tasks, and what the report says of them. */
interface EvaluateRun {
  kind: EvalReport["kind"];
  title: string;
  /** The file the tasks come from (or the suite's name for a suite passed in memory). */
  source: string;
  tasks: EvalTask[];
  options: EvaluateOptions;
  /** Already checked and sorted. */
  budgets: number[];
  /** The BFCL part of the report, for a BFCL run. */
  bfcl?: Parameters<typeof buildReport>[0]["bfcl"];
}

async function evaluate(run: EvaluateRun): Promise<EvalReport> {
  const { kind, title, source, tasks, options, budgets } = run;
  checkTraceDir(options.traces);
  const chosen = chooseTasks(tasks, options.taskIds);
  const sample = sampleTasks(chosen, options.limit);
  const runTasks = options.compareLoop ? withLoopBaselines(sample) : sample;
  const providers = providersFor(options, kind === "bfcl", sample.length, runTasks);
  const names = providers.map((p) => p.name);
  if (new Set(names).size !== names.length)
    throw new EvalSetupError("model_spec", `a model is named twice: ${names.join(", ")}`);
  const seeds = seedList(options.seeds);
  const startedAt = new Date();
  const started = performance.now();
  const grammar = options.grammar ?? true;
  const loop = options.loop ?? {};
  const header = { source, models: names, budgets, seeds, tasks: sample.length, grammar };
  const results = options.results && openResultsFile(options.results.path, header, options.results.resume ?? false);
  const { records, interrupted } = await runSweep(results, {
    tasks: runTasks,
    providers,
    budgets,
    seeds,
    grammar,
    loop,
    signal: options.signal,
    onProgress: options.onProgress,
    ...(options.traces !== undefined && { onTrace: traceWriter(options.traces) }),
  });
  return buildReport({
    kind,
    title,
    source,
    models: names,
    budgets,
    seeds,
    tasks: sample.length,
    grammar,
    ...(Object.keys(loop).length > 0 && { loop }),
    ...(sample.length < chosen.length && { sampledFrom: chosen.length }),
    runs: records,
    interrupted,
    ...withoutUndefined({ bfcl: run.bfcl }),
    servers: providers.flatMap((p) => p.serverReport?.() ?? []),
    resumedRuns: results?.earlier.length ?? 0,
    startedAt,
    wallMs: performance.now() - started,
  });
}

/** runEval, each finished run appended to the results file (and its earlier runs not made again) when there is one. */
async function runSweep(results: ResultsFile | undefined, options: RunEvalOptions) {
  if (!results) return runEval(options);
  try {
    return await runEval({ ...options, done: results.earlier, onRecord: (record) => results.append(record) });
  } finally {
    results.close();
  }
}

/** The tasks named by `ids`, in suite order (all when no ids); an unknown id is a setup error naming some known ones. */
function chooseTasks(tasks: EvalTask[], ids: readonly string[] | undefined): EvalTask[] {
  if (ids === undefined || ids.length === 0) return tasks;
  const known = new Set(tasks.map((t) => t.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    const shown = tasks
      .slice(0, 8)
      .map((t) => t.id)
      .join(", ");
    throw new EvalSetupError(
      "unsupported",
      `no task ${unknown.map((id) => `"${id}"`).join(", ")} here (the ${tasks.length} tasks include ${shown}${tasks.length > 8 ? ", ..." : ""})`,
    );
  }
  const wanted = new Set(ids);
  return tasks.filter((t) => wanted.has(t.id));
}

/** The first `limit` tasks (all when no limit). */
function sampleTasks(tasks: EvalTask[], limit: number | undefined): EvalTask[] {
  if (limit === undefined) return tasks;
  if (!Number.isInteger(limit) || limit < 1)
    throw new EvalSetupError("unsupported", `limit must be a whole number >= 1 (got ${limit})`);
  return tasks.slice(0, limit);
}

/** Run a suite (a path, or a suite already loaded) under each model × budget × seed and build the report. */
export async function evaluateSuite(suite: string | Suite, options: EvaluateOptions): Promise<EvalReport> {
  const loaded = typeof suite === "string" ? loadSuite(suite) : suite;
  const budgets = checkBudgets(options.budgets ?? DEFAULT_EVAL_BUDGETS);
  const source = typeof suite === "string" ? resolve(suite) : loaded.name;
  // a suite's workflow paths are relative to its file (to the working folder for a suite given in memory)
  const workflows = await loadSuiteWorkflows(
    loaded,
    typeof suite === "string" ? dirname(source) : process.cwd(),
    source,
  );
  return evaluate({
    kind: "suite",
    title: loaded.name,
    source,
    tasks: suiteTasks(loaded, workflows),
    options,
    budgets,
  });
}

/** Options of {@link evaluateBfcl}. */
export interface EvaluateBfclOptions extends EvaluateOptions {
  /** Allow `{"calls": [...]}`. Default: on for categories whose name says parallel. */
  parallelCalls?: boolean;
}

/**
 * Run a BFCL category (`DIR/BFCL_v4_<category>.json`, ground truth from `DIR/possible_answer/`) as agent tasks and
 * score the calls with BFCL's rule. Dataset inconsistencies and unconvertible questions are listed, not scored.
 */
export async function evaluateBfcl(dir: string, category: string, options: EvaluateBfclOptions): Promise<EvalReport> {
  const loaded = loadBfclCategory(dir, category);
  const { checkKind, tasks, inconsistencies, unconvertible } = bfclTasks(
    loaded,
    withoutUndefined({ parallelCalls: options.parallelCalls }),
  );
  return evaluate({
    kind: "bfcl",
    title: `BFCL ${loaded.name}`,
    source: resolve(loaded.questionsPath),
    tasks,
    options,
    budgets: checkBudgets(options.budgets ?? DEFAULT_BFCL_BUDGETS),
    bfcl: {
      category: loaded.name,
      checkKind,
      questions: loaded.questions.length,
      scored: tasks.length,
      inconsistencies,
      unconvertible,
    },
  });
}
