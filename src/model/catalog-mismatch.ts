import type { CatalogEntry, CatalogFile } from "./catalog.js";
import { CATALOG_SIZE_TOLERANCE } from "./defaults.js";

/** `292 MB`, `3.1 GB`: sizes in the words of a warning. */
function approximateSize(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.round(bytes / 1e6)} MB`;
}

/**
 * What is wrong with a local file that carries a catalog file's name: its header's quantization is another one, or
 * its size is off by more than the catalog's tolerance (a truncated copy, another model renamed). `undefined` when
 * nothing is (a header that names no quantization is not held against the file). The text says what was expected:
 * `its header says Q4_K_M and it has 253 MB, where gemma-3-270m:Q8_0 is Q8_0, about 292 MB`.
 */
export function catalogMismatch(
  local: { sizeBytes: number; quantization?: string },
  entry: CatalogEntry,
  file: CatalogFile,
): string | undefined {
  const problems: string[] = [];
  const quantization = local.quantization?.toUpperCase();
  if (quantization && quantization !== "UNKNOWN" && quantization !== file.quantization) {
    problems.push(`its header says ${local.quantization}`);
  }
  if (Math.abs(local.sizeBytes - file.sizeBytes) > file.sizeBytes * CATALOG_SIZE_TOLERANCE)
    problems.push(`it has ${approximateSize(local.sizeBytes)}`);
  if (problems.length === 0) return undefined;
  return `${problems.join(" and ")}, where ${entry.alias}:${file.quantization} is ${file.quantization}, about ${approximateSize(file.sizeBytes)}`;
}
