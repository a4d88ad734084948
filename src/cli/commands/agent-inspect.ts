import { relative } from "node:path";
import { Command } from "commander";
import type { AgentDefinition, ToolDefinition } from "../../definitions/agent-definition.js";
import { agentFromDefinition } from "../../definitions/agent-from-definition.js";
import { ModelLoadError } from "../../model/errors.js";
import { readGgufHeader } from "../../model/gguf/gguf-header.js";
import { DEFAULT_CONTEXT_SIZE } from "../../model/llama/defaults.js";
import type { ModelHandle } from "../../model/model-handle.js";
import { modelsDirs } from "../../model/models-dir.js";
import { resolveModelFile } from "../../model/resolve-model.js";
import { estimateTokens, ESTIMATE_LABEL } from "../../memory/token-counter.js";
import { chatFormatForArchitecture, gemma3ChatFormat, type ChatFormat } from "../../prompt/chat-format.js";
import { describeThrown } from "../../safe-stringify.js";
import { hint, type CliIO } from "../cli-io.js";
import type { CommandFactory } from "../command.js";
import { loadDefinitionForCli } from "../agent-setup.js";
import { countTokens } from "../inspect-tokens.js";
import { parseCliModelSpec } from "../model-spec.js";

/** A handle that is never called: inspect renders prompts without running a model. */
const notRun: ModelHandle = { generate: () => Promise.reject(new Error("agent inspect does not run the model")) };

interface AgentInspectOptions {
  model?: string;
  allowDir?: string;
  json?: boolean;
}

/** The model's tokenizer and context, when the model is a GGUF file here; else why the counts are estimates. */
async function tokenizer(
  io: CliIO,
  spec: string | undefined,
): Promise<{ path: string; format: ChatFormat; contextSize: number } | { note: string }> {
  if (spec === undefined) return { note: "no model given (--model, or the definition's model)" };
  const parsed = parseCliModelSpec(spec);
  if (parsed.kind === "script") return { note: "scripted replies have no tokenizer" };
  if (parsed.kind === "server") return { note: "a model on a server: its tokenizer is not read here" };
  try {
    const resolved = resolveModelFile(spec, { modelsDirs: modelsDirs(io.env), cwd: io.cwd });
    const header = await readGgufHeader(resolved.path);
    return {
      path: resolved.path,
      format: chatFormatForArchitecture(header.architecture ?? "") ?? gemma3ChatFormat,
      contextSize: Math.min(DEFAULT_CONTEXT_SIZE, header.contextLength ?? DEFAULT_CONTEXT_SIZE),
    };
  } catch (error) {
    if (error instanceof ModelLoadError && error.code === "not_found")
      return { note: `${spec} is not downloaded (run: ${hint(io, `pull ${spec}`)})` };
    return { note: `${spec}: ${describeThrown(error)}` };
  }
}

/** A tool as the report lists it: its kind, description and argument schema (agents: their own report's tree). */
function toolEntry(tool: ToolDefinition, definition: AgentDefinition, args: unknown) {
  if (tool.type === "skill") {
    const skill = definition.registry.get(tool.name);
    return { name: tool.name, type: "skill", description: skill?.description ?? "", arguments: args };
  }
  return {
    name: tool.name,
    type: "agent",
    description: tool.description,
    arguments: args,
    agent: tool.definition.name,
    file: tool.file,
    maxDepth: tool.maxDepth,
  };
}

/**
 * The nested agents as a tree of lines (`└─ ask_math_expert → math_expert (file)`). An agent's tools are listed under
 * its first appearance only (`(tools shown above)` after), so a team whose files name each other many times prints
 * one subtree per file, not one per path.
 */
function agentTree(
  definition: AgentDefinition,
  cwd: string,
  indent = "",
  shownAgents = new Set<AgentDefinition>(),
): string[] {
  const lines: string[] = [];
  shownAgents.add(definition);
  definition.tools.forEach((tool, i) => {
    const last = i === definition.tools.length - 1;
    const branch = `${indent}${last ? "└─ " : "├─ "}`;
    if (tool.type === "skill") lines.push(`${branch}${tool.name}`);
    else if (shownAgents.has(tool.definition))
      lines.push(
        `${branch}${tool.name} → agent ${tool.definition.name} (${relative(cwd, tool.file)}; tools shown above)`,
      );
    else {
      lines.push(`${branch}${tool.name} → agent ${tool.definition.name} (${relative(cwd, tool.file)})`);
      lines.push(...agentTree(tool.definition, cwd, `${indent}${last ? "   " : "│  "}`, shownAgents));
    }
  });
  return lines;
}

/** What `agent inspect` shows, as its `--json` document. */
async function agentReport(io: CliIO, file: string, options: AgentInspectOptions) {
  const definition = await loadDefinitionForCli(file, options);
  const agent = agentFromDefinition(definition, { model: notRun });
  const spec = options.model ?? definition.model;
  const found = await tokenizer(io, spec);
  const format = "format" in found ? found.format : gemma3ChatFormat;
  const rendered = format.render([
    { role: "system", content: agent.systemPrompt },
    { role: "user", content: "{message}" },
  ]);
  let tokens: { systemPrompt: number; firstPrompt: number; counted: string };
  if ("path" in found) {
    const [systemPrompt, firstPrompt] = await countTokens(found.path, [agent.systemPrompt, rendered]);
    tokens = { systemPrompt, firstPrompt, counted: "the model's tokenizer" };
  } else
    tokens = {
      systemPrompt: estimateTokens(agent.systemPrompt),
      firstPrompt: estimateTokens(rendered),
      counted: `${ESTIMATE_LABEL}; ${found.note}`,
    };
  return {
    name: definition.name,
    description: definition.description ?? null,
    file: definition.path,
    model: spec ?? null,
    soul: definition.soulPath ?? (typeof definition.soul === "string" ? "system_prompt" : null),
    toolsFrom: definition.toolsFrom,
    tools: definition.tools.map((t) => toolEntry(t, definition, agent.registry.jsonSchema(t.name))),
    handoffs: definition.handoffs,
    tree: [definition.name, ...agentTree(definition, io.cwd)],
    loopPolicy: definition.loopPolicy,
    memory: definition.memory ?? null,
    outputSchema: definition.outputSchema ?? null,
    constraints: definition.constraints ?? null,
    tokens: {
      ...tokens,
      budget: definition.memory?.tokenBudget ?? null,
      contextSize: "contextSize" in found ? found.contextSize : null,
    },
    systemPrompt: agent.systemPrompt,
  };
}

/** `12 of the 3000-token budget`, `of the 8192-token context`, joined. */
function against(report: Awaited<ReturnType<typeof agentReport>>): string {
  const { tokens } = report;
  const parts = [
    tokens.budget !== null
      ? `${Math.round((100 * tokens.firstPrompt) / tokens.budget)}% of the ${tokens.budget}-token memory budget`
      : "",
    tokens.contextSize !== null
      ? `${Math.round((100 * tokens.firstPrompt) / tokens.contextSize)}% of the ${tokens.contextSize}-token context`
      : "",
  ].filter(Boolean);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/** The report as text. */
function agentText(report: Awaited<ReturnType<typeof agentReport>>): string {
  const { loopPolicy: loop, tokens } = report;
  const lines = [
    `agent         ${report.name}${report.description ? `: ${report.description}` : ""}`,
    `file          ${report.file}`,
    `model         ${report.model ?? "(none: the catalog default, or --model)"}`,
    `soul          ${report.soul ?? "(the default soul)"}`,
    `loop policy   max_iterations ${loop.maxIterations ?? "(the model's budget)"}, max_retries ${loop.maxRetries ?? "(the model's budget)"}, on_max_iterations ${loop.onMaxIterations}, final_round_without_tools ${loop.finalRoundWithoutTools ?? "(default: true)"}`,
    `memory        ${report.memory ? `conversation, token budget ${report.memory.tokenBudget ?? "(the context)"}, ${report.memory.trimPolicy}` : "(none: a conversation fills the context)"}`,
    `output schema ${report.outputSchema ? JSON.stringify(report.outputSchema) : "(none: the answer is text)"}`,
    `constraints   ${report.constraints ? JSON.stringify(report.constraints) : "(none)"}`,
    `tokens        system prompt ${tokens.systemPrompt}, first prompt ${tokens.firstPrompt}${against(report)}; counted with ${tokens.counted}`,
    "",
    `tools (from ${report.toolsFrom === "definition" ? "the definition" : report.toolsFrom === "soul" ? "the soul's ## Tools" : "the registry: every skill"}):`,
    ...report.tools.map(
      (t) =>
        `  ${t.name}${t.type === "agent" ? ` (agent ${(t as { agent?: string }).agent})` : ""}: ${t.description}\n    arguments: ${JSON.stringify(t.arguments)}`,
    ),
    "",
    "agents:",
    ...report.tree.map((line) => `  ${line}`),
    "",
    "system prompt:",
    report.systemPrompt,
  ];
  return `${lines.join("\n")}\n`;
}

/** `gemma-agent agent inspect AGENT.yaml [--model M] [--json]`: what the definition builds, without running it. */
const agentCommand: CommandFactory = (io: CliIO) => {
  const inspect = new Command("inspect")
    .description(
      "Show what an agent definition builds: tools and their argument schemas, nested agents as a tree, loop policy, memory budget, output schema, constraints, the system prompt and its token count against the budget and the context",
    )
    .argument("<agent.yaml>", "the agent definition")
    .option("--model <alias|path>", "count tokens with this model's tokenizer (default: the definition's model)")
    .option("--allow-dir <dir>", "make list_files and read_file available, as run --allow-dir does")
    .option("--json", "print one JSON document")
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .action(async (file: string, options: AgentInspectOptions) => {
      const report = await agentReport(io, file, options);
      io.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : agentText(report));
    });
  return new Command("agent")
    .description("Agent definitions (YAML): inspect what one builds")
    .addHelpText("after", `\nExample:\n  ${hint(io, "agent inspect examples/agents/supervisor/agent.yaml")}\n`)
    .addCommand(inspect);
};

export default agentCommand;
