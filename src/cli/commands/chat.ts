import { Command } from "commander";
import { Agent } from "../../agent/agent.js";
import { agentFromDefinition } from "../../definitions/agent-from-definition.js";
import { Conversation } from "../../memory/conversation.js";
import { hint, type CliIO } from "../cli-io.js";
import type { CommandFactory } from "../command.js";
import {
  agentCommandOptions,
  agentFlags,
  agentRegistry,
  checkApprove,
  loadDefinitionForCli,
  openConversation,
  runBudgets,
  type AgentCommandOptions,
} from "../agent-setup.js";
import { ChatSession } from "../chat-session.js";
import { loadCommandModel } from "../model-setup.js";
import { Progress } from "../progress.js";

/** The agent `chat` talks with when no definition is given: the built-in skills, the default soul. */
const DEFAULT_CHAT_AGENT = "assistant";

/** The `chat` action: the agent (a definition, or the default one) and its model, then the session. */
async function chat(
  io: CliIO,
  file: string | undefined,
  options: AgentCommandOptions,
  setExitCode: (code: number) => void,
): Promise<void> {
  checkApprove(io, options);
  const definition = file === undefined ? undefined : await loadDefinitionForCli(file, options);
  const name = definition?.name ?? DEFAULT_CHAT_AGENT;
  const conversation = openConversation(io, options.conversation, name) ?? new Conversation({ agent: name });
  const progress = new Progress(io, { quiet: options.quiet });
  const { model, budgets } = await loadCommandModel(io, options.model ?? definition?.model, options, progress);
  try {
    const flags = agentFlags(io, options, progress);
    const agent = definition
      ? agentFromDefinition(definition, { model, options: flags })
      : new Agent({ ...flags, name, model, registry: agentRegistry(options) });
    const session = new ChatSession(io, {
      agent,
      model,
      conversation,
      progress,
      budgets: runBudgets(options, definition, budgets),
    });
    const earlier = conversation.turns.length ? ` (continuing ${conversation.turns.length} earlier turn(s))` : "";
    setExitCode(await session.run(`chatting with ${name} on ${model.info.name}${earlier}`));
  } finally {
    progress.stop();
    await model.dispose();
  }
}

/** `gemma-agent chat [AGENT.yaml] [--model M] [--conversation FILE]`: an interactive conversation on the terminal. */
const chatCommand: CommandFactory = (io: CliIO, setExitCode) =>
  agentCommandOptions(new Command("chat"))
    .description(
      "Talk with an agent on the terminal: each line is a turn, with memory; /reset, /save FILE, /exit. Ctrl-C stops an answer, a second Ctrl-C at an empty prompt quits.",
    )
    .argument("[agent.yaml]", "the agent definition (default: the built-in skills and the default soul)")
    .addHelpText(
      "after",
      `\nExamples:\n  ${hint(io, "chat examples/agents/unit-helper/agent.yaml")}\n  ${hint(io, "chat --conversation notes.jsonl")}   (continue a conversation kept in a file)\n`,
    )
    .action((file: string | undefined, options: AgentCommandOptions) => chat(io, file, options, setExitCode));

export default chatCommand;
