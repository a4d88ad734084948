/**
 * The peer evaluation (issue 19): the eval's tasks run on node-llama-cpp's own `LlamaChatSession` with function
 * calling instead of our agent loop, judged by the same judges, reported with the same report code, so that
 * scripts/results-table.ts shows the peer beside our runs (model `peer:LlamaChatSession:<gguf file name>`).
 *
 *   npx tsx scripts/peer-eval.ts --model M.gguf --suite evals/basic.json --limit 3 --budgets 2,4 --threads 1
 *   npx tsx scripts/peer-eval.ts --model M.gguf --bfcl evals/bfcl --category simple_python --limit 3 --budgets 2
 *
 * Tasks and `--limit` are the eval command's (the first N tasks; the report's `sampledFrom` says of how many). Each
 * (task, budget) is one run on an emptied sequence and a new session, greedy (temperature 0); how the budget is held and how
 * the skills become session functions: scripts/lib/peer-run.ts and peer-schema.ts. The report goes to `--out DIR`
 * (default out/peer-eval/<model>/<suite>): report.json, report.md, convergence.svg. One line per budget on stdout:
 * success rate, runs, median generated tokens, median wall ms. Progress on stderr. A bad flag, a missing model or
 * suite: one line on stderr, exit 2.
 */
import { existsSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { LlamaContext, LlamaContextSequence, LlamaModel } from "node-llama-cpp";
import { bfclTasks } from "../src/eval/bfcl/bfcl-tasks.js";
import { loadBfclCategory } from "../src/eval/bfcl/bfcl-files.js";
import { DEFAULT_BFCL_BUDGETS, DEFAULT_EVAL_BUDGETS, FIRST_SEED } from "../src/eval/defaults.js";
import { EvalSetupError } from "../src/eval/errors.js";
import { buildReport, writeReport } from "../src/eval/report/build-report.js";
import type { BfclSection, EvalReport } from "../src/eval/report/eval-report.js";
import type { EvalTask } from "../src/eval/runner/eval-task.js";
import type { RunRecord } from "../src/eval/runner/run-record.js";
import { loadSuite } from "../src/eval/suite/load-suite.js";
import { suiteTasks } from "../src/eval/suite/suite-tasks.js";
import { getLlamaRuntime } from "../src/model/llama/llama-runtime.js";
import { parsePeerArgs, PEER_USAGE, PeerUsageError, type PeerOptions } from "./lib/peer-options.js";
import { runPeerTask } from "./lib/peer-run.js";

function fail(message: string): never {
  process.stderr.write(`peer-eval: ${message}\n`);
  process.exit(2);
}

function log(message: string): void {
  process.stderr.write(`[peer] ${message}\n`);
}

/** The tasks to run, as the eval command picks them, and what the report says about where they came from. */
interface LoadedTasks {
  kind: EvalReport["kind"];
  title: string;
  /** For the default output folder. */
  shortName: string;
  source: string;
  all: EvalTask[];
  bfcl?: BfclSection;
}

function loadTasks(options: PeerOptions): LoadedTasks {
  const { source } = options;
  if (source.kind === "suite") {
    const suite = loadSuite(source.path);
    return {
      kind: "suite",
      title: suite.name,
      shortName: suite.name,
      source: resolve(source.path),
      all: suiteTasks(suite),
    };
  }
  const loaded = loadBfclCategory(source.dir, source.category);
  const { checkKind, tasks, inconsistencies, unconvertible } = bfclTasks(loaded);
  return {
    kind: "bfcl",
    title: `BFCL ${loaded.name}`,
    shortName: `bfcl-${loaded.name}`,
    source: resolve(loaded.questionsPath),
    all: tasks,
    bfcl: {
      category: loaded.name,
      checkKind,
      questions: loaded.questions.length,
      scored: tasks.length,
      inconsistencies,
      unconvertible,
    },
  };
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** One line per budget: success rate, runs, median generated tokens, median wall ms. */
function summaryLines(runs: readonly RunRecord[], budgets: readonly number[]): string[] {
  return budgets.map((budget) => {
    const of = runs.filter((r) => r.budget === budget);
    const ok = of.filter((r) => r.success).length;
    const rate = of.length ? ((ok / of.length) * 100).toFixed(0) : "–";
    const tokens = median(of.flatMap((r) => (r.generatedTokens === null ? [] : [r.generatedTokens])));
    const wall = median(of.map((r) => r.wallMs));
    return `budget ${budget}: success ${rate}% (${ok}/${of.length} runs), median generated tokens ${tokens === undefined ? "–" : tokens.toFixed(0)}, median wall ${wall === undefined ? "–" : wall.toFixed(0)} ms`;
  });
}

async function main(): Promise<void> {
  let options: PeerOptions;
  try {
    const parsed = parsePeerArgs(process.argv.slice(2));
    if (parsed.help) {
      process.stdout.write(`${PEER_USAGE}\n`);
      return;
    }
    options = parsed.options;
  } catch (error) {
    if (error instanceof PeerUsageError) fail(`${error.message} (--help for the flags)`);
    throw error;
  }
  if (!existsSync(options.model) || !statSync(options.model).isFile()) fail(`no model file ${options.model}`);

  let loaded: LoadedTasks;
  try {
    loaded = loadTasks(options);
  } catch (error) {
    if (error instanceof EvalSetupError) fail(error.message);
    throw error;
  }
  const sample = options.limit === undefined ? loaded.all : loaded.all.slice(0, options.limit);
  if (sample.length === 0) fail(`${loaded.source} has no task to run`);
  const budgets = options.budgets ?? [...(loaded.kind === "bfcl" ? DEFAULT_BFCL_BUDGETS : DEFAULT_EVAL_BUDGETS)];
  const modelName = `peer:LlamaChatSession:${basename(options.model)}`;
  const seed = FIRST_SEED;

  const { llama } = await getLlamaRuntime(false);
  let model: LlamaModel;
  let context: LlamaContext;
  let sequence: LlamaContextSequence;
  try {
    model = await llama.loadModel({ modelPath: resolve(options.model), gpuLayers: 0 });
    context = await model.createContext({ contextSize: options.contextSize, threads: options.threads, sequences: 1 });
    sequence = context.getSequence();
  } catch (error) {
    fail(`cannot load ${options.model}: ${(error as Error).message.split("\n")[0]}`);
  }
  log(
    `${modelName}: ${sample.length} task(s) of ${loaded.all.length} (${loaded.title}), budgets ${budgets.join(",")}, threads ${options.threads}, context ${context.contextSize}`,
  );

  const startedAt = new Date();
  const started = performance.now();
  const runs: RunRecord[] = [];
  const dropped = new Set<string>();
  let described = false;
  let interrupted = false;
  const stop = () => (interrupted = true);
  process.once("SIGINT", stop);
  for (const budget of budgets) {
    for (const task of sample) {
      if (interrupted) break;
      const run = await runPeerTask(task, budget, seed, { sequence, modelName, maxTokensPerCall: options.maxTokens });
      if (!described) {
        log(
          `chat wrapper ${run.chatWrapper}; parallel function calls ${run.parallelFunctionCalls ? "supported" : "not supported"}`,
        );
        described = true;
      }
      run.droppedKeywords.forEach((k) => dropped.add(k));
      runs.push(run.record);
      const r = run.record;
      const calls = run.calls.map((c) => `${c.skillName}(${JSON.stringify(c.arguments)})`).join(" ");
      log(
        `budget ${budget} ${task.id}: ${r.success ? "ok" : "FAIL"} (${r.stopReason}, ${r.iterations} model call(s), ${r.generatedTokens} tokens, ${Math.round(r.wallMs)} ms)${calls ? ` ${clip(calls, 160)}` : ""}${r.success ? "" : ` | ${r.failures[0] ?? ""}`}`,
      );
    }
  }
  process.removeListener("SIGINT", stop);
  if (dropped.size > 0)
    log(
      `JSON Schema keywords node-llama-cpp cannot carry, left to the handler's zod check: ${[...dropped].join(", ")}`,
    );

  const report = buildReport({
    kind: loaded.kind,
    title: loaded.title,
    source: loaded.source,
    models: [modelName],
    budgets,
    seeds: [seed],
    tasks: sample.length,
    ...(sample.length < loaded.all.length && { sampledFrom: loaded.all.length }),
    // Our action grammar is not used: the session constrains only the function calls' parameters.
    grammar: false,
    runs,
    interrupted,
    ...(loaded.bfcl && { bfcl: loaded.bfcl }),
    startedAt,
    wallMs: performance.now() - started,
  });
  const out =
    options.out ?? join("out", "peer-eval", basename(options.model).replace(/\.gguf$/i, ""), loaded.shortName);
  const paths = writeReport(report, out);
  await context.dispose();
  await model.dispose();
  for (const line of summaryLines(runs, budgets)) process.stdout.write(`${line}\n`);
  log(`report: ${paths.json}`);
}

main().catch((error) => {
  process.stderr.write(`peer-eval: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exit(1);
});
