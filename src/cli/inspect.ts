import { Command } from "commander";
import { Agent } from "../agent/agent.js";
import { readGgufHeader } from "../model/gguf-header.js";
import { ModelLoadError } from "../model/errors.js";
import { chatFormatForArchitecture, gemma3ChatFormat } from "../prompt/chat-format.js";
import { DEFAULT_CONTEXT_SIZE } from "../model/llama/defaults.js";
import type { ModelHandle } from "../model/model-handle.js";
import type { CliIO } from "./cli-io.js";
import { budgetsForModel, resolveModelForCli } from "./model-setup.js";
import { parseListOption } from "./parse-options.js";
import type { CommandFactory } from "./program.js";
import { Progress } from "./progress.js";
import { selectSkills } from "./skill-selection.js";

/** A handle that is never called: inspect renders prompts without running the model. */
const notRun: ModelHandle = { generate: () => Promise.reject(new Error("inspect does not run the model")) };

const inspectCommand: CommandFactory = (io: CliIO) =>
  new Command("inspect")
    .description("Show what a run would use: skills and their argument schemas, budgets, chat format, context, and the exact system prompt.")
    .option("--model <alias|path>", "a catalog alias or a GGUF file (default: the catalog default)")
    .option("--skills <names>", "only these skills, comma-separated", parseListOption)
    .option("--allow-dir <dir>", "include list_files and read_file, confined to this folder")
    .option("--no-grammar", "show the setup without the action grammar")
    .option("--json", "print one JSON document")
    .addHelpText("after", "\nExample:\n  gemma-agent inspect --model gemma-3-1b --skills calculator,convert_units\n")
    .action(async (options: { model?: string; skills?: string[]; allowDir?: string; grammar: boolean; json?: boolean }) => {
      const registry = selectSkills(options);
      const resolved = await resolveModelForCli(io, options.model, new Progress(io, { quiet: true }));
      let header;
      try {
        header = await readGgufHeader(resolved.path);
      } catch (error) {
        throw new ModelLoadError("corrupt", `${resolved.path} is not a readable GGUF file (${(error as Error).message})`, resolved.path);
      }
      const architecture = header.architecture ?? "unknown";
      const chatFormat = chatFormatForArchitecture(architecture);
      const agent = new Agent({ model: notRun, registry, grammar: options.grammar, chatFormat: chatFormat ?? gemma3ChatFormat });
      const budgets = budgetsForModel(resolved, architecture);
      const rendered = (chatFormat ?? gemma3ChatFormat).render([{ role: "system", content: agent.systemPrompt }, { role: "user", content: "{question}" }]);
      const report = {
        model: { path: resolved.path, alias: resolved.alias ?? null, name: header.name ?? null, architecture, quantization: header.quantization, trainedContextLength: header.contextLength ?? null },
        contextSize: Math.min(DEFAULT_CONTEXT_SIZE, header.contextLength ?? DEFAULT_CONTEXT_SIZE),
        chatFormat: chatFormat?.name ?? "the model's own template (through node-llama-cpp)",
        budgets,
        grammar: options.grammar,
        skills: registry.list().map((s) => ({ name: s.name, description: s.description, arguments: registry.jsonSchema(s.name) })),
        systemPrompt: agent.systemPrompt,
        renderedPrompt: rendered,
      };
      if (options.json) {
        io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        return;
      }
      const out: string[] = [
        `model         ${report.model.alias ?? report.model.path} (${architecture}, ${header.quantization}${header.name ? `, ${header.name}` : ""})`,
        `file          ${resolved.path}`,
        `context       ${report.contextSize} tokens (trained for ${header.contextLength ?? "?"})`,
        `chat format   ${report.chatFormat}`,
        `budgets       maxIterations ${budgets.maxIterations}, maxRetries ${budgets.maxRetries}`,
        `grammar       ${options.grammar ? "on (actions constrained to the action JSON schema)" : "off"}`,
        "",
        "skills:",
        ...report.skills.map((s) => `  ${s.name}: ${s.description}\n    arguments: ${JSON.stringify(s.arguments)}`),
        "",
        "rendered prompt of the first step ({question} stands for the question):",
        rendered,
      ];
      io.stdout.write(`${out.join("\n")}\n`);
    });

export default inspectCommand;
