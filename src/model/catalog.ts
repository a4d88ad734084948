import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { DEFAULT_BUDGETS } from "./defaults.js";
import { parseHfUri } from "./download/hf-uri.js";

/** Iteration budgets the agent should run a model with (`Agent.run` options). */
export interface ModelBudgets {
  maxIterations: number;
  maxRetries: number;
}

const quantizationSchema = z.string().regex(/^[A-Z0-9_]+$/, "quantization names are upper case, e.g. Q4_K_M");

const fileSchema = z
  .object({
    quantization: quantizationSchema,
    uri: z.string().refine((uri) => parseHfUri(uri) !== undefined, "expected hf:<owner>/<repo>/<file>.gguf"),
    /** Approximate size in bytes: a sanity check for downloads, not an exact expectation. */
    sizeBytes: z.number().int().positive(),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, "sha256 is 64 lower-case hex digits")
      .optional(),
    /** Git revision to download from; `main` when absent. Pin one together with `sha256`. */
    revision: z.string().min(1).optional(),
  })
  .strict()
  .transform((file) => ({ ...file, fileName: parseHfUri(file.uri)!.fileName }));

const entrySchema = z
  .object({
    alias: z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]*$/, "aliases are lower case, without ':' (it separates the quantization)"),
    aliases: z.array(z.string().regex(/^[a-z0-9][a-z0-9.-]*$/)).default([]),
    name: z.string().min(1),
    architecture: z.string().min(1),
    contextLength: z.number().int().positive(),
    defaultQuantization: quantizationSchema,
    budgets: z
      .object({ maxIterations: z.number().int().positive(), maxRetries: z.number().int().nonnegative() })
      .strict(),
    notes: z.string().optional(),
    files: z.array(fileSchema).min(1),
  })
  .strict();

const catalogSchema = z
  .object({
    version: z.literal(1),
    default: z.string().min(1),
    models: z.array(entrySchema).min(1),
  })
  .strict();

/** One downloadable GGUF of a catalog model. */
export type CatalogFile = z.output<typeof fileSchema>;
/** A known model: its alias, what it is, its budgets and its files per quantization. */
export type CatalogEntry = z.output<typeof entrySchema>;
/** The whole catalog (`models/catalog.json`). */
export type Catalog = z.output<typeof catalogSchema>;

/**
 * Where the catalog ships: `models/catalog.json` at the package root. The path is relative to this module, so it is
 * the same from `src/model/` (tsx, tests) and from `dist/model/` (the built package).
 */
export const CATALOG_PATH = fileURLToPath(new URL("../../models/catalog.json", import.meta.url));

/** Rules across fields and entries, checked once the shapes are valid; returns one message per problem. */
function catalogProblems(catalog: Catalog): string[] {
  const problems: string[] = [];
  const aliases = new Set<string>();
  const fileNames = new Set<string>();
  for (const entry of catalog.models) {
    for (const alias of [entry.alias, ...entry.aliases]) {
      if (aliases.has(alias)) problems.push(`alias "${alias}" is used twice`);
      aliases.add(alias);
    }
    const quantizations = entry.files.map((file) => file.quantization);
    if (new Set(quantizations).size !== quantizations.length)
      problems.push(`${entry.alias}: a quantization is listed twice`);
    if (!quantizations.includes(entry.defaultQuantization)) {
      problems.push(`${entry.alias}: defaultQuantization ${entry.defaultQuantization} has no file`);
    }
    for (const file of entry.files) {
      const key = file.fileName.toLowerCase();
      if (fileNames.has(key)) problems.push(`file name ${file.fileName} is used twice (all files share one directory)`);
      fileNames.add(key);
    }
  }
  const [alias, quantization] = splitModelSpec(catalog.default);
  const entry = catalog.models.find((candidate) => candidate.alias === alias);
  if (!entry || (quantization !== undefined && !entry.files.some((file) => file.quantization === quantization))) {
    problems.push(`default "${catalog.default}" names no catalog file`);
  }
  return problems;
}

const cache = new Map<string, Catalog>();

/**
 * Reads and validates a catalog (default: the one that ships, {@link CATALOG_PATH}), once per path per process.
 * Throws an `Error` naming the file and every problem when it is missing, not JSON, or does not match the schema.
 */
export function loadCatalog(path: string = CATALOG_PATH): Catalog {
  const cached = cache.get(path);
  if (cached) return cached;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`Cannot read the model catalog ${path}: ${(error as Error).message}`, { cause: error });
  }
  const parsed = catalogSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`Invalid model catalog ${path}:\n${z.prettifyError(parsed.error)}`);
  const problems = catalogProblems(parsed.data);
  if (problems.length > 0)
    throw new Error(`Invalid model catalog ${path}:\n${problems.map((p) => `✖ ${p}`).join("\n")}`);
  cache.set(path, parsed.data);
  return parsed.data;
}

/** Splits `alias:QUANT` into its alias (lower-cased) and quantization (upper-cased, when given). */
export function splitModelSpec(spec: string): [alias: string, quantization: string | undefined] {
  const at = spec.lastIndexOf(":");
  if (at < 0) return [spec.trim().toLowerCase(), undefined];
  return [
    spec.slice(0, at).trim().toLowerCase(),
    spec
      .slice(at + 1)
      .trim()
      .toUpperCase() || undefined,
  ];
}

/**
 * The catalog entry for an alias (`gemma-4-e2b`), one of its extra aliases (`gemma4-e2b`) or its display name
 * (`Gemma 4 E2B (instruction-tuned)`), case-insensitive; a `:QUANT` suffix is ignored. `undefined` when none matches.
 */
export function findCatalogEntry(aliasOrName: string, catalog: Catalog = loadCatalog()): CatalogEntry | undefined {
  const [wanted] = splitModelSpec(aliasOrName);
  return catalog.models.find(
    (entry) => entry.alias === wanted || entry.aliases.includes(wanted) || entry.name.toLowerCase() === wanted,
  );
}

/** The catalog file a local file name belongs to (case-insensitive), with its entry; `undefined` when none. */
export function findCatalogFile(
  fileName: string,
  catalog: Catalog = loadCatalog(),
): { entry: CatalogEntry; file: CatalogFile } | undefined {
  const wanted = fileName.toLowerCase();
  for (const entry of catalog.models) {
    const file = entry.files.find((candidate) => candidate.fileName.toLowerCase() === wanted);
    if (file) return { entry, file };
  }
  return undefined;
}

/**
 * The file of an entry for a quantization (case-insensitive), or its default quantization when none is given.
 * `undefined` when the entry has no file of that quantization.
 */
export function catalogFileFor(entry: CatalogEntry, quantization?: string): CatalogFile | undefined {
  const wanted = (quantization ?? entry.defaultQuantization).toUpperCase();
  return entry.files.find((file) => file.quantization === wanted);
}

/** A model spec looked up in the catalog: its entry and file, or what is missing (with the choices there are). */
export type CatalogLookup =
  | { entry: CatalogEntry; file: CatalogFile }
  | { missing: "alias"; quantization: string | undefined; knownAliases: string }
  | { missing: "quantization"; message: string };

/**
 * Look up `alias` or `alias:QUANT` in the catalog: the entry and its file (the default quantization when none is
 * named); when the alias is unknown, the known aliases; when the entry has no such file, a message naming those it has.
 */
export function lookupCatalogSpec(spec: string, catalog: Catalog): CatalogLookup {
  const [alias, quantization] = splitModelSpec(spec);
  const entry = findCatalogEntry(alias, catalog);
  if (!entry)
    return { missing: "alias", quantization, knownAliases: catalog.models.map((model) => model.alias).join(", ") };
  const file = catalogFileFor(entry, quantization);
  if (!file) {
    const known = entry.files.map((candidate) => candidate.quantization).join(", ");
    return {
      missing: "quantization",
      message: `Model ${entry.alias} has no ${quantization} file in the catalog (available: ${known}).`,
    };
  }
  return { entry, file };
}

/**
 * The catalog entry and file a model spec (`alias` or `alias:QUANT`) names, or undefined when it names none: what a
 * missing model would be once pulled.
 */
export function catalogModelFor(
  spec: string,
  catalog: Catalog = loadCatalog(),
): { entry: CatalogEntry; file: CatalogFile } | undefined {
  const [alias, quantization] = splitModelSpec(spec);
  const entry = findCatalogEntry(alias, catalog);
  const file = entry && catalogFileFor(entry, quantization);
  return entry && file ? { entry, file } : undefined;
}

/**
 * The model to use when the user names none: the catalog's `default` field, an `alias:QUANT` spec
 * (`gemma-4-e2b:Q4_K_M`) that `resolveModelFile` and `pullModel` accept as is.
 */
export function defaultModelAlias(catalog: Catalog = loadCatalog()): string {
  return catalog.default;
}

/**
 * Recommended agent budgets: an entry's own; for a string, those of the catalog entry it names (alias, name, or the
 * file name of one of its GGUFs); otherwise {@link DEFAULT_BUDGETS}, the agent's defaults — an architecture alone
 * (`gemma4`) does not tell an E2B from an E4B, so it gets the defaults too.
 */
export function budgetsFor(entryOrArchitecture: CatalogEntry | string, catalog: Catalog = loadCatalog()): ModelBudgets {
  if (typeof entryOrArchitecture !== "string") return { ...entryOrArchitecture.budgets };
  const name = entryOrArchitecture.split(/[\\/]/).pop() ?? entryOrArchitecture;
  const entry = findCatalogEntry(entryOrArchitecture, catalog) ?? findCatalogFile(name, catalog)?.entry;
  return entry ? { ...entry.budgets } : { ...DEFAULT_BUDGETS };
}
