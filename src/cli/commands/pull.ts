import { Command } from "commander";
import { pullModel } from "../../model/download/pull-model.js";
import { modelsDir } from "../../model/models-dir.js";
import { hint, type CliIO } from "../cli-io.js";
import { formatBytes } from "../format.js";
import { describePull } from "../model-setup.js";
import type { CommandFactory } from "../command.js";
import { Progress } from "../progress.js";

const pullCommand: CommandFactory = (io: CliIO) =>
  new Command("pull")
    .description("Download a model into the models directory (resumes an interrupted download).")
    .argument(
      "<source>",
      "a catalog alias (gemma-4-e2b, gemma-3-1b:Q8_0), an hf:owner/repo/file.gguf URI, or an https URL",
    )
    .option("--force", "download again even if the file is there")
    .option("--quiet", "no progress on stderr")
    .addHelpText(
      "after",
      [
        "",
        "Examples:",
        `  ${hint(io, "pull gemma-3-270m")}          (the smallest catalog model, about 290 MB)`,
        `  ${hint(io, "pull gemma-4-e2b")}`,
        `  ${hint(io, "pull hf:ggml-org/gemma-3-1b-it-GGUF/gemma-3-1b-it-Q4_K_M.gguf")}`,
        "",
        "HF_TOKEN: a Hugging Face access token, for gated models (sent to Hugging Face only).",
        "GEMMA_AGENT_DOWNLOAD_TIMEOUT: seconds without data before a download gives up (default 60).",
        "",
      ].join("\n"),
    )
    .action(async (source: string, options: { force?: boolean; quiet?: boolean }) => {
      const dir = modelsDir(io.env);
      const progress = new Progress(io, { quiet: options.quiet });
      progress.start(`downloading ${source} to ${dir}`);
      try {
        const result = await pullModel(source, {
          modelsDir: dir,
          env: io.env,
          signal: io.signal,
          force: options.force,
          onProgress: (p) => progress.update(describePull(source, p)),
        });
        progress.succeed(
          result.alreadyPresent
            ? `already downloaded: ${result.path}`
            : `downloaded ${formatBytes(result.bytes)}${result.resumed ? " (resumed)" : ""}`,
        );
        io.stdout.write(`${result.path}\n`);
      } catch (error) {
        progress.fail(`download of ${source} stopped`);
        throw error;
      }
    });

export default pullCommand;
