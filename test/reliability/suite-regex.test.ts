import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { testRegexBounded } from "../../src/bounded-regex.js";
import { checkExpected } from "../../src/eval/suite/check-expected.js";

const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "ga-regex-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What this file measured, printed as one line at its end. */
const counts = { timeoutMs: NaN, evalTasks: 0, evalTimedOut: 0, evalPassed: 0, evalSeconds: NaN };
afterAll(() =>
  console.log(
    `suite regexes: a catastrophic pattern given up after ${counts.timeoutMs.toFixed(0)} ms (limit 300 ms); eval of ${counts.evalTasks} tasks finished in ${counts.evalSeconds.toFixed(1)} s, ${counts.evalTimedOut} check timed out and reported as a failure, ${counts.evalPassed} passed`,
  ),
);

/** `^(a+)+$` on forty a's and a b: about 2^40 backtracking steps in JavaScript's RegExp. */
const CATASTROPHIC = "^(a+)+$";
const EVIL_ANSWER = `${"a".repeat(40)}b`;

describe("suite regexes under a time limit (issue 18 §5)", () => {
  it("a catastrophic pattern gives up after its limit; ordinary ones answer as RegExp does, lookbehind included", () => {
    const start = performance.now();
    expect(testRegexBounded(CATASTROPHIC, "", EVIL_ANSWER, 300)).toBe("timeout");
    counts.timeoutMs = performance.now() - start;
    expect(counts.timeoutMs).toBeLessThan(5_000);
    expect(testRegexBounded("(?<![\\d.])42\\b", "i", "it is 42.")).toBe(true);
    expect(testRegexBounded("(?<![\\d.])42\\b", "i", "it is 142.")).toBe(false);
    expect(checkExpected({ matches: CATASTROPHIC }, { answer: EVIL_ANSWER, calls: [] }).failures).toEqual([
      `the check /${CATASTROPHIC}/i timed out after 1 s on this answer (catastrophic backtracking?)`,
    ]);
    expect(checkExpected({ matches: "^a+b$" }, { answer: EVIL_ANSWER, calls: [] })).toMatchObject({ success: true });
  });

  it("eval on a suite with such a check finishes and reports the task whose check timed out", () => {
    const suite = join(dir, "evil.json");
    writeFileSync(
      suite,
      JSON.stringify({
        name: "evil",
        tasks: [
          {
            id: "evil",
            query: "Write forty a's and a b.",
            skills: [],
            expected: { matches: CATASTROPHIC },
            trajectory: [{ answer: EVIL_ANSWER }],
          },
          { id: "fine", query: "Say ok.", skills: [], expected: { matches: "^ok$" }, trajectory: [{ answer: "ok" }] },
        ],
      }),
    );
    const out = join(dir, "out");
    const start = performance.now();
    const run = spawnSync(
      process.execPath,
      [CLI, "eval", suite, "--model", "oracle", "--budgets", "2", "--quiet", "--out", out],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    counts.evalSeconds = (performance.now() - start) / 1000;
    expect(counts.evalSeconds).toBeLessThan(30);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8"));
    const runs = report.runs as Array<{ taskId: string; success: boolean; failures: string[] }>;
    counts.evalTasks = runs.length;
    counts.evalTimedOut = runs.filter((r) => (r.failures ?? []).some((f) => /timed out after 1 s/.test(f))).length;
    counts.evalPassed = runs.filter((r) => r.success).length;
    const byTask = Object.fromEntries(runs.map((r) => [r.taskId, r]));
    expect(byTask.fine).toMatchObject({ success: true });
    expect(byTask.evil).toMatchObject({ success: false });
    expect(byTask.evil.failures[0]).toMatch(/timed out after 1 s/);
  });
});
