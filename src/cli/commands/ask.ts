import { Command } from "commander";
import { Agent } from "../../agent/agent.js";
import { CliUsageError, hint, type CliIO } from "../cli-io.js";
import { succeedAnswered } from "../answer-summary.js";
import type { CommandFactory } from "../command.js";
import {
  agentCommandOptions,
  agentFlags,
  checkApprove,
  followRun,
  loadModelClosingTrace,
  reportEvents,
  runBudgets,
  type AgentCommandOptions,
} from "../agent-setup.js";
import { exitCodeFor, jsonReport, readQuestion, steps } from "../run-report.js";
import { openTrace } from "../trace-file.js";
import { Progress } from "../progress.js";
import { selectSkills } from "../skill-selection.js";

interface AskOptions extends AgentCommandOptions {
  skills?: string[];
  json?: boolean;
  trace?: string;
  overwriteTrace?: boolean;
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
  checkApprove(io, options);
  const registry = selectSkills(options);
  const trace = openTrace(options.trace, options.overwriteTrace);
  const progress = new Progress(io, { quiet: options.quiet });
  const { model, budgets } = await loadModelClosingTrace(io, options.model, options, progress, trace);
  try {
    const agent = new Agent({ ...agentFlags(io, options, progress), model, registry });
    const started = performance.now();
    progress.start("thinking");
    const run = agent.runStream(question, { ...runBudgets(options, undefined, budgets), signal: io.signal });
    const state = await followRun(run, reportEvents({ model, progress, trace }));
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
  agentCommandOptions(new Command("ask"), { definition: false, json: "answer, stopReason, iterations, events, stats" })
    .description("Ask a question; the model answers, calling skills as it needs them.")
    .argument("[question]", "the question, in quotes; - (or nothing, when piped) reads it from stdin")
    .addHelpText(
      "after",
      `\nExamples:\n  ${hint(io, 'ask "What is 17% of 2,340?" --skills calculator')}\n  ${hint(io, 'ask "What is 17% of 2,340?" --model http://127.0.0.1:8080/v1#gemma-3-270m')}   (a model on a llama-server, vLLM, Ollama or LM Studio server)\n  ${hint(io, 'ask "What is 17% of 2,340?" --model script:examples/replies/percent.json')}   (scripted replies: no model needed)\n  echo "How many km is 26.2 miles?" | ${hint(io, "ask --json")}\n`,
    )
    .action((argument: string | undefined, options: AskOptions) => ask(io, argument, options, setExitCode));

export default askCommand;
