import { Command } from "commander";
import { loadCatalog } from "../../model/catalog.js";
import {
  catalogDownloadStatus,
  listLocalModels,
  modelsDir,
  modelsDirs,
  type LocalModel,
} from "../../model/models-dir.js";
import { hint, type CliIO } from "../cli-io.js";
import { textTable } from "../../text-table.js";
import { formatBytes } from "../format.js";
import type { CommandFactory } from "../command.js";

/** The note column of a local file: unusable, the catalog file it is, or what it is named like but is not. */
function note(model: LocalModel): string {
  if (model.error) return `unusable: ${model.error}`;
  if (model.catalog && model.mismatch)
    return `named like ${model.catalog.alias}:${model.catalog.quantization}, but ${model.mismatch}`;
  if (model.catalog) return `= ${model.catalog.alias}:${model.catalog.quantization}`;
  return "";
}

const modelsCommand: CommandFactory = (io: CliIO) =>
  new Command("models")
    .description(
      "List the catalog of known Gemma models and the GGUF files in the models folders (and their subfolders).",
    )
    .option("--json", "print one JSON document")
    .addHelpText(
      "after",
      `\nExample:\n  ${hint(io, "models")}\n\nGEMMA_AGENT_MODELS may name several folders (separated by "${process.platform === "win32" ? ";" : ":"}"), e.g. LM Studio's; pulls go to the first.\n`,
    )
    .action(async (options: { json?: boolean }) => {
      const dirs = modelsDirs(io.env);
      const catalog = loadCatalog();
      const status = catalogDownloadStatus(dirs, catalog);
      const local = await listLocalModels(dirs, catalog);
      if (options.json) {
        io.stdout.write(
          `${JSON.stringify({ modelsDir: modelsDir(io.env), modelsDirs: dirs, default: catalog.default, catalog: catalog.models.map((m) => ({ ...m, status: status.filter((s) => s.alias === m.alias) })), local }, null, 2)}\n`,
        );
        return;
      }
      const rows = status.map((s) => {
        const entry = catalog.models.find((m) => m.alias === s.alias)!;
        const spec = `${s.alias}:${s.quantization}`;
        return [
          spec === catalog.default ? `${spec} *` : spec,
          entry.name,
          formatBytes(s.sizeBytes),
          `${Math.round(entry.contextLength / 1024)}K`,
          s.state === "partial" ? `partial (${formatBytes(s.localBytes)}; pull again to resume)` : s.state,
        ];
      });
      io.stdout.write(`Catalog (* = default; download with: ${hint(io, "pull ALIAS[:QUANT]")})\n`);
      io.stdout.write(`${textTable(["model", "name", "size", "context", "status"], rows)}\n`);
      for (const dir of dirs) {
        const here = local.filter((m) => m.dir === dir);
        io.stdout.write(
          `\nGGUF files in ${dir}${dir === dirs[0] ? " (pulls go here)" : ""}; use one with --model FILE\n`,
        );
        if (here.length === 0) io.stdout.write("(none)\n");
        else {
          const files = here.map((m) => [
            m.relativePath,
            m.architecture ?? "?",
            m.quantization ?? "?",
            formatBytes(m.sizeBytes),
            note(m),
          ]);
          io.stdout.write(`${textTable(["file", "architecture", "quantization", "size", "note"], files)}\n`);
        }
      }
    });

export default modelsCommand;
