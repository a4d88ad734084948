import { appendFileSync, writeFileSync } from "node:fs";
import { Command } from "commander";
import { Agent } from "../agent/agent.js";
import type { AgentEvent } from "../agent/events.js";
import type { AgentState } from "../agent/agent-state.js";
import { EXIT, CliUsageError, hint, type CliIO } from "./cli-io.js";
import type { CommandFactory } from "./program.js";
import { budgetsForModel, loadModelForCli, resolveModelForCli, type CliModel } from "./model-setup.js";
import { parseIntegerOption, parseListOption } from "./parse-options.js";
import { Progress } from "./progress.js";
import { renderEvent } from "./render-event.js";
import { selectSkills } from "./skill-selection.js";
import { terminalApprover } from "./approve-prompt.js";
import { isInteractive } from "./terminal-question.js";
import { gpuOption, modelFlags, modelOptions, type ModelCommandOptions } from "./model-options.js";
import { loopOptions, loopSettings, type LoopCommandOptions } from "./loop-options.js";

interface AskOptions extends ModelCommandOptions, LoopCommandOptions {
  maxIterations?: number;
  maxRetries?: number;
  maxTokens?: number;
  skills?: string[];
  allowDir?: string;
  json?: boolean;
  trace?: string;
  grammar: boolean;
  quiet?: boolean;
  approve?: boolean;
}

/** Open the trace file now (a bad path fails before the model loads) and return a writer that appends each event. */
function openTrace(path: string | undefined): ((event: AgentEvent) => void) | undefined {
  if (!path) return undefined;
  try {
    writeFileSync(path, "");
  } catch (error) {
    throw new CliUsageError(`--trace: cannot write ${path}: ${(error as Error).message}`);
  }
  // one synchronous append per event: the trace is complete up to the last event even when the run is interrupted
  return (event) => appendFileSync(path, `${JSON.stringify(event)}\n`);
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
    throw new CliUsageError(`ask: give a question in quotes (${hint(io, 'ask "What is 17% of 2,340?"')}), or pipe it in`);
  }
  let text = "";
  for await (const chunk of io.stdin) text += typeof chunk === "string" ? chunk : (chunk as Buffer).toString("utf8");
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

const askCommand: CommandFactory = (io: CliIO, setExitCode) =>
  loopOptions(modelOptions(new Command("ask")))
    .description("Ask a question; the model answers, calling skills as it needs them.")
    .argument("[question]", "the question, in quotes; - (or nothing, when piped) reads it from stdin")
    .option("--max-iterations <n>", "model calls at most (default: the model's catalog budget, else 8)", parseIntegerOption(1))
    .option("--max-retries <n>", "invalid replies tolerated (default: the model's catalog budget, else 3)", parseIntegerOption(0))
    .option("--max-tokens <n>", "tokens one step may generate (default: 512)", parseIntegerOption(1))
    .option("--skills <names>", "only these skills, comma-separated (default: all built-in)", parseListOption)
    .option("--allow-dir <dir>", "let list_files and read_file read this folder (read-only)")
    .option("--json", "print one JSON document (answer, stopReason, iterations, events, stats) on stdout")
    .option("--trace <file>", "write the run's events to this file as JSON Lines, as they happen")
    .option("--no-grammar", "do not constrain replies with the action grammar")
    .option("--approve", "ask before each skill call: y / n / e(dit) (needs a terminal)")
    .option("--quiet", "no progress on stderr")
    .addOption(gpuOption())
    .addHelpText("after", `\nExamples:\n  ${hint(io, 'ask "What is 17% of 2,340?" --skills calculator')}\n  ${hint(io, 'ask "What is 17% of 2,340?" --model script:examples/replies/percent.json')}   (scripted replies: no model needed)\n  echo "How many km is 26.2 miles?" | ${hint(io, "ask --json")}\n`)
    .action(async (argument: string | undefined, options: AskOptions) => {
      const question = await readQuestion(io, argument);
      if (question.trim() === "") throw new CliUsageError("ask: the question is empty");
      if (options.approve && !isInteractive(io)) throw new CliUsageError("--approve needs an interactive terminal");
      const registry = selectSkills(options);
      const writeTrace = openTrace(options.trace);
      const progress = new Progress(io, { quiet: options.quiet });
      const resolved = await resolveModelForCli(io, options.model, progress);
      const model = await loadModelForCli(resolved, modelFlags(options), progress);
      try {
        const budgets = budgetsForModel(resolved, model.info.architecture);
        const agent = new Agent({
          ...loopSettings(options),
          model,
          registry,
          grammar: options.grammar,
          ...(options.maxTokens !== undefined && { maxTokens: options.maxTokens }),
          ...(options.temperature !== undefined && { temperature: options.temperature }),
          ...(options.approve && { approve: terminalApprover(io, () => progress.stop()) }),
        });
        const started = performance.now();
        progress.start("thinking");
        const run = agent.runStream(question, {
          maxIterations: options.maxIterations ?? budgets.maxIterations,
          maxRetries: options.maxRetries ?? budgets.maxRetries,
          signal: io.signal,
        });
        let next = await run.next();
        while (!next.done) {
          const event = next.value;
          writeTrace?.(event);
          const line = renderEvent(event);
          if (line) progress.note(line);
          const s = model.stats;
          progress.update(`thinking (step ${event.step}${s ? `, ${s.tokensPerSecond.toFixed(1)} tokens/s` : ""})`);
          next = await run.next();
        }
        const state = next.value;
        if (state.stopReason === "answer") progress.succeed(`answered in ${steps(state.iterations)}, ${((performance.now() - started) / 1000).toFixed(1)} s`);
        else progress.fail(`no answer: ${state.stopReason}`);
        if (options.json) io.stdout.write(`${JSON.stringify(jsonReport(state, model, performance.now() - started), null, 2)}\n`);
        else if (state.answer !== undefined) io.stdout.write(`${state.answer}\n`);
        setExitCode(exitCodeFor(state));
      } finally {
        progress.stop();
        await model.dispose();
      }
    });

export default askCommand;
