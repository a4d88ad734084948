import { readFileSync } from "node:fs";

/**
 * This package's version, read from its own package.json (two folders up from `src/cli/` and `dist/cli/` alike).
 * Not `npm_package_version`: run through npm from another project, that is the other project's version.
 */
export function packageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    return typeof manifest.version === "string" ? manifest.version : "unknown";
  } catch {
    return "unknown";
  }
}
