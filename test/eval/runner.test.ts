import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { evaluateSuite } from "../../src/eval/evaluate.js";
import type { EvalReport } from "../../src/eval/report/eval-report.js";
import type { ModelProvider } from "../../src/eval/runner/model-providers.js";
import { loadSuite } from "../../src/eval/suite/load-suite.js";
import { ScriptedModel } from "../../src/testing/index.js";

const BASIC = join(import.meta.dirname, "../../evals/basic.json");

/** The report without what measures time: the same seed must give exactly this. */
function withoutTimes(report: EvalReport): unknown {
  return JSON.parse(JSON.stringify(report, (key, value) => (key === "wallMs" || key === "timing" ? undefined : value)));
}

describe("runEval through evaluateSuite", () => {
  it("the same seeds give the same report, wall times aside", async () => {
    const options = { models: ["profile:e2b-like", "profile:chaotic", "heuristic"], budgets: [2, 4, 8], seeds: 3 };
    const a = await evaluateSuite(BASIC, options);
    const b = await evaluateSuite(BASIC, options);
    expect(withoutTimes(b)).toEqual(withoutTimes(a));
    expect(a.runs).toHaveLength(3 * 3 * 3 * loadSuite(BASIC).tasks.length);
    // and the profiles did fail sometimes, so the comparison covered injected failures
    expect(a.aggregates.find((x) => x.model === "profile:chaotic" && x.budget === 8)!.validationErrors).toBeGreaterThan(
      10,
    );
  });

  it("different seeds draw different failures", async () => {
    const one = await evaluateSuite(BASIC, { models: ["profile:chaotic"], budgets: [8], seeds: 2 });
    const bySeed = (seed: number) =>
      one.runs.filter((r) => r.seed === seed).map((r) => `${r.iterations}/${r.validationErrors}`);
    expect(bySeed(1)).not.toEqual(bySeed(2));
  });

  it("with one seed, a larger budget never lowers a task's success", async () => {
    const budgets = [1, 2, 3, 4, 6, 8, 12];
    const report = await evaluateSuite(BASIC, {
      models: ["profile:chaotic", "profile:e2b-like", "heuristic"],
      budgets,
      seeds: 3,
    });
    let improvements = 0;
    for (const run of report.runs) {
      const larger = report.runs.filter(
        (r) => r.model === run.model && r.taskId === run.taskId && r.seed === run.seed && r.budget > run.budget,
      );
      for (const other of larger) {
        if (run.success)
          expect(other.success, `${run.model} ${run.taskId} seed ${run.seed}: ${run.budget} → ${other.budget}`).toBe(
            true,
          );
        else if (other.success) improvements++;
      }
    }
    // the property is not vacuous: budgets do change outcomes
    expect(improvements).toBeGreaterThan(0);
    const chaotic = report.convergence.find((s) => s.model === "profile:chaotic")!.points.map((p) => p.successRate);
    expect(chaotic).toEqual([...chaotic].sort((x, y) => x - y));
    expect(chaotic[0]).toBeLessThan(chaotic.at(-1)!);
  });

  it("caps a task's budget at its maxIterations", async () => {
    const suite = loadSuite(BASIC);
    const capped = {
      ...suite,
      tasks: suite.tasks.filter((t) => t.id === "lookup-landmark-pop").map((t) => ({ ...t, maxIterations: 2 })),
    };
    const report = await evaluateSuite(capped, { models: ["oracle"], budgets: [16] });
    expect(report.runs[0]).toMatchObject({ iterations: 2, stopReason: "max_iterations", success: false });
  });

  it("records a run that cannot be made as a failed run, and the eval goes on", async () => {
    const suite = loadSuite(BASIC);
    const noTrajectory = {
      ...suite,
      tasks: suite.tasks.slice(0, 2).map((t, i) => (i === 0 ? { ...t, trajectory: undefined } : t)),
    };
    const report = await evaluateSuite(noTrajectory, { models: ["oracle"], budgets: [8] });
    expect(report.runs[0]).toMatchObject({ success: false, stopReason: "harness_error" });
    expect(report.runs[0].failures[0]).toMatch(/has no trajectory/);
    expect(report.runs[1]).toMatchObject({ success: true });
  });

  it("stops starting runs when aborted and marks the report interrupted", async () => {
    const controller = new AbortController();
    let started = 0;
    const slow: ModelProvider = {
      name: "slow",
      concurrency: 1,
      async acquire() {
        if (++started === 3) controller.abort(new Error("Ctrl-C"));
        return new ScriptedModel([JSON.stringify({ final_answer: "x" })]);
      },
      async dispose() {},
    };
    const report = await evaluateSuite(BASIC, {
      models: [],
      providers: [slow],
      budgets: [8],
      signal: controller.signal,
    });
    expect(report.interrupted).toBe(true);
    expect(report.runs.length).toBe(2);
  });
});
