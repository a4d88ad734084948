import { Command } from "commander";
import type { InvokeResult } from "../../agent/invoke.js";
import type { AgentDefinition } from "../../definitions/agent-definition.js";
import { agentFromDefinition } from "../../definitions/agent-from-definition.js";
import { hint, type CliIO } from "../cli-io.js";
import { succeedAnswered } from "../answer-summary.js";
import type { CommandFactory } from "../command.js";
import {
  agentCommandOptions,
  agentFlags,
  checkApprove,
  loadDefinitionForCli,
  loadModelClosingTrace,
  openConversation,
  reportEvents,
  runBudgets,
  type AgentCommandOptions,
} from "../agent-setup.js";
import type { CliModel } from "../model-setup.js";
import { Progress } from "../progress.js";
import { jsonReport, readQuestion, steps, turnExitCode } from "../run-report.js";
import { openTrace } from "../trace-file.js";
import { isModulePath } from "../../import-module.js";
import { runWorkflowFile } from "../run-workflow.js";

interface RunOptions extends AgentCommandOptions {
  json?: boolean;
  trace?: string;
  overwriteTrace?: boolean;
}

/** The `--json` document of `run`: ask's, with the typed reply, the turn's tokens, the agent and the conversation. */
function runReport(result: InvokeResult, model: CliModel, definition: AgentDefinition, wallMs: number) {
  return {
    ...jsonReport(result.state, model, wallMs),
    reply: result.reply ?? null,
    tokens: result.tokens,
    agent: { name: definition.name, file: definition.path },
    conversation: result.conversation.path
      ? { file: result.conversation.path, turns: result.conversation.turns.length }
      : null,
  };
}

/** The `run` action: load the definition and the model, run one turn, print the answer (or the --json document). */
async function runAgent(
  io: CliIO,
  file: string,
  argument: string | undefined,
  options: RunOptions,
  setExitCode: (code: number) => void,
): Promise<void> {
  const message = await readQuestion(io, argument, {
    command: "run",
    example: `run ${file} "How many km is 26.2 miles?"`,
    what: "message",
  });
  checkApprove(io, options);
  const definition = await loadDefinitionForCli(file, options);
  const conversation = openConversation(io, options.conversation, definition.name);
  const trace = openTrace(options.trace, options.overwriteTrace);
  const progress = new Progress(io, { quiet: options.quiet });
  const { model, budgets } = await loadModelClosingTrace(
    io,
    options.model ?? definition.model,
    options,
    progress,
    trace,
  );
  try {
    const agent = agentFromDefinition(definition, { model, options: agentFlags(io, options, progress) });
    const started = performance.now();
    progress.start("thinking");
    const result = await agent.invoke(message, {
      ...runBudgets(options, definition, budgets),
      signal: io.signal,
      onEvent: reportEvents({ model, progress, trace }),
      conversation,
    });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (result.stopReason === "answer")
      succeedAnswered(progress, result.state, `answered in ${steps(result.iterations)}, ${seconds} s`);
    else if (result.answer !== undefined) progress.fail(`no final answer (${result.stopReason}): the last candidate`);
    else progress.fail(`no answer: ${result.stopReason}`);
    if (options.json)
      io.stdout.write(
        `${JSON.stringify(runReport(result, model, definition, performance.now() - started), null, 2)}\n`,
      );
    else if (result.answer !== undefined) io.stdout.write(`${result.answer}\n`);
    setExitCode(turnExitCode(result));
  } finally {
    trace?.close();
    progress.stop();
    await model.dispose();
  }
}

/** `gemma-agent run AGENT.yaml MESSAGE [--conversation FILE] [--model M] [--json] [--trace FILE]`: one turn. */
const runCommand: CommandFactory = (io: CliIO, setExitCode) =>
  agentCommandOptions(new Command("run"), { json: "answer, reply, stopReason, iterations, events, stats, tokens" })
    .description(
      "Run an agent defined in a YAML file on a message (one turn; --conversation keeps the memory), or a workflow file.",
    )
    .argument(
      "<agent.yaml | workflow.ts>",
      "the agent definition (see examples/agents/), or a workflow file (.ts/.js: see examples/workflows/)",
    )
    .argument("[message]", "the message, in quotes; - (or nothing, when piped) reads it from stdin")
    .addHelpText(
      "after",
      `\nExamples:\n  ${hint(io, 'run examples/agents/unit-helper/agent.yaml "How many km is 26.2 miles?"')}\n  ${hint(io, 'run examples/agents/unit-helper/agent.yaml "How many km is 26.2 miles?" --model script:examples/replies/unit-helper.json')}   (scripted replies: no model needed)\n  ${hint(io, 'run examples/agents/file-assistant/agent.yaml "What is in notes.md?" --allow-dir examples/agents/file-assistant/files')}\n  ${hint(io, 'run examples/workflows/router.ts "What is 17 times 23 plus 4?" --model script:examples/workflows/replies/router.json')}   (a workflow file)\n`,
    )
    .action((file: string, argument: string | undefined, options: RunOptions) =>
      isModulePath(file)
        ? runWorkflowFile(io, file, argument, options, setExitCode)
        : runAgent(io, file, argument, options, setExitCode),
    );

export default runCommand;
