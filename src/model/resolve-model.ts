import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { catalogFileFor, findCatalogEntry, loadCatalog, splitModelSpec, type Catalog, type CatalogEntry, type CatalogFile } from "./catalog.js";
import { ModelLoadError } from "./errors.js";
import { modelsDir } from "./models-dir.js";

/** Options of {@link resolveModelFile}. */
export interface ResolveModelOptions {
  /** Where aliases are looked up. Default: {@link modelsDir} (env `GEMMA_AGENT_MODELS`, else `~/.cache/gemma-agent/models`). */
  modelsDir?: string;
  /** Default: the catalog that ships (`models/catalog.json`). */
  catalog?: Catalog;
}

/** A model spec turned into a file path. */
export interface ResolvedModel {
  path: string;
  /** The catalog alias, when the spec was one. */
  alias?: string;
  entry?: CatalogEntry;
  file?: CatalogFile;
  quantization?: string;
}

/**
 * True when a model spec is a file path rather than an alias: absolute, relative (`./`, `../`, `~/`), containing a
 * path separator, or ending in `.gguf`.
 */
export function isModelPath(spec: string): boolean {
  return isAbsolute(spec) || /[\\/]/.test(spec) || spec.startsWith("~") || spec.toLowerCase().endsWith(".gguf");
}

/**
 * Turns what the user typed after `--model` into a file path.
 * - A path is returned as is (a leading `~/` expanded); whether it exists is the loader's check.
 * - An alias (`gemma-4-e2b`, optionally `:Q8_0`; case-insensitive) maps to its catalog file in the models directory,
 *   the entry's default quantization when none is given.
 *
 * Throws `ModelLoadError("not_found")` for an unknown alias or quantization (the message lists the known ones) and
 * for an alias that is not downloaded yet (the message says `run: gemma-agent pull <alias>`).
 */
export function resolveModelFile(spec: string, options: ResolveModelOptions = {}): ResolvedModel {
  const trimmed = spec.trim();
  if (trimmed === "") throw new ModelLoadError("not_found", "No model given: pass a path to a .gguf file or a catalog alias.");
  if (isModelPath(trimmed)) return { path: expandHome(trimmed) };

  const catalog = options.catalog ?? loadCatalog();
  const [alias, quantization] = splitModelSpec(trimmed);
  const entry = findCatalogEntry(alias, catalog);
  if (!entry) {
    const known = catalog.models.map((candidate) => candidate.alias).join(", ");
    throw new ModelLoadError(
      "not_found",
      `Unknown model "${trimmed}": it is neither a path to a .gguf file nor a catalog alias (known: ${known}).`,
    );
  }
  const file = catalogFileFor(entry, quantization);
  if (!file) {
    const known = entry.files.map((candidate) => candidate.quantization).join(", ");
    throw new ModelLoadError("not_found", `Model ${entry.alias} has no ${quantization} file in the catalog (available: ${known}).`);
  }
  const path = join(options.modelsDir ?? modelsDir(), file.fileName);
  const pullSpec = file.quantization === entry.defaultQuantization ? entry.alias : `${entry.alias}:${file.quantization}`;
  if (!existsSync(path)) {
    throw new ModelLoadError(
      "not_found",
      `Model ${pullSpec} is not downloaded (looked for ${path}); run: gemma-agent pull ${pullSpec}`,
      path,
    );
  }
  return { path, alias: entry.alias, entry, file, quantization: file.quantization };
}

function expandHome(path: string): string {
  return path === "~" || path.startsWith("~/") ? join(homedir(), path.slice(1)) : path;
}
