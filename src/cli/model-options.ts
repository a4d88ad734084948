import { Command, Option } from "commander";
import type { ModelFlags } from "./model-setup.js";
import { parseIntegerOption, parseNumberOption } from "./parse-options.js";

/** The model flags as commander parses them. */
export interface ModelCommandOptions {
  model?: string;
  gpu?: string;
  threads?: number;
  contextSize?: number;
  seed?: number;
  temperature?: number;
}

/** `--gpu auto|off`: where llama.cpp runs. */
export function gpuOption(): Option {
  return new Option("--gpu <mode>", "auto: use a GPU when there is one; off: CPU only")
    .choices(["auto", "off"])
    .default("auto");
}

/** Add the flags that choose and tune the model. */
export function modelOptions(command: Command): Command {
  return command
    .option(
      "--model <alias|path>",
      "a catalog alias (see `gemma-agent models`) or a GGUF file (default: the catalog default)",
    )
    .option("--threads <n>", "CPU threads (default: the cores available to this process)", parseIntegerOption(1))
    .option(
      "--context-size <n>",
      "context window in tokens (default: 8192, capped by the model)",
      parseIntegerOption(256),
    )
    .option("--temperature <t>", "sampling temperature, 0 = greedy (default: 0)", parseNumberOption(0, 2))
    .option("--seed <s>", "sampling seed, for reproducible runs", parseIntegerOption(0));
}

/** The loader's options from the parsed flags. */
export function modelFlags(options: ModelCommandOptions): ModelFlags {
  return {
    ...(options.model !== undefined && { model: options.model }),
    gpu: options.gpu === "off" ? false : "auto",
    ...(options.threads !== undefined && { threads: options.threads }),
    ...(options.contextSize !== undefined && { contextSize: options.contextSize }),
    ...(options.seed !== undefined && { seed: options.seed }),
    ...(options.temperature !== undefined && { temperature: options.temperature }),
  };
}
