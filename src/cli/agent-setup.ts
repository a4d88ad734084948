import { Command } from "commander";
import type { AgentOptions } from "../agent/agent.js";
import type { AgentState } from "../agent/agent-state.js";
import type { AgentEvent } from "../agent/events.js";
import { loadAgentDefinition } from "../definitions/load-agent-definition.js";
import { AgentDefinitionError } from "../definitions/definition-error.js";
import type { AgentDefinition } from "../definitions/agent-definition.js";
import { Conversation } from "../memory/conversation.js";
import type { ModelBudgets } from "../model/catalog.js";
import { builtinSkills, FILE_SKILL_NAMES } from "../skills/builtin/index.js";
import { Registry } from "../skills/registry.js";
import { withoutUndefined } from "../without-undefined.js";
import { terminalApprover } from "./approve-prompt.js";
import { CliUsageError, type CliIO } from "./cli-io.js";
import { inSection, SECTION, sectionedHelp } from "./help-sections.js";
import { loopOptions, loopSettings, type LoopCommandOptions } from "./loop-options.js";
import { loadCommandModel, type CliModel } from "./model-setup.js";
import { modelOptions, type ModelCommandOptions } from "./model-options.js";
import { parseIntegerOption, parseListOption } from "./parse-options.js";
import type { Progress } from "./progress.js";
import { renderEvent } from "./render-event.js";
import { serverOptions, type ServerCommandOptions } from "./server-model.js";
import { isInteractive } from "./terminal-question.js";
import type { Trace } from "./trace-file.js";

/** The flags of `ask`, `run` and `chat` (the model, the loop, the budgets, the output). */
export interface AgentCommandOptions extends ModelCommandOptions, LoopCommandOptions, ServerCommandOptions {
  model?: string;
  conversation?: string;
  maxIterations?: number;
  maxRetries?: number;
  maxTokens?: number;
  allowDir?: string;
  quiet?: boolean;
  approve?: boolean;
}

/** What differs between the agent commands' flags. */
interface AgentCommandShape {
  /** An agent definition's command (`run`, `chat`; default) keeps a conversation; `ask` picks built-in skills. */
  definition?: boolean;
  /** What the `--json` document holds, for a command with `--json`, `--trace` and `--overwrite-trace`. */
  json?: string;
}

/**
 * Add the flags of an agent command, each in its section of the help: the model, the server, the run's budgets and
 * folder, `--approve`, the output and the loop's levers.
 */
export function agentCommandOptions(command: Command, { definition = true, json }: AgentCommandShape = {}): Command {
  const defaults = definition
    ? { iterations: "the definition's loop_policy, else the model's catalog budget", retries: "as --max-iterations" }
    : { iterations: "the model's catalog budget, else 8", retries: "the model's catalog budget, else 3" };
  inSection(serverOptions(modelOptions(command)), SECTION.run, (c) => {
    c.option("--max-iterations <n>", `model calls at most (default: ${defaults.iterations})`, parseIntegerOption(1))
      .option("--max-retries <n>", `invalid replies tolerated (default: ${defaults.retries})`, parseIntegerOption(0))
      .option("--max-tokens <n>", "tokens one step may generate (default: 512)", parseIntegerOption(1));
    if (!definition)
      c.option("--skills <names>", "only these skills, comma-separated (default: all built-in)", parseListOption);
    c.option(
      "--allow-dir <dir>",
      `let list_files and read_file read this folder (read-only)${definition ? ", if the agent has them" : ""}`,
    );
    if (definition)
      c.option("--conversation <file>", "keep the conversation in this JSON Lines file (created, or continued)");
    return c.option("--approve", "ask before each skill call: y / n / e(dit) (needs a terminal)");
  });
  inSection(command, SECTION.output, (c) => {
    if (json !== undefined)
      c.option("--json", `print one JSON document (${json}) on stdout`)
        .option("--trace <file>", "write the run's events to this file as JSON Lines, as they happen (a new file)")
        .option("--overwrite-trace", "let --trace replace a file that exists");
    return c.option("--quiet", "no progress on stderr");
  });
  return sectionedHelp(loopOptions(command));
}

/** `--approve` asks on the terminal: without one it is a usage error, said before anything is loaded. */
export function checkApprove(io: CliIO, options: { approve?: boolean }): void {
  if (options.approve && !isInteractive(io)) throw new CliUsageError("--approve needs an interactive terminal");
}

/** The model `spec` names, with the command's flags; a failure closes the run's trace first. */
export async function loadModelClosingTrace(
  io: CliIO,
  spec: string | undefined,
  options: AgentCommandOptions,
  progress: Progress,
  trace: Trace,
): Promise<{ model: CliModel; budgets: ModelBudgets }> {
  try {
    return await loadCommandModel(io, spec, options, progress);
  } catch (error) {
    trace?.close();
    throw error;
  }
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

/** Drain a run's stream, each event to `onEvent` as it comes; the final state. */
export async function followRun(
  run: AsyncGenerator<AgentEvent, AgentState, undefined>,
  onEvent: (event: AgentEvent) => void,
): Promise<AgentState> {
  let next = await run.next();
  while (!next.done) {
    onEvent(next.value);
    next = await run.next();
  }
  return next.value;
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
