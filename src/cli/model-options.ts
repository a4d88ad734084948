import { Command, Option } from "commander";
import type { LoadModelOptions } from "../model/llama/load-model.js";
import { withoutUndefined } from "../without-undefined.js";
import { inSection, SECTION } from "./help-sections.js";
import { parseIntegerOption, parseNumberOption } from "./parse-options.js";

/** The flags that tune a model (`--gpu`, `--threads`, ...) as commander parses them, in every command that has them. */
export interface ModelCommandOptions {
  gpu?: string;
  threads?: number;
  contextSize?: number;
  seed?: number;
  temperature?: number;
  /** `--no-jump-forward` sets it false. */
  jumpForward?: boolean;
  /** `--no-candidate-sampling` sets it false. */
  candidateSampling?: boolean;
  /** `--no-speculation` sets it false. */
  speculation?: boolean;
  /** `--no-prompt-cache` sets it false. */
  promptCache?: boolean;
}

/** The same flags as the loader takes them: `ask` loads with them, `eval` passes them to its model process. */
export type ModelFlags = Pick<
  LoadModelOptions,
  | "threads"
  | "contextSize"
  | "seed"
  | "temperature"
  | "jumpForward"
  | "candidateSampling"
  | "speculation"
  | "promptCache"
> & {
  gpu: "auto" | false;
};

/** `--gpu auto|off`: where llama.cpp runs. */
function gpuOption(): Option {
  return new Option("--gpu <mode>", "auto: use a GPU when there is one; off: CPU only")
    .choices(["auto", "off"])
    .default("auto");
}

/**
 * Add the flags that tune how a model runs, the same on every command that loads models (`eval` too): the GPU, threads,
 * context and temperature in the Model section; `--no-jump-forward` (sample the text a grammar forces too) and
 * `--no-candidate-sampling` (llama.cpp's grammar sampler decides every token) and `--no-speculation` (no token is
 * checked in the batch before it), for comparison, among the levers.
 */
export function modelTuningOptions(command: Command): Command {
  inSection(command, SECTION.model, (c) =>
    c
      .addOption(gpuOption())
      .option("--threads <n>", "CPU threads (default: the cores available to this process)", parseIntegerOption(1))
      .option(
        "--context-size <n>",
        "context window in tokens (default: 8192, capped by the model)",
        parseIntegerOption(256),
      )
      .option("--temperature <t>", "sampling temperature, 0 = greedy (default: 0)", parseNumberOption(0, 2)),
  );
  return inSection(command, SECTION.levers, (c) =>
    c
      .option("--no-jump-forward", "sample every token of a constrained reply, even those the grammar forces")
      .option(
        "--no-candidate-sampling",
        "let llama.cpp's grammar sampler pick every constrained token (default: our matcher picks among the top candidates)",
      )
      .option(
        "--no-speculation",
        "decode the tokens jump-forward leaves to the model one by one (default: checked in the batch before them)",
      ),
  );
}

/** Add the flags that choose and tune the model of `ask`, `run` and `chat`. */
export function modelOptions(command: Command): Command {
  inSection(command, SECTION.model, (c) =>
    c.option(
      "--model <alias|path>",
      "a catalog alias (see `gemma-agent models`), a GGUF file, or a model server http(s)://host:port/v1#model-name (default: the catalog default)",
    ),
  );
  return inSection(modelTuningOptions(command), SECTION.model, (c) =>
    c
      .option("--seed <s>", "sampling seed, for reproducible runs", parseIntegerOption(0))
      .option(
        "--no-prompt-cache",
        "prefill the system prompt every time instead of restoring it from ~/.cache/gemma-agent/prompt-cache",
      ),
  );
}

/** The loader's options from the parsed flags (flags not given stay absent). */
export function modelFlags(options: ModelCommandOptions): ModelFlags {
  const { threads, contextSize, seed, temperature } = options;
  return {
    gpu: options.gpu === "off" ? false : "auto",
    ...withoutUndefined({ threads, contextSize, seed, temperature }),
    ...(options.jumpForward === false && { jumpForward: false }),
    ...(options.candidateSampling === false && { candidateSampling: false }),
    ...(options.speculation === false && { speculation: false }),
  };
}
