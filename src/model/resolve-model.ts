import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import {
  findCatalogFile,
  loadCatalog,
  lookupCatalogSpec,
  type Catalog,
  type CatalogEntry,
  type CatalogFile,
} from "./catalog.js";
import { PART_SUFFIX } from "./defaults.js";
import { ModelLoadError } from "./errors.js";
import { findGgufFiles, type FoundGguf } from "./gguf/find-gguf-files.js";
import { expandHome, findCatalogFileOnDisk, modelsDirs } from "./models-dir.js";

/** Options of {@link resolveModelFile}. */
export interface ResolveModelOptions {
  /**
   * The models folders, in order (pulls go to the first). Default: {@link modelsDirs} (env `GEMMA_AGENT_MODELS`, else
   * `~/.cache/gemma-agent/models`).
   */
  modelsDirs?: readonly string[];
  /** One models folder; the same as `modelsDirs: [dir]`. */
  modelsDir?: string;
  /** Default: the catalog that ships (`models/catalog.json`). */
  catalog?: Catalog;
  /** Relative paths are tried against this folder first. Default: `process.cwd()`. */
  cwd?: string;
}

/** A model spec turned into a file path. */
export interface ResolvedModel {
  path: string;
  /** The catalog alias, when the spec was one. */
  alias?: string;
  /** The catalog entry and file: for an alias, or for a file that carries a catalog file's name. */
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

/** An explicit path: absolute, `~`, `./` or `../`. It is never looked up in the models folders. */
function isExplicitPath(spec: string): boolean {
  return isAbsolute(spec) || spec.startsWith("~") || /^\.\.?[\\/]/.test(spec);
}

/** `120 MB` in a message of the model layer. */
function megabytes(bytes: number): string {
  return `${Math.round(bytes / 1e6)} MB`;
}

/**
 * Turns what the user typed after `--model` into a file path.
 * - An explicit path (absolute, `~/`, `./`, `../`) is returned as is (`~/` expanded); whether it exists is the
 *   loader's check.
 * - A relative path or a bare `.gguf` name is the file in the working directory when there is one, else the file of
 *   that path (or name) in the models folders and their subfolders: any file `gemma-agent models` lists is usable by
 *   its name.
 * - An alias (`gemma-4-e2b`, optionally `:Q8_0`; case-insensitive) maps to its catalog file, looked for in every
 *   models folder (the first, then all of them and their subfolders, by file name); the entry's default quantization
 *   when none is given.
 * - Any other name is a file of the models folders named so, with or without `.gguf` (`--model my-own`).
 *
 * Throws `ModelLoadError("not_found")` for an unknown name (the message lists the known aliases), a name two files
 * share (the message lists them), an unknown quantization, and an alias that is not downloaded yet (the message says
 * `run: gemma-agent pull <alias>`, and how much a partial download holds).
 */
export function resolveModelFile(spec: string, options: ResolveModelOptions = {}): ResolvedModel {
  const trimmed = spec.trim();
  if (trimmed === "")
    throw new ModelLoadError("not_found", "No model given: pass a path to a .gguf file or a catalog alias.");
  const catalog = options.catalog ?? loadCatalog();
  const dirs = options.modelsDirs ?? (options.modelsDir !== undefined ? [options.modelsDir] : modelsDirs());
  if (isExplicitPath(trimmed)) return withCatalogFile(expandHome(trimmed), catalog);
  if (isModelPath(trimmed)) {
    const here = resolve(options.cwd ?? process.cwd(), trimmed);
    if (existsSync(here)) return withCatalogFile(here, catalog);
    const local = findLocalFile(trimmed, dirs);
    // not found anywhere: the path as typed, for the loader to report
    return withCatalogFile(local ?? trimmed, catalog);
  }

  const found = lookupCatalogSpec(trimmed, catalog);
  if ("missing" in found && found.missing === "quantization") throw new ModelLoadError("not_found", found.message);
  if ("missing" in found) {
    const local = found.quantization === undefined ? findLocalFile(trimmed, dirs) : undefined;
    if (local) return withCatalogFile(local, catalog);
    throw new ModelLoadError(
      "not_found",
      `Unknown model "${trimmed}": it is neither a catalog alias (known: ${found.knownAliases}) nor a .gguf file in the models folders (${dirs.join(", ")}); see gemma-agent models.`,
    );
  }
  const { entry, file } = found;
  const path = findCatalogFileOnDisk(file.fileName, dirs);
  if (path) return { path, alias: entry.alias, entry, file, quantization: file.quantization };
  const target = join(dirs[0], file.fileName);
  const pullSpec =
    file.quantization === entry.defaultQuantization ? entry.alias : `${entry.alias}:${file.quantization}`;
  const partBytes = partialBytes(target);
  throw new ModelLoadError(
    "not_found",
    partBytes !== undefined
      ? `Model ${pullSpec} is partly downloaded (${megabytes(partBytes)} of about ${megabytes(file.sizeBytes)} in ${target}${PART_SUFFIX}); run: gemma-agent pull ${pullSpec} to resume`
      : `Model ${pullSpec} is not downloaded (looked for ${target}); run: gemma-agent pull ${pullSpec}`,
    target,
  );
}

/** Bytes of the `.part` an interrupted pull left for `target`; `undefined` when there is none. */
export function partialBytes(target: string): number | undefined {
  try {
    const info = statSync(target + PART_SUFFIX);
    return info.isFile() ? info.size : undefined;
  } catch {
    return undefined;
  }
}

/** The resolved path, with the catalog file it is named like (for budgets and the mismatch check). */
function withCatalogFile(path: string, catalog: Catalog): ResolvedModel {
  const name = path.split(/[\\/]/).pop() ?? path;
  const match = findCatalogFile(name, catalog);
  return match ? { path, entry: match.entry, file: match.file, quantization: match.file.quantization } : { path };
}

/**
 * The file of the models folders that `name` names: a path below a folder (`publisher/repo/file.gguf`), or a file name
 * with or without `.gguf`, matched without regard to case. Throws when two files share the name.
 */
function findLocalFile(name: string, dirs: readonly string[]): string | undefined {
  const found = findGgufFiles(dirs);
  const wanted = name.replace(/\\/g, "/").toLowerCase();
  const names = wanted.endsWith(".gguf") ? [wanted] : [wanted, `${wanted}.gguf`];
  const byPath = found.filter((f) => names.includes(f.relativePath.toLowerCase()));
  if (byPath.length > 0) return byPath[0].path;
  const byName = found.filter((f) => names.includes(f.fileName.toLowerCase()));
  if (byName.length > 1) throw ambiguous(name, byName);
  return byName[0]?.path;
}

function ambiguous(name: string, files: readonly FoundGguf[]): ModelLoadError {
  return new ModelLoadError(
    "not_found",
    `Several files in the models folders are named ${name}: ${files.map((f) => f.path).join(", ")}; pass the path of the one you mean.`,
  );
}
