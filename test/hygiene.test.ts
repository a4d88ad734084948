/** What a run of the tests and of the documented commands leaves behind in the checkout and in /tmp. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TEST_TEMP_ENV } from "./helpers/temp-root.js";

describe("hygiene", () => {
  it("every temporary folder a test makes lies in the run's own folder, which the global teardown removes", () => {
    const root = process.env[TEST_TEMP_ENV];
    expect(root, "vitest.config.ts must run test/helpers/temp-root.ts as globalSetup").toMatch(/gemma-agent-tests-/);
    const made = mkdtempSync(join(tmpdir(), "ga-hygiene-"));
    expect(made.slice(0, `${root}/`.length)).toBe(`${root}/`);
  });

  it("out/, where the documented eval commands write their reports, is git-ignored", () => {
    // exit 0: ignored; exit 1 (a throw here): it would show up as untracked
    expect(() => execFileSync("git", ["check-ignore", "-q", "out/e2b/report.json"], { stdio: "ignore" })).not.toThrow();
  });

  it("no test or script reads a folder beside the checkout (a clone has none): the data they need is in the repository", () => {
    const root = join(import.meta.dirname, "..");
    const files = ["test", "scripts"].flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
        .filter((name) => /\.(ts|sh)$/.test(name))
        .map((name) => join(dir, name)),
    );
    const outside = files.filter((file) =>
      /\.\.\/shared\b|"\.\.",\s*"shared"/.test(readFileSync(join(root, file), "utf8")),
    );
    expect(files.length).toBeGreaterThan(50);
    expect(outside).toEqual([]);
  });
});
