import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { evaluateSuite } from "../../src/eval/evaluate.js";
import { buildReport, writeReport } from "../../src/eval/report/build-report.js";

const dir = mkdtempSync(join(tmpdir(), "ga-report-scale-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("report writing at scale (issue 18 §5)", () => {
  it("10,000 tasks x 4 budgets: report.json, report.md and the SVG in seconds, every per-task cell right", async () => {
    const sample = await evaluateSuite(join(import.meta.dirname, "../../evals/basic.json"), {
      models: ["oracle"],
      budgets: [1],
      seeds: 1,
      limit: 1,
    });
    const template = sample.runs[0];
    const budgets = [1, 2, 4, 8];
    const runs = Array.from({ length: 10_000 }, (_, t) =>
      budgets.map((budget) => ({ ...template, taskId: `task-${t}`, budget, success: (t + budget) % 3 === 0 })),
    ).flat();
    const start = performance.now();
    const report = buildReport({ ...sample, budgets, tasks: 10_000, runs, startedAt: new Date(), wallMs: 1 });
    const paths = writeReport(report, dir);
    const seconds = (performance.now() - start) / 1000;
    console.log(`report of ${runs.length} runs written in ${seconds.toFixed(2)} s`);
    expect(seconds).toBeLessThan(30); // quadratic, it took 22.5 minutes
    const rows = readFileSync(paths.markdown, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("| task-"));
    expect(rows).toHaveLength(10_000);
    expect(rows[7]).toBe(`| task-7 | ${budgets.map((b) => ((7 + b) % 3 === 0 ? "1/1" : "0/1")).join(" | ")} |`);
  }, 120_000);
});
