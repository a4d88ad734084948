import { existsSync, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { findCatalogFile, loadCatalog, type Catalog } from "./catalog.js";
import { catalogMismatch } from "./catalog-mismatch.js";
import { DEFAULT_MODELS_SUBDIR, MODELS_DIR_ENV, PART_SUFFIX } from "./defaults.js";
import { findGgufFiles, type FoundGguf } from "./gguf/find-gguf-files.js";
import { readGgufHeader } from "./gguf/gguf-header.js";

/**
 * The models folders, in order: env `GEMMA_AGENT_MODELS` when set (one folder, or several separated by the path
 * delimiter, `:` or `;` on Windows; each resolved against the working directory), else `~/.cache/gemma-agent/models`.
 * Models are looked up in all of them (and their subfolders); pulls go to the first. A folder may not exist yet.
 */
export function modelsDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const parts = (env[MODELS_DIR_ENV] ?? "")
    .split(delimiter)
    .map((part) => part.trim())
    .filter((part) => part !== "");
  if (parts.length === 0) return [join(homedir(), ...DEFAULT_MODELS_SUBDIR)];
  return [...new Set(parts.map((part) => resolve(expandHome(part))))];
}

/**
 * The folder models are downloaded to: the first of {@link modelsDirs} (env `GEMMA_AGENT_MODELS`, else
 * `~/.cache/gemma-agent/models`). It may not exist yet; `pullModel` creates it.
 */
export function modelsDir(env: NodeJS.ProcessEnv = process.env): string {
  return modelsDirs(env)[0];
}

/** `~/x` → the home directory's `x`. */
export function expandHome(path: string): string {
  return path === "~" || path.startsWith("~/") ? join(homedir(), path.slice(1)) : path;
}

/** Folders as the listing functions accept them: one, or several. */
function asList(dirs: string | readonly string[]): readonly string[] {
  return typeof dirs === "string" ? [dirs] : dirs;
}

/** A GGUF file in the models folders, as its header describes it. */
export interface LocalModel {
  path: string;
  /** The file's own name (last path segment). */
  fileName: string;
  /** Path below its models folder, `/`-separated (`publisher/repo/file.gguf` in LM Studio's folder). */
  relativePath: string;
  /** The models folder it was found in. */
  dir: string;
  /** Size of the file on disk. */
  sizeBytes: number;
  architecture?: string;
  /** `general.name` from the header. */
  name?: string;
  /** From `general.file_type`, e.g. `Q4_K_M`; `unknown` when the header does not say. */
  quantization?: string;
  contextLength?: number;
  /** The catalog model and quantization this file is (matched by file name), when it is one. */
  catalog?: { alias: string; quantization: string };
  /**
   * Set when the file carries a catalog file's name but its header's quantization or its size says it is something
   * else; names what was expected.
   */
  mismatch?: string;
  /** Set when the header could not be read (not a GGUF, truncated, corrupt, unreadable): the file is unusable. */
  error?: string;
}

/**
 * The `.gguf` files in the models folders and their subfolders (default {@link modelsDirs}), folder by folder, each
 * sorted by path, with what its header says. Never throws for a bad file: a file that is not a readable GGUF gets an
 * `error` field. A missing folder gives nothing. Downloads in progress (`.part`) are not listed; see
 * {@link catalogDownloadStatus}.
 */
export async function listLocalModels(
  dirs: string | readonly string[] = modelsDirs(),
  catalog: Catalog = loadCatalog(),
): Promise<LocalModel[]> {
  const models: LocalModel[] = [];
  for (const found of findGgufFiles(asList(dirs))) {
    const info = await stat(found.path).catch(() => undefined);
    if (!info?.isFile()) continue;
    const model: LocalModel = {
      path: found.path,
      fileName: found.fileName,
      relativePath: found.relativePath,
      dir: found.root,
      sizeBytes: info.size,
      ...(await describe(found.path)),
    };
    const match = findCatalogFile(found.fileName, catalog);
    if (match) {
      model.catalog = { alias: match.entry.alias, quantization: match.file.quantization };
      const mismatch = model.error ? undefined : catalogMismatch(model, match.entry, match.file);
      if (mismatch) model.mismatch = mismatch;
    }
    models.push(model);
  }
  return models;
}

/** Where a catalog file stands in the models folders. */
export interface CatalogDownloadStatus {
  alias: string;
  quantization: string;
  fileName: string;
  /** Where the file is (in any models folder), or where it will be once pulled (the first folder). */
  path: string;
  /** `partial`: a `.part` from an interrupted pull exists (the next pull resumes it). */
  state: "downloaded" | "partial" | "missing";
  /** Bytes on disk: the whole file, or the `.part` so far; 0 when missing. */
  localBytes: number;
  /** The catalog's approximate size. */
  sizeBytes: number;
}

/**
 * Where a catalog file is: in the download folder (the first), else anywhere in the models folders, matched by file
 * name without regard to case; `undefined` when it is nowhere. `found` may pass a scan already made.
 */
export function findCatalogFileOnDisk(
  fileName: string,
  dirs: readonly string[],
  found?: readonly FoundGguf[],
): string | undefined {
  const direct = join(dirs[0], fileName);
  if (isFile(direct)) return direct;
  const wanted = fileName.toLowerCase();
  return (found ?? findGgufFiles(dirs)).find((f) => f.fileName.toLowerCase() === wanted)?.path;
}

/**
 * Every file of every catalog entry, with whether it is downloaded (in any of the models folders), partly downloaded
 * (a `.part` in the first folder, where pulls write), or missing.
 */
export function catalogDownloadStatus(
  dirs: string | readonly string[] = modelsDirs(),
  catalog: Catalog = loadCatalog(),
): CatalogDownloadStatus[] {
  const list = asList(dirs);
  const found = findGgufFiles(list);
  return catalog.models.flatMap((entry) =>
    entry.files.map((file) => {
      const target = join(list[0], file.fileName);
      const base = {
        alias: entry.alias,
        quantization: file.quantization,
        fileName: file.fileName,
        sizeBytes: file.sizeBytes,
      };
      const path = findCatalogFileOnDisk(file.fileName, list, found);
      if (path) return { ...base, path, state: "downloaded" as const, localBytes: statSync(path).size };
      if (isFile(target + PART_SUFFIX))
        return { ...base, path: target, state: "partial" as const, localBytes: statSync(target + PART_SUFFIX).size };
      return { ...base, path: target, state: "missing" as const, localBytes: 0 };
    }),
  );
}

async function describe(path: string): Promise<Partial<LocalModel>> {
  try {
    const header = await readGgufHeader(path);
    return {
      architecture: header.architecture,
      name: header.name,
      quantization: header.quantization,
      contextLength: header.contextLength,
    };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}
