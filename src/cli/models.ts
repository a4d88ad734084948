import { Command } from "commander";
import { loadCatalog } from "../model/catalog.js";
import { catalogDownloadStatus, listLocalModels, modelsDir } from "../model/models-dir.js";
import type { CliIO } from "./cli-io.js";
import { formatBytes, formatTable } from "./format.js";
import type { CommandFactory } from "./program.js";

const modelsCommand: CommandFactory = (io: CliIO) =>
  new Command("models")
    .description("List the catalog of known Gemma models and the GGUF files in the models directory.")
    .option("--json", "print one JSON document")
    .addHelpText("after", "\nExample:\n  gemma-agent models\n")
    .action(async (options: { json?: boolean }) => {
      const dir = modelsDir(io.env);
      const catalog = loadCatalog();
      const status = catalogDownloadStatus(dir, catalog);
      const local = await listLocalModels(dir, catalog);
      if (options.json) {
        io.stdout.write(`${JSON.stringify({ modelsDir: dir, default: catalog.default, catalog: catalog.models.map((m) => ({ ...m, status: status.filter((s) => s.alias === m.alias) })), local }, null, 2)}\n`);
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
          s.state === "partial" ? `partial (${formatBytes(s.localBytes)})` : s.state,
        ];
      });
      io.stdout.write(`Catalog (* = default; download with: gemma-agent pull ALIAS[:QUANT])\n`);
      io.stdout.write(formatTable(["model", "name", "size", "context", "status"], rows));
      io.stdout.write(`\nGGUF files in ${dir}\n`);
      if (local.length === 0) io.stdout.write("(none)\n");
      else {
        io.stdout.write(formatTable(
          ["file", "architecture", "quantization", "size", "note"],
          local.map((m) => [m.fileName, m.architecture ?? "?", m.quantization ?? "?", formatBytes(m.sizeBytes), m.error ? `unusable: ${m.error}` : m.catalog ? `= ${m.catalog.alias}:${m.catalog.quantization}` : ""]),
        ));
      }
    });

export default modelsCommand;
