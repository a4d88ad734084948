import { readdirSync, statSync, type Dirent } from "node:fs";
import { join, resolve } from "node:path";
import { MODELS_SCAN_DEPTH } from "../defaults.js";

/** A `.gguf` file found under one of the models folders. */
export interface FoundGguf {
  /** The models folder it was found under. */
  root: string;
  /** Absolute path of the file (a symbolic link is not resolved: that is the name the user knows). */
  path: string;
  /** Path relative to `root`, `/`-separated: `lmstudio-community/gemma-3-1b-it-GGUF/gemma-3-1b-it-Q4_K_M.gguf`. */
  relativePath: string;
  /** Last segment of the path. */
  fileName: string;
}

/** Folder names never entered: hidden folders (`.git`, `.locks`) and package trees. */
function skipped(name: string): boolean {
  return name.startsWith(".") || name === "node_modules";
}

/** The entry's type, following a symbolic link (Hugging Face's cache links its snapshot files to blobs). */
function kind(dir: string, entry: Dirent): "file" | "dir" | undefined {
  if (entry.isFile()) return "file";
  if (entry.isDirectory()) return "dir";
  if (!entry.isSymbolicLink()) return undefined;
  try {
    const target = statSync(join(dir, entry.name));
    return target.isFile() ? "file" : target.isDirectory() ? "dir" : undefined;
  } catch {
    return undefined; // a dangling link
  }
}

/**
 * The `.gguf` files in each root folder and its subfolders, up to `maxDepth` folders down (default
 * {@link MODELS_SCAN_DEPTH}: deep enough for LM Studio's `publisher/repo/file.gguf` and Hugging Face's
 * `models--owner--repo/snapshots/<rev>/file.gguf`; the bound also stops a symbolic-link loop). Roots in order, each
 * sorted by path; a file reached twice (a root inside another) is listed once. A missing or unreadable folder gives
 * nothing, never an error: a models folder may not exist yet. Downloads in progress (`.gguf.part`) are not listed.
 */
export function findGgufFiles(roots: readonly string[], maxDepth: number = MODELS_SCAN_DEPTH): FoundGguf[] {
  const found: FoundGguf[] = [];
  const seen = new Set<string>();
  const walk = (root: string, dir: string, prefix: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const type = kind(dir, entry);
      const relativePath = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (type === "file" && entry.name.toLowerCase().endsWith(".gguf")) {
        const path = join(dir, entry.name);
        if (seen.has(path)) continue;
        seen.add(path);
        found.push({ root, path, relativePath, fileName: entry.name });
      } else if (type === "dir" && depth < maxDepth && !skipped(entry.name)) {
        walk(root, join(dir, entry.name), relativePath, depth + 1);
      }
    }
  };
  for (const root of roots) walk(resolve(root), resolve(root), "", 0);
  return found;
}
