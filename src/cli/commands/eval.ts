import { Command } from "commander";
import { evaluateBfcl, evaluateSuite, type EvaluateOptions } from "../../eval/evaluate.js";
import { failureProfileNames } from "../../eval/models/failure-profiles.js";
import { writeReport } from "../../eval/report/build-report.js";
import type { EvalReport } from "../../eval/report/eval-report.js";
import { progressBar } from "../progress-bar.js";
import { renderSummaryTable } from "../../eval/report/render-summary-table.js";
import { CliUsageError, hint, type CliIO } from "../cli-io.js";
import { modelFlags, modelTuningOptions, type ModelCommandOptions } from "../model-options.js";
import { inSection, SECTION, sectionedHelp } from "../help-sections.js";
import { loopOptions, loopSettings, type LoopCommandOptions } from "../loop-options.js";
import { parseIntegerOption, parseListOption } from "../parse-options.js";
import type { CommandFactory } from "../command.js";
import { withoutUndefined } from "../../without-undefined.js";
import { BUNDLED_BFCL_DIR } from "../../eval/bfcl/bfcl-files.js";
import type { EvalProgress } from "../../eval/runner/run-eval.js";
import { renderServersText } from "../../eval/report/render-servers.js";
import { evalServerOptions, resultsOption, serverSpecs, sweepOptions, type EvalServerFlags } from "../eval-servers.js";
import { isServerUrl } from "../../model/http/index.js";
import { serverGroundingNote } from "../server-model.js";

interface EvalCommandOptions extends LoopCommandOptions, ModelCommandOptions, EvalServerFlags {
  model: string[];
  /** `--parallel N`: runs at once on one loaded GGUF model, each on its own context sequence. */
  parallel?: number;
  budgets?: number[];
  seeds?: number;
  out?: string;
  /** `--traces DIR`: each run's events, one JSON Lines file per run. */
  traces?: string;
  /** `--bfcl [dir]`: the folder, or `true` for the copy the package carries (`evals/bfcl/`). */
  bfcl?: string | true;
  category?: string;
  parallelCalls?: boolean;
  json?: boolean;
  quiet?: boolean;
  limit?: number;
  task?: string[];
  compareLoop?: boolean;
}

/** `--budgets 4,8,12`: whole numbers >= 1. */
function parseBudgets(value: string): number[] {
  const items = parseListOption(value);
  if (items.length === 0) throw new CliUsageError("--budgets: give at least one budget, e.g. 4,8,12,16");
  return items.map((item) => parseIntegerOption(1)(item));
}

/** `--model a --model b` and `--model a,b` both give [a, b] (so do `--task`s). */
function collectList(value: string, previous: string[] = []): string[] {
  return [...previous, ...parseListOption(value)];
}

function checkTarget(suite: string | undefined, options: EvalCommandOptions): void {
  if (suite !== undefined && options.bfcl !== undefined)
    throw new CliUsageError("eval: give a SUITE file or --bfcl DIR, not both");
  if (suite === undefined && options.bfcl === undefined)
    throw new CliUsageError("eval: give a SUITE file, or --bfcl [DIR] --category NAME");
  if (options.bfcl !== undefined && !options.category)
    throw new CliUsageError("eval --bfcl: --category NAME is needed (e.g. simple_python)");
  if (options.bfcl === undefined && options.category !== undefined)
    throw new CliUsageError("eval: --category goes with --bfcl");
  if (options.bfcl === undefined && options.parallelCalls !== undefined)
    throw new CliUsageError("eval: --parallel-calls goes with --bfcl");
  options.model = [...(options.model ?? []), ...serverSpecs(options)];
  if (!options.model?.length)
    throw new CliUsageError(
      "eval: --model is needed (oracle, heuristic, profile:<name>, replay:<trace>, or a GGUF path or alias)",
    );
}

async function runEvalCommand(io: CliIO, suite: string | undefined, options: EvalCommandOptions): Promise<EvalReport> {
  const bar = options.quiet ? undefined : progressBar(io.stderr);
  const note = options.model.some(isServerUrl) ? serverGroundingNote(options.grounding) : undefined;
  if (note) io.stderr.write(note);
  const common: EvaluateOptions = {
    models: options.model,
    signal: io.signal,
    grammar: options.grammar,
    loop: loopSettings(options),
    gguf: { loadOptions: { ...modelFlags(options), ...(options.parallel && { sequences: options.parallel }) } },
    server: evalServerOptions(options, io.env),
    ...withoutUndefined({
      results: resultsOption(options),
      budgets: options.budgets,
      seeds: options.seeds,
      limit: options.limit,
      taskIds: options.task,
      compareLoop: options.compareLoop,
      traces: options.traces,
      onProgress: bar && ((p: EvalProgress) => bar.update(p)),
    }),
  };
  try {
    if (options.bfcl !== undefined)
      return await evaluateBfcl(options.bfcl === true ? BUNDLED_BFCL_DIR : options.bfcl, options.category!, {
        ...common,
        ...withoutUndefined({ parallelCalls: options.parallelCalls }),
      });
    return await evaluateSuite(suite!, common);
  } finally {
    bar?.done();
  }
}

/** The `eval` action: check the target, run, print the summary (or the report) and write the report files. */
async function evalAction(io: CliIO, suite: string | undefined, options: EvalCommandOptions): Promise<void> {
  checkTarget(suite, options);
  const report = await runEvalCommand(io, suite, options);
  const paths = options.out !== undefined ? writeReport(report, options.out) : undefined;
  const results = resultsOption(options);
  if (report.interrupted && results)
    io.stderr.write(
      `gemma-agent: the finished runs are in ${results.path}; add --resume to the same command to go on\n`,
    );
  if (options.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    io.stdout.write(renderSummaryTable(report));
    io.stdout.write(renderServersText(report));
    io.stdout.write(
      paths
        ? `\nWrote ${paths.json}, ${paths.markdown}, ${paths.svg}\n`
        : "\n(--out DIR writes report.json, report.md and convergence.svg)\n",
    );
  }
}

/** The examples under `eval --help`, written as the user started the tool. */
function evalExamples(io: CliIO): string {
  return [
    "",
    "Examples:",
    `  ${hint(io, "eval evals/basic.json --model profile:e2b-like --seeds 5 --out out/e2b-like")}`,
    `  ${hint(io, "eval evals/basic.json --model gemma-4-e2b,heuristic --budgets 2,4,8 --out out/e2b")}`,
    `  ${hint(io, "eval evals/basic.json --task arith-percent --model replay:run.jsonl")}`,
    `  ${hint(io, "eval --bfcl --category simple_python --model oracle")}`,
    `  ${hint(io, "eval evals/basic.json --model http://10.0.0.5:8080/v1#gemma --model http://10.0.0.6:8080/v1#gemma --concurrency 2 --out out/fleet")}`,
    `  ${hint(io, "eval --bfcl ./bfcl --category simple_python --model ./gemma-3-270m.gguf --limit 20 --no-grammar")}`,
    "",
  ].join("\n");
}

/** Add the flags that say which tasks run: the suite's budgets, seeds and sample, and the BFCL data and category. */
function taskOptions(command: Command): Command {
  inSection(command, SECTION.tasks, (c) =>
    c
      .option("--budgets <list>", "iteration budgets, comma-separated (default: 4,8,12,16; BFCL: 8)", parseBudgets)
      .option("--seeds <n>", "seeds per task and budget (default: 1)", parseIntegerOption(1))
      .option(
        "--limit <n>",
        "run only the first N tasks of the suite or category (a fixed sample for slow real models)",
        parseIntegerOption(1),
      )
      .option(
        "--task <ids>",
        "run only these tasks (ids, comma-separated or repeated), e.g. to replay one run's trace against its task",
        collectList,
      )
      .option(
        "--compare-loop",
        "also run the agent loop on each task that names a workflow, and compare the two (success, steps, tokens, time)",
      ),
  );
  return inSection(command, SECTION.bfcl, (c) =>
    c
      .option(
        "--bfcl [dir]",
        "BFCL data: a folder holding BFCL_v4_<category>.json and possible_answer/ (default: the copy in evals/bfcl)",
      )
      .option("--category <name>", "the BFCL category, e.g. simple_python, parallel_multiple, irrelevance"),
  );
}

/** Add the three knobs of what runs at once (runs on a GGUF model, runs on a server, calls in a reply) and the output. */
function runOptions(command: Command): Command {
  inSection(command, SECTION.atOnce, (c) =>
    c
      .option(
        "--parallel <n>",
        "GGUF models: runs at once on the one loaded model, each on its own context sequence (llama.cpp batches their decoding; memory grows with n; default: 1)",
        parseIntegerOption(1),
      )
      .option(
        "--concurrency <n>",
        "model servers: runs at once on each server (a model spread over k servers runs k x n; default: 1)",
        parseIntegerOption(1),
      )
      .option(
        "--parallel-calls",
        "BFCL: let one model reply make several skill calls at once (default: on for the parallel categories)",
      )
      .option("--no-parallel-calls", "BFCL: one skill call per model reply, even in the parallel categories"),
  );
  return inSection(command, SECTION.output, (c) =>
    c
      .option("--out <dir>", "write report.json, report.md and convergence.svg to this folder")
      .option(
        "--traces <dir>",
        "write each run's events to DIR/<model>/b<budget>-s<seed>/<task-id>.jsonl (replay a folder with --model replay:<folder>)",
      )
      .option("--json", "print report.json on stdout instead of the summary table")
      .option("--quiet", "no progress bar"),
  );
}

/**
 * `gemma-agent eval SUITE --model M [--budgets 4,8,12,16] [--seeds N] [--out DIR]` and
 * `gemma-agent eval --bfcl [DIR] --category NAME --model M`: run the suite or BFCL category under each model × budget ×
 * seed; print the summary table (or, with --json, the report) on stdout; with --out, write report.json, report.md and
 * convergence.svg there. Exit 0 when the eval ran (whatever the scores), 2 for bad input, 130 when interrupted.
 */
const evalCommand: CommandFactory = (io: CliIO) => {
  const command = new Command("eval")
    .description(
      "Benchmark a model offline: a task suite or a BFCL category, success rate against the iteration budget.",
    )
    .argument("[suite]", "a suite file (JSON or YAML), e.g. evals/basic.json");
  inSection(command, SECTION.model, (c) =>
    c.option(
      "--model <m>",
      `oracle | heuristic | profile:<${failureProfileNames().join("|")}> (assumed rates) | profile:fit:<report.json>[#model] | profile:file:<profile.json> (measured rates) | replay:<trace.jsonl|dir> | a GGUF path or alias; repeat or comma-separate to compare`,
      collectList,
    ),
  );
  return sectionedHelp(loopOptions(sweepOptions(runOptions(taskOptions(modelTuningOptions(command))))))
    .addHelpText("after", evalExamples(io))
    .action((suite: string | undefined, options: EvalCommandOptions) => evalAction(io, suite, options));
};

export default evalCommand;
