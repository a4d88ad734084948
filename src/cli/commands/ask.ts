import { withoutUndefined } from "../../without-undefined.js";
import { Command } from "commander";
import { Agent, type RunOptions } from "../../agent/agent.js";
import type { AgentState } from "../../agent/agent-state.js";
import { CliUsageError, hint, type CliIO } from "../cli-io.js";
import { succeedAnswered } from "../answer-summary.js";
import type { CommandFactory } from "../command.js";
import { loadCommandModel, type CliModel } from "../model-setup.js";
import { exitCodeFor, jsonReport, readQuestion, steps } from "../run-report.js";
import { openTrace, type Trace } from "../trace-file.js";
import { parseIntegerOption, parseListOption } from "../parse-options.js";
import { Progress } from "../progress.js";
import { renderEvent } from "../render-event.js";
import { selectSkills } from "../skill-selection.js";
import { terminalApprover } from "../approve-prompt.js";
import { isInteractive } from "../terminal-question.js";
import { gpuOption, modelOptions, type ModelCommandOptions } from "../model-options.js";
import { loopOptions, loopSettings, type LoopCommandOptions } from "../loop-options.js";
import { serverOptions, type ServerCommandOptions } from "../server-model.js";

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

/** The model `--model` names, found (or offered for download) and loaded; a failure closes the trace first. */
async function loadAskModel(io: CliIO, options: AskOptions, progress: Progress, trace: Trace) {
  try {
    return await loadCommandModel(io, options.model, options, progress);
  } catch (error) {
    trace?.close();
    throw error;
  }
}

/** Run the agent, each event to the trace and the progress line as it comes; the final state. */
async function runWithProgress(
  agent: Agent,
  question: string,
  runOptions: RunOptions,
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
      succeedAnswered(
        progress,
        state,
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
