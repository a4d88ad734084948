import { existsSync, statSync } from "node:fs";
import { extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** Extensions of TypeScript modules (loaded through tsx) and of JavaScript modules (loaded by Node itself). */
const TYPESCRIPT = new Set([".ts", ".mts", ".cts", ".tsx"]);
const JAVASCRIPT = new Set([".js", ".mjs", ".cjs"]);

/** Whether `path` names a module this process can load (by its extension): a workflow file, not a definition. */
export function isModulePath(path: string): boolean {
  const ext = extname(path).toLowerCase();
  return TYPESCRIPT.has(ext) || JAVASCRIPT.has(ext);
}

/** tsx's loader, when it is installed (a development dependency here; in a user's project, theirs). */
async function tsxImport(): Promise<((specifier: string, parent: string) => Promise<unknown>) | undefined> {
  const specifier = "tsx/esm/api"; // a variable: no compile-time dependency on a development package
  try {
    const api = (await import(specifier)) as { tsImport?: (s: string, p: string) => Promise<unknown> };
    return api.tsImport;
  } catch {
    return undefined;
  }
}

/**
 * Load the module at `path` (resolved against `cwd`): JavaScript with Node's `import()`, TypeScript through tsx (which
 * must be installed). Returns its namespace. Throws an Error with a message for people: a missing file, an extension
 * that is no module, TypeScript without tsx, or the module's own error while loading.
 */
export async function importModuleFile(path: string, cwd = process.cwd()): Promise<Record<string, unknown>> {
  const file = resolve(cwd, path);
  if (!existsSync(file) || !statSync(file).isFile()) throw new Error(`${path}: no such file`);
  if (!isModulePath(file)) throw new Error(`${path}: not a module (.ts, .mts, .js or .mjs)`);
  const url = pathToFileURL(file).href;
  try {
    if (JAVASCRIPT.has(extname(file).toLowerCase())) return (await import(url)) as Record<string, unknown>;
    const load = await tsxImport();
    if (!load)
      throw new Error("loading TypeScript needs tsx (npm install --save-dev tsx), or compile the file to .js first");
    return (await load(url, import.meta.url)) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`${path}: ${(error as Error).message.split("\n")[0]}`, { cause: error });
  }
}
