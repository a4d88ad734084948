import { resolve } from "node:path";
import { Command } from "commander";
import { Agent } from "../../agent/agent.js";
import { loopOptions, loopSettings, type LoopCommandOptions } from "../loop-options.js";
import { inSection, SECTION, sectionedHelp } from "../help-sections.js";
import { budgetsFor, catalogModelFor, defaultModelAlias, type ModelBudgets } from "../../model/catalog.js";
import { ModelLoadError } from "../../model/errors.js";
import { readGgufHeader } from "../../model/gguf/gguf-header.js";
import { DEFAULT_CONTEXT_SIZE } from "../../model/llama/defaults.js";
import type { ModelHandle } from "../../model/model-handle.js";
import { modelsDirs } from "../../model/models-dir.js";
import { resolveModelFile } from "../../model/resolve-model.js";
import { chatFormatForArchitecture, gemma3ChatFormat } from "../../prompt/chat-format.js";
import { hint, type CliIO } from "../cli-io.js";
import { countTokens } from "../inspect-tokens.js";
import { budgetsForModel, scriptedReplies } from "../model-setup.js";
import { parseCliModelSpec } from "../model-spec.js";
import { DIALECTS, openAICompatibleModel, type OpenAICompatibleModel } from "../../model/http/index.js";
import { modelSpecWithServer, serverModelOptions, serverOptions, type ServerCommandOptions } from "../server-model.js";
import { parseListOption } from "../parse-options.js";
import type { CommandFactory } from "../command.js";
import { selectSkills } from "../skill-selection.js";
import { withoutUndefined } from "../../without-undefined.js";

/** A handle that is never called: inspect renders prompts without running the model. */
const notRun: ModelHandle = { generate: () => Promise.reject(new Error("inspect does not run the model")) };

/** What inspect knows of the model: from its GGUF header, from the catalog alone, or nothing (scripted replies). */
interface ModelView {
  path: string | null;
  alias: string | null;
  name: string | null;
  architecture: string;
  quantization: string | null;
  trainedContextLength: number | null;
  budgets: ModelBudgets;
  /** Where the description comes from. */
  source: "gguf" | "catalog" | "script" | "server";
  /** A model on a server: the connected handle (it counts tokens on llama-server, and renders the prompt). */
  server?: OpenAICompatibleModel;
  /** Why there are no token counts, when there are none. */
  noTokens?: string;
}

/**
 * The model as far as it can be known without a download: a GGUF's header when the file is there; a catalog alias
 * that is not downloaded is described from the catalog; `script:` replies have no model at all.
 */
async function viewModel(io: CliIO, spec: string | undefined, options: InspectOptions): Promise<ModelView> {
  const wanted = spec ?? defaultModelAlias();
  const parsed = parseCliModelSpec(wanted);
  if (parsed.kind === "server") return viewServerModel(io, parsed.url, options);
  if (parsed.kind === "script") {
    const path = resolve(io.cwd, parsed.path);
    scriptedReplies(path); // a bad file is reported here, as `ask` would
    return {
      path,
      alias: null,
      name: "scripted replies",
      architecture: "scripted",
      quantization: null,
      trainedContextLength: null,
      budgets: budgetsFor("scripted"),
      source: "script",
      noTokens: "scripted replies have no tokenizer",
    };
  }
  try {
    const resolved = resolveModelFile(wanted, { modelsDirs: modelsDirs(io.env), cwd: io.cwd });
    // a file that is not a readable GGUF throws GgufHeaderError: a setup error, printed as one line
    const header = await readGgufHeader(resolved.path);
    const architecture = header.architecture ?? "unknown";
    return {
      path: resolved.path,
      alias: resolved.alias ?? null,
      name: header.name ?? null,
      architecture,
      quantization: header.quantization,
      trainedContextLength: header.contextLength ?? null,
      budgets: budgetsForModel(resolved, architecture),
      source: "gguf",
    };
  } catch (error) {
    if (!(error instanceof ModelLoadError) || error.code !== "not_found") throw error;
    const known = catalogModelFor(wanted);
    if (!known) throw error;
    const { entry, file } = known;
    return {
      path: null,
      alias: entry.alias,
      name: entry.name,
      architecture: entry.architecture,
      quantization: file.quantization,
      trainedContextLength: entry.contextLength,
      budgets: budgetsFor(entry),
      source: "catalog",
      noTokens: `${wanted} is not downloaded (run: ${hint(io, `pull ${wanted}`)})`,
    };
  }
}

/** A model on a server, as the server describes it (connected to: dialect, models, llama-server's context). */
async function viewServerModel(io: CliIO, spec: string, options: InspectOptions): Promise<ModelView> {
  const server = openAICompatibleModel(serverModelOptions(spec, options, io.env));
  const info = await server.connect(io.signal);
  const counts = DIALECTS[info.dialect === "auto" ? "openai" : info.dialect].rawCompletion;
  return {
    path: spec,
    alias: null,
    name: info.name,
    architecture: info.architecture,
    quantization: null,
    trainedContextLength: info.contextLength || null,
    budgets: budgetsFor(info.architecture),
    source: "server",
    server,
    ...(!counts && { noTokens: `a ${info.dialect} server cannot count tokens (llama-server can)` }),
  };
}

/** The flags of `inspect`. */
type InspectOptions = ServerCommandOptions & {
  model?: string;
  skills?: string[];
  allowDir?: string;
  grammar: boolean;
  json?: boolean;
} & LoopCommandOptions;

/** Token counts of the system prompt and the first step's prompt, or why there are none. */
async function tokenCounts(
  model: ModelView,
  prompts: [systemPrompt: string, renderedPrompt: string],
): Promise<{ tokens: { systemPrompt: number; renderedPrompt: number } | null; note?: string }> {
  const server = model.server;
  if ((model.source !== "gguf" && !server) || !model.path || model.noTokens)
    return { tokens: null, ...withoutUndefined({ note: model.noTokens }) };
  try {
    const [systemPrompt, renderedPrompt] = server
      ? await Promise.all(prompts.map((p) => server.countTokens(p)))
      : await countTokens(model.path, prompts);
    return { tokens: { systemPrompt, renderedPrompt } };
  } catch (error) {
    return { tokens: null, note: `the tokenizer could not be loaded (${(error as Error).message})` };
  }
}

/** What inspect shows, as its `--json` document. */
async function inspectReport(io: CliIO, options: InspectOptions) {
  const registry = selectSkills(options);
  const model = await viewModel(io, modelSpecWithServer(options.model, options), options);
  const chatFormat = model.server?.chatFormat ?? chatFormatForArchitecture(model.architecture);
  const agent = new Agent({
    ...loopSettings(options),
    model: notRun,
    registry,
    grammar: options.grammar,
    chatFormat: chatFormat ?? gemma3ChatFormat,
  });
  const rendered = (chatFormat ?? gemma3ChatFormat).render([
    { role: "system", content: agent.systemPrompt },
    { role: "user", content: "{question}" },
  ]);
  const { tokens, note } = await tokenCounts(model, [agent.systemPrompt, rendered]);
  return {
    model: {
      path: model.path,
      alias: model.alias,
      name: model.name,
      architecture: model.architecture,
      quantization: model.quantization,
      trainedContextLength: model.trainedContextLength,
      source: model.source,
    },
    contextSize:
      model.source === "server"
        ? model.trainedContextLength
        : Math.min(DEFAULT_CONTEXT_SIZE, model.trainedContextLength ?? DEFAULT_CONTEXT_SIZE),
    server: model.server?.info,
    chatFormat:
      (model.server?.chatFormat.name === "messages" ? "messages (the server applies its chat template)" : undefined) ??
      chatFormat?.name ??
      (model.source === "script"
        ? "gemma3 (the agent's default for a model without its own)"
        : "the model's own template (through node-llama-cpp)"),
    budgets: model.budgets,
    grammar: options.grammar,
    tokens,
    ...(note && { tokensNote: `token counts not shown: ${note}` }),
    skills: registry
      .list()
      .map((s) => ({ name: s.name, description: s.description, arguments: registry.jsonSchema(s.name) })),
    systemPrompt: agent.systemPrompt,
    renderedPrompt: rendered,
    actionJsonSchema: agent.actionJsonSchema ?? null,
  };
}

/** The report as text: one line per setting, the skills with their argument schemas, then the rendered prompt. */
function inspectText(report: Awaited<ReturnType<typeof inspectReport>>): string {
  const { model, tokens } = report;
  const described = [model.architecture, model.quantization, model.name].filter((x) => x).join(", ");
  const out: string[] = [
    `model         ${model.alias ?? model.path} (${described})`,
    report.server
      ? `server        ${report.server.dialect} at ${report.server.baseURL} (${report.server.detectedBy})`
      : `file          ${model.path ?? "(not downloaded: described from the catalog)"}`,
    `context       ${report.contextSize ?? "?"} tokens${model.source === "script" || model.source === "server" ? "" : ` (trained for ${model.trainedContextLength ?? "?"})`}`,
    `chat format   ${report.chatFormat}`,
    `budgets       maxIterations ${report.budgets.maxIterations}, maxRetries ${report.budgets.maxRetries}`,
    `grammar       ${report.grammar ? "on (actions constrained to the action JSON schema)" : "off"}`,
    `tokens        ${tokens ? `system prompt ${tokens.systemPrompt}, first-step prompt ${tokens.renderedPrompt} (this model's tokenizer)` : (report.tokensNote ?? "")}`,
    "",
    "skills:",
    ...report.skills.map((s) => `  ${s.name}: ${s.description}\n    arguments: ${JSON.stringify(s.arguments)}`),
    "",
    "rendered prompt of the first step ({question} stands for the question):",
    report.renderedPrompt,
  ];
  return `${out.join("\n")}\n`;
}

/**
 * `gemma-agent inspect [--model M] [--skills ...] [--json]`: what a run would use, from the prompt to the token counts,
 * without running the model.
 */
const inspectCommand: CommandFactory = (io: CliIO) =>
  sectionedHelp(
    serverOptions(
      loopOptions(
        inSection(new Command("inspect"), SECTION.model, (c) =>
          c.option(
            "--model <alias|path>",
            "a catalog alias, a GGUF file, script:FILE.json, or a server http(s)://host:port/v1#model (default: the catalog default)",
          ),
        ),
      ),
    ),
  )
    .description(
      "Show what a run would use: skills and their argument schemas, budgets, chat format, context, the exact system prompt and its token count. Needs no download: without the model file, everything but the token counts.",
    )
    .optionsGroup(SECTION.run)
    .option("--skills <names>", "only these skills, comma-separated", parseListOption)
    .option("--allow-dir <dir>", "include list_files and read_file, confined to this folder")
    .optionsGroup(SECTION.output)
    .option("--json", "print one JSON document")
    .addHelpText(
      "after",
      `\nExamples:\n  ${hint(io, "inspect --skills calculator,convert_units")}\n  ${hint(io, "inspect --prompt-style compact --thought none")}   (the prompt a small model gets with those flags)\n`,
    )
    .action(async (options: InspectOptions) => {
      const report = await inspectReport(io, options);
      io.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : inspectText(report));
    });

export default inspectCommand;
