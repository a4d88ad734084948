import { existsSync, statSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { findCatalogFile, loadCatalog, type Catalog } from "./catalog.js";
import { DEFAULT_MODELS_SUBDIR, MODELS_DIR_ENV, PART_SUFFIX } from "./constants.js";
import { readGgufHeader } from "./gguf-header.js";

/**
 * The directory models are downloaded to and looked up in: env `GEMMA_AGENT_MODELS` when set (resolved against the
 * working directory), else `~/.cache/gemma-agent/models`. The directory may not exist yet; `pullModel` creates it.
 */
export function modelsDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env[MODELS_DIR_ENV]?.trim();
  return fromEnv ? resolve(fromEnv) : join(homedir(), ...DEFAULT_MODELS_SUBDIR);
}

/** A GGUF file in the models directory, as its header describes it. */
export interface LocalModel {
  path: string;
  fileName: string;
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
  /** Set when the header could not be read (not a GGUF, truncated, corrupt, unreadable): the file is unusable. */
  error?: string;
}

/**
 * The `.gguf` files directly in `dir` (default {@link modelsDir}), sorted by name, each with what its header says.
 * Never throws for a bad file: a file that is not a readable GGUF gets an `error` field. A missing directory gives `[]`.
 * Downloads in progress (`.part`) are not listed; see {@link catalogDownloadStatus}.
 */
export async function listLocalModels(dir: string = modelsDir(), catalog: Catalog = loadCatalog()): Promise<LocalModel[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const ggufNames = names.filter((name) => name.toLowerCase().endsWith(".gguf")).sort();
  const models: LocalModel[] = [];
  for (const fileName of ggufNames) {
    const path = join(dir, fileName);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) continue;
    models.push({ path, fileName, sizeBytes: info.size, ...catalogMatch(fileName, catalog), ...(await describe(path)) });
  }
  return models;
}

/** Where a catalog file stands in the models directory. */
export interface CatalogDownloadStatus {
  alias: string;
  quantization: string;
  fileName: string;
  /** Where the file is, or will be once pulled. */
  path: string;
  /** `partial`: a `.part` from an interrupted pull exists (the next pull resumes it). */
  state: "downloaded" | "partial" | "missing";
  /** Bytes on disk: the whole file, or the `.part` so far; 0 when missing. */
  localBytes: number;
  /** The catalog's approximate size. */
  sizeBytes: number;
}

/** Every file of every catalog entry, with whether it is downloaded, partly downloaded, or missing in `dir`. */
export function catalogDownloadStatus(dir: string = modelsDir(), catalog: Catalog = loadCatalog()): CatalogDownloadStatus[] {
  return catalog.models.flatMap((entry) =>
    entry.files.map((file) => {
      const path = join(dir, file.fileName);
      const base = { alias: entry.alias, quantization: file.quantization, fileName: file.fileName, path, sizeBytes: file.sizeBytes };
      if (isFile(path)) return { ...base, state: "downloaded" as const, localBytes: statSync(path).size };
      if (isFile(path + PART_SUFFIX)) return { ...base, state: "partial" as const, localBytes: statSync(path + PART_SUFFIX).size };
      return { ...base, state: "missing" as const, localBytes: 0 };
    }),
  );
}

function catalogMatch(fileName: string, catalog: Catalog): Pick<LocalModel, "catalog"> {
  const match = findCatalogFile(fileName, catalog);
  return match ? { catalog: { alias: match.entry.alias, quantization: match.file.quantization } } : {};
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
