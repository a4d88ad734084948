/**
 * The failure profiles fitted to the real test models (evals/profiles/, made by scripts/fit-profile.ts from the
 * real-model reports kept as fixtures in test/fixtures/eval-reports) load and run, and `profile:fit:` runs on those
 * reports directly.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { evaluateSuite } from "../../src/eval/evaluate.js";
import { FAILURE_KINDS } from "../../src/eval/models/failure-profiles.js";
import { parseModelSpec } from "../../src/eval/models/model-spec.js";
import { readProfileFile } from "../../src/eval/models/profile-file.js";

const ROOT = join(import.meta.dirname, "../..");
const BASIC = join(ROOT, "evals/basic.json");
const PROFILES = join(ROOT, "evals/profiles");
const REPORTS = ["smollm2-135m-instruct", "gemma3-270m"].map((key) =>
  join(ROOT, "test/fixtures/eval-reports", key, "basic-grammar-on/report.json"),
);

describe("profiles fitted to the real test models", () => {
  const files = readdirSync(PROFILES).filter((f) => f.endsWith(".json"));

  it("ships one per model, each measured from a committed report", () => {
    expect(files.sort()).toEqual(["gemma-3-270m.json", "smollm2-135m-instruct.json"]);
    for (const file of files) {
      const profile = readProfileFile(join(PROFILES, file));
      expect(profile.description).toMatch(/^Measured, not assumed: /);
      expect(profile.basis).toMatchObject({ budget: 12, grammar: true });
      expect(FAILURE_KINDS.reduce((sum, k) => sum + profile.rates[k], 0)).toBeLessThanOrEqual(1);
    }
  });

  it("each file holds the rates profile:fit: derives from its report, and both run evals/basic.json", async () => {
    for (const [i, file] of [...files].sort().reverse().entries()) {
      const fromFile = parseModelSpec(`profile:file:${join(PROFILES, file)}`);
      const fromFit = parseModelSpec(`profile:fit:${REPORTS[i]}`);
      if (fromFile.kind !== "profile" || fromFit.kind !== "profile") {
        expect.unreachable(`both specs are profiles, not ${fromFile.kind} and ${fromFit.kind}`);
      }
      expect(fromFile.rates).toEqual(fromFit.rates);
      const report = await evaluateSuite(BASIC, { models: [fromFile, fromFit], budgets: [4, 8, 12], seeds: 2 });
      expect(report.runs.length).toBe(2 * 36 * 3 * 2);
      expect(report.aggregates.filter((a) => !(a.modelCalls > 0))).toEqual([]);
    }
  });
});
