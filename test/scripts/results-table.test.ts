/** scripts/results-table.ts: the README's evaluation table is never replaced by an empty one. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resultsTable } from "../../scripts/results-table.js";

describe("resultsTable", () => {
  it("refuses a folder with no report.json below it, naming the folder and how to restore the reports", () => {
    const dir = mkdtempSync(join(tmpdir(), "results-table-"));
    mkdirSync(join(dir, "gemma3-270m", "basic-grammar-on"), { recursive: true });
    writeFileSync(join(dir, "gemma3-270m", "basic-grammar-on", "report.md"), "# only the Markdown is kept\n");
    expect(() => resultsTable(dir)).toThrow(/no report\.json below it.*docs\/results\/README\.md/);
    expect(() => resultsTable(dir)).toThrow(dir);
  });
});
