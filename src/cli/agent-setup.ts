import { Command } from "commander";
import type { AgentOptions } from "../agent/agent.js";
import type { AgentEvent } from "../agent/events.js";
import { loadAgentDefinition } from "../definitions/load-agent-definition.js";
import { AgentDefinitionError } from "../definitions/definition-error.js";
import type { AgentDefinition } from "../definitions/agent-definition.js";
import { Conversation } from "../memory/conversation.js";
import { builtinSkills, FILE_SKILL_NAMES } from "../skills/builtin/index.js";
import { Registry } from "../skills/registry.js";
import { withoutUndefined } from "../without-undefined.js";
import { terminalApprover } from "./approve-prompt.js";
import { CliUsageError, type CliIO } from "./cli-io.js";
import { loopOptions, loopSettings, type LoopCommandOptions } from "./loop-options.js";
import type { CliModel } from "./model-setup.js";
import { gpuOption, modelOptions, type ModelCommandOptions } from "./model-options.js";
import { parseIntegerOption } from "./parse-options.js";
import type { Progress } from "./progress.js";
import { renderEvent } from "./render-event.js";
import { serverOptions, type ServerCommandOptions } from "./server-model.js";
import type { Trace } from "./trace-file.js";

/** The flags `run` and `chat` share with `ask` (the model, the loop, the budgets, the output). */
export interface AgentCommandOptions extends ModelCommandOptions, LoopCommandOptions, ServerCommandOptions {
  model?: string;
  conversation?: string;
  maxIterations?: number;
  maxRetries?: number;
  maxTokens?: number;
  allowDir?: string;
  grammar: boolean;
  quiet?: boolean;
  approve?: boolean;
}

/** Add the flags of an agent command: ask's model, server and loop flags, budgets, --allow-dir, --conversation. */
export function agentCommandOptions(command: Command): Command {
  return serverOptions(loopOptions(modelOptions(command)))
    .option("--conversation <file>", "keep the conversation in this JSON Lines file (created, or continued)")
    .option(
      "--max-iterations <n>",
      "model calls at most (default: the definition's loop_policy, else the model's catalog budget)",
      parseIntegerOption(1),
    )
    .option("--max-retries <n>", "invalid replies tolerated (default: as --max-iterations)", parseIntegerOption(0))
    .option("--max-tokens <n>", "tokens one step may generate (default: 512)", parseIntegerOption(1))
    .option("--allow-dir <dir>", "let list_files and read_file read this folder (read-only), if the agent has them")
    .option("--no-grammar", "do not constrain replies with the action grammar")
    .option("--approve", "ask before each skill call: y / n / e(dit) (needs a terminal)")
    .option("--quiet", "no progress on stderr")
    .addOption(gpuOption());
}

/** The skills a definition may name: the built-ins, with the file skills when a folder is allowed. */
export function agentRegistry(options: { allowDir?: string }): Registry {
  return new Registry(builtinSkills(withoutUndefined({ allowDir: options.allowDir })));
}

/**
 * Load an agent definition for a command. A file skill named without `--allow-dir` says what is missing instead of
 * listing the skills there are.
 */
export async function loadDefinitionForCli(file: string, options: { allowDir?: string }): Promise<AgentDefinition> {
  try {
    return await loadAgentDefinition(file, { registry: agentRegistry(options) });
  } catch (error) {
    const isFileSkill = (problem: AgentDefinitionError) =>
      problem.code === "unknown_tool" && (FILE_SKILL_NAMES as readonly string[]).includes(problem.tool ?? "");
    if (!(error instanceof AgentDefinitionError) || !error.problems.some(isFileSkill)) throw error;
    // only file skills missing their folder: one line, as for one (the flag is the one fix)
    if (error.problems.every(isFileSkill))
      throw new CliUsageError(`${file}: ${error.field}: ${error.tool} needs --allow-dir DIR (the folder it may read)`);
    // one of several problems: said the same way, in its place in the list
    throw new CliUsageError(
      error.message.replace(
        /unknown skill "(list_files|read_file)" \(available: [^)]*\)/g,
        "$1 needs --allow-dir DIR (the folder it may read)",
      ),
    );
  }
}

/** The agent options a command's flags set (they win over a definition's): loop settings, grammar, tokens, approval. */
export function agentFlags(
  io: CliIO,
  options: AgentCommandOptions,
  progress: Progress,
): Partial<Omit<AgentOptions, "model" | "registry">> {
  return {
    ...loopSettings(options),
    grammar: options.grammar,
    ...withoutUndefined({
      maxTokens: options.maxTokens,
      temperature: options.temperature,
      approve: options.approve ? terminalApprover(io, () => progress.stop()) : undefined,
    }),
  };
}

/** The conversation of `--conversation FILE`: continued when the file exists (a torn last line is said on stderr). */
export function openConversation(io: CliIO, file: string | undefined, agent: string): Conversation | undefined {
  if (file === undefined) return undefined;
  const conversation = Conversation.open(file, { agent });
  for (const warning of conversation.warnings) io.stderr.write(`gemma-agent: warning: ${warning}\n`);
  return conversation;
}

/** Each event of a run to the trace and, as a line, to the progress on stderr (as `ask` shows them). */
export function reportEvents(view: {
  model: CliModel;
  progress: Progress;
  trace?: Trace;
}): (event: AgentEvent) => void {
  return (event) => {
    view.trace?.write(event);
    const line = renderEvent(event);
    if (line) view.progress.note(line);
    const s = view.model.stats;
    view.progress.update(`thinking (step ${event.step}${s ? `, ${s.tokensPerSecond.toFixed(1)} tokens/s` : ""})`);
  };
}

/**
 * The run budgets a command passes: its flags, else (when the definition's loop policy sets none) the model's catalog
 * budget; left out, the agent's own (the definition's) apply.
 */
export function runBudgets(
  options: AgentCommandOptions,
  definition: AgentDefinition | undefined,
  catalog: { maxIterations: number; maxRetries: number },
): { maxIterations?: number; maxRetries?: number } {
  return withoutUndefined({
    maxIterations:
      options.maxIterations ?? (definition?.loopPolicy.maxIterations === undefined ? catalog.maxIterations : undefined),
    maxRetries:
      options.maxRetries ?? (definition?.loopPolicy.maxRetries === undefined ? catalog.maxRetries : undefined),
  });
}
