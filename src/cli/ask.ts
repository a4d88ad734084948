import { withoutUndefined } from "../without-undefined.js";
import { closeSync, constants, fstatSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { Command } from "commander";
import { Agent } from "../agent/agent.js";
import type { AgentEvent } from "../agent/events.js";
import type { AgentState } from "../agent/agent-state.js";
import { EXIT, CliUsageError, hint, type CliIO } from "./cli-io.js";
import type { CommandFactory } from "./command.js";
import { budgetsForModel, loadModelForCli, resolveModelForCli, type CliModel } from "./model-setup.js";
import { parseIntegerOption, parseListOption } from "./parse-options.js";
import { Progress } from "./progress.js";
import { renderEvent } from "./render-event.js";
import { selectSkills } from "./skill-selection.js";
import { terminalApprover } from "./approve-prompt.js";
import { isInteractive } from "./terminal-question.js";
import { gpuOption, modelFlags, modelOptions, type ModelCommandOptions } from "./model-options.js";
import { loopOptions, loopSettings, type LoopCommandOptions } from "./loop-options.js";
import { modelSpecWithServer, serverOptions, type ServerCommandOptions } from "./server-model.js";

interface AskOptions extends ModelCommandOptions, LoopCommandOptions, ServerCommandOptions {
  model?: string;
  maxIterations?: number;
  maxRetries?: number;
  maxTokens?: number;
  skills?: string[];
  allowDir?: string;
  json?: boolean;
  trace?: string;
  overwriteTrace?: boolean;
  grammar: boolean;
  quiet?: boolean;
  approve?: boolean;
}

/**
 * Open the trace file now (a bad path fails before the model loads) and return a writer that appends each event and
 * a close. Only a regular file: a FIFO with no reader would block the run, a device would swallow it. An existing
 * file is kept unless `overwrite` (a second run must not silently destroy the first one's trace).
 */
function openTrace(
  path: string | undefined,
  overwrite = false,
): { write: (event: AgentEvent) => void; close: () => void } | undefined {
  if (!path) return undefined;
  const notAFile = () =>
    new CliUsageError(`--trace: ${path} is not a regular file (a FIFO, device or folder): give the path of a file`);
  let fd: number;
  try {
    const existing = statSync(path, { throwIfNoEntry: false });
    if (existing && !existing.isFile()) throw notAFile();
    if (existing && !overwrite)
      throw new CliUsageError(
        `--trace: ${path} already exists; give a new path, or add --overwrite-trace to replace it`,
      );
    // O_EXCL: a file that appeared since the stat is not replaced; O_NONBLOCK: a FIFO put there cannot block the open
    const flags =
      constants.O_WRONLY |
      constants.O_CREAT |
      constants.O_NONBLOCK |
      (overwrite ? constants.O_TRUNC : constants.O_EXCL);
    fd = openSync(path, flags, 0o644);
  } catch (error) {
    if (error instanceof CliUsageError) throw error;
    throw new CliUsageError(`--trace: cannot write ${path}: ${(error as Error).message}`);
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw notAFile();
  }
  let written = 0;
  return {
    // one synchronous write per event: the trace is complete up to the last event even when the run is interrupted
    write: (event) => void (written += writeSync(fd, `${JSON.stringify(event)}\n`)),
    // a run that never started (the model did not load) leaves no empty file to refuse the next --trace
    close: () => {
      closeSync(fd);
      if (written === 0 && !overwrite) rmSync(path, { force: true });
    },
  };
}

/** The `--json` document. */
function jsonReport(state: AgentState, model: CliModel, wallMs: number) {
  return {
    answer: state.answer ?? null,
    stopReason: state.stopReason,
    iterations: state.iterations,
    events: state.stream.toArray(),
    stats: { ...state.stats, wallMs: Math.round(wallMs), ...(model.stats && { lastGeneration: model.stats }) },
    model: { ...model.info, backend: model.backend, threads: model.threads },
  };
}

/**
 * The question: the argument; with `-`, or with no argument when stdin is a pipe or a file, the whole of stdin
 * (`echo "What is 2+2?" | gemma-agent ask`). With no argument on a terminal it is a usage error, not a silent wait.
 */
async function readQuestion(io: CliIO, argument: string | undefined): Promise<string> {
  if (argument !== undefined && argument !== "-") return argument;
  if (argument === undefined && io.stdin.isTTY) {
    throw new CliUsageError(
      `ask: give a question in quotes (${hint(io, 'ask "What is 17% of 2,340?"')}), or pipe it in`,
    );
  }
  let text = "";
  for await (const chunk of io.stdin) text += typeof chunk === "string" ? chunk : chunk.toString("utf8");
  if (text.trim() === "") throw new CliUsageError("ask: no question on stdin (it was empty)");
  return text.trim();
}

/** `1 step`, `3 steps`. */
function steps(count: number): string {
  return `${count} step${count === 1 ? "" : "s"}`;
}

function exitCodeFor(state: AgentState): number {
  if (state.stopReason === "answer") return EXIT.ok;
  if (state.stopReason === "aborted") return EXIT.interrupted;
  return EXIT.noAnswer;
}

/** The trace writer of `--trace`, when there is one. */
type Trace = ReturnType<typeof openTrace>;

/** The model `--model` names, found (or offered for download) and loaded; a failure closes the trace first. */
async function loadAskModel(io: CliIO, options: AskOptions, progress: Progress, trace: Trace) {
  try {
    const spec = modelSpecWithServer(options.model, options);
    const resolved = await resolveModelForCli(io, spec, progress);
    const model = await loadModelForCli(resolved, modelFlags(options), progress, { io, options });
    return { model, budgets: budgetsForModel(resolved, model.info.architecture) };
  } catch (error) {
    trace?.close();
    throw error;
  }
}

/** Run the agent, each event to the trace and the progress line as it comes; the final state. */
async function runWithProgress(
  agent: Agent,
  question: string,
  runOptions: Parameters<Agent["runStream"]>[1],
  view: { model: CliModel; progress: Progress; trace: Trace },
): Promise<AgentState> {
  const { model, progress, trace } = view;
  progress.start("thinking");
  const run = agent.runStream(question, runOptions);
  let next = await run.next();
  while (!next.done) {
    const event = next.value;
    trace?.write(event);
    const line = renderEvent(event);
    if (line) progress.note(line);
    const s = model.stats;
    progress.update(`thinking (step ${event.step}${s ? `, ${s.tokensPerSecond.toFixed(1)} tokens/s` : ""})`);
    next = await run.next();
  }
  return next.value;
}

/** The `ask` action: read the question, load the model, run, print the answer (or the --json document). */
async function ask(
  io: CliIO,
  argument: string | undefined,
  options: AskOptions,
  setExitCode: (code: number) => void,
): Promise<void> {
  const question = await readQuestion(io, argument);
  if (question.trim() === "") throw new CliUsageError("ask: the question is empty");
  if (options.approve && !isInteractive(io)) throw new CliUsageError("--approve needs an interactive terminal");
  const registry = selectSkills(options);
  const trace = openTrace(options.trace, options.overwriteTrace);
  const progress = new Progress(io, { quiet: options.quiet });
  const { model, budgets } = await loadAskModel(io, options, progress, trace);
  try {
    const agent = new Agent({
      ...loopSettings(options),
      model,
      registry,
      grammar: options.grammar,
      ...withoutUndefined({
        maxTokens: options.maxTokens,
        temperature: options.temperature,
        approve: options.approve ? terminalApprover(io, () => progress.stop()) : undefined,
      }),
    });
    const started = performance.now();
    const runOptions = {
      maxIterations: options.maxIterations ?? budgets.maxIterations,
      maxRetries: options.maxRetries ?? budgets.maxRetries,
      signal: io.signal,
    };
    const state = await runWithProgress(agent, question, runOptions, { model, progress, trace });
    if (state.stopReason === "answer")
      progress.succeed(
        `answered in ${steps(state.iterations)}, ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    else progress.fail(`no answer: ${state.stopReason}`);
    if (options.json)
      io.stdout.write(`${JSON.stringify(jsonReport(state, model, performance.now() - started), null, 2)}\n`);
    else if (state.answer !== undefined) io.stdout.write(`${state.answer}\n`);
    setExitCode(exitCodeFor(state));
  } finally {
    trace?.close();
    progress.stop();
    await model.dispose();
  }
}

/** `gemma-agent ask QUESTION [--model M] [--skills ...] [--json] [--trace FILE]`: one run of the agent. */
const askCommand: CommandFactory = (io: CliIO, setExitCode) =>
  serverOptions(loopOptions(modelOptions(new Command("ask"))))
    .description("Ask a question; the model answers, calling skills as it needs them.")
    .argument("[question]", "the question, in quotes; - (or nothing, when piped) reads it from stdin")
    .option(
      "--max-iterations <n>",
      "model calls at most (default: the model's catalog budget, else 8)",
      parseIntegerOption(1),
    )
    .option(
      "--max-retries <n>",
      "invalid replies tolerated (default: the model's catalog budget, else 3)",
      parseIntegerOption(0),
    )
    .option("--max-tokens <n>", "tokens one step may generate (default: 512)", parseIntegerOption(1))
    .option("--skills <names>", "only these skills, comma-separated (default: all built-in)", parseListOption)
    .option("--allow-dir <dir>", "let list_files and read_file read this folder (read-only)")
    .option("--json", "print one JSON document (answer, stopReason, iterations, events, stats) on stdout")
    .option("--trace <file>", "write the run's events to this file as JSON Lines, as they happen (a new file)")
    .option("--overwrite-trace", "let --trace replace a file that exists")
    .option("--no-grammar", "do not constrain replies with the action grammar")
    .option("--approve", "ask before each skill call: y / n / e(dit) (needs a terminal)")
    .option("--quiet", "no progress on stderr")
    .addOption(gpuOption())
    .addHelpText(
      "after",
      `\nExamples:\n  ${hint(io, 'ask "What is 17% of 2,340?" --skills calculator')}\n  ${hint(io, 'ask "What is 17% of 2,340?" --model http://127.0.0.1:8080/v1#gemma-3-270m')}   (a model on a llama-server, vLLM, Ollama or LM Studio server)\n  ${hint(io, 'ask "What is 17% of 2,340?" --model script:examples/replies/percent.json')}   (scripted replies: no model needed)\n  echo "How many km is 26.2 miles?" | ${hint(io, "ask --json")}\n`,
    )
    .action((argument: string | undefined, options: AskOptions) => ask(io, argument, options, setExitCode));

export default askCommand;
