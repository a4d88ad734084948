import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { evaluateSuite } from "../../src/eval/evaluate.js";
import { writeReport } from "../../src/eval/report/build-report.js";
import { progressBar } from "../../src/cli/progress-bar.js";
import { renderConvergenceSvg } from "../../src/eval/report/render-convergence-svg.js";
import { renderSummaryTable } from "../../src/eval/report/render-summary-table.js";
import { aggregateRuns } from "../../src/eval/report/aggregate.js";
import type { RunRecord } from "../../src/eval/runner/run-record.js";

const BASIC = join(import.meta.dirname, "../../evals/basic.json");

function parseSvg(text: string) {
  expect(XMLValidator.validate(text)).toBe(true);
  return new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(text).svg;
}

const asArray = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

describe("reports", () => {
  it("writes report.json, report.md and a convergence.svg that parses as SVG with one line per model", async () => {
    const report = await evaluateSuite(BASIC, {
      models: ["oracle", "profile:e2b-like", "heuristic"],
      budgets: [2, 4, 8],
      seeds: 2,
    });
    const dir = mkdtempSync(join(tmpdir(), "report-"));
    const paths = writeReport(report, dir);
    expect(JSON.parse(readFileSync(paths.json, "utf8"))).toEqual(JSON.parse(JSON.stringify(report)));

    const svg = parseSvg(readFileSync(paths.svg, "utf8"));
    expect(svg.xmlns).toBe("http://www.w3.org/2000/svg");
    const series = asArray(svg.g);
    expect(series.map((g: { "data-model": string }) => g["data-model"])).toEqual([
      "oracle",
      "profile:e2b-like",
      "heuristic",
    ]);
    for (const g of series) expect(g.polyline.points.split(" ")).toHaveLength(3);
    const texts = asArray(svg.text).map((t: { "#text"?: string | number }) => String(t["#text"]));
    expect(texts).toContain("Iteration budget (model calls allowed per task)");
    expect(texts).toContain("Success rate");
    expect(texts).toEqual(expect.arrayContaining(["0%", "100%", "2", "4", "8", "oracle", "heuristic"]));
    // the oracle's points sit where its success rates say: y of 100% is the top grid line
    const oracle = report.convergence[0].points;
    const ys = series[0].polyline.points.split(" ").map((p: string) => Number(p.split(",")[1]));
    expect(ys[2]).toBe(48);
    expect(oracle[2].successRate).toBe(1);

    const md = readFileSync(paths.markdown, "utf8");
    expect(md).toMatch(/^# basic/);
    expect(md).toContain("| model | budget 2 | budget 4 | budget 8 |");
    expect(md).toContain("## Per task");
    expect(md).toMatch(/\| lookup-4-hop \| 0\/2 \| 0\/2 \| 2\/2 \|/);
  });

  it("shows the median steps a run took beside each point of the convergence chart", async () => {
    const report = await evaluateSuite(BASIC, { models: ["oracle", "profile:e2b-like"], budgets: [2, 8], seeds: 1 });
    const runs = report.runs ?? [];
    for (const series of report.convergence)
      for (const point of series.points) {
        const steps = runs
          .filter((r) => r.model === series.model && r.budget === point.budget)
          .map((r) => r.iterations)
          .sort((a, b) => a - b);
        const middle = Math.floor(steps.length / 2);
        const median = steps.length % 2 ? steps[middle] : (steps[middle - 1] + steps[middle]) / 2;
        expect(point.medianSteps).toBe(median);
      }
    const svg = parseSvg(renderConvergenceSvg(report.convergence));
    const steps = asArray(svg.g).flatMap((g: { text?: unknown }) =>
      asArray(g.text as { class?: string; "#text": number } | { class?: string; "#text": number }[]),
    );
    expect(steps.filter((t) => t.class === "steps").map((t) => t["#text"])).toEqual(
      report.convergence.flatMap((s) => s.points.map((p) => p.medianSteps)),
    );
    // a report written before steps were counted draws no labels and no note
    const old = parseSvg(renderConvergenceSvg([{ model: "m", points: [{ budget: 1, successRate: 0.5 }] }]));
    expect(asArray(old.g).flatMap((g: { text?: unknown }) => asArray(g.text))).toEqual([]);
    expect(JSON.stringify(old)).not.toContain("median steps");
  });

  it("escapes model names in the SVG", () => {
    const svg = renderConvergenceSvg([{ model: 'a<b>&"c"', points: [{ budget: 1, successRate: 0.5 }] }]);
    const parsed = parseSvg(svg);
    expect(parsed.g["data-model"]).toBe('a<b>&"c"');
  });

  it("aggregates runs: rates per model call, stop reasons, tokens only when every run has them", () => {
    const run = (over: Partial<RunRecord>): RunRecord => ({
      model: "m",
      taskId: "t",
      budget: 4,
      seed: 1,
      success: true,
      failures: [],
      stopReason: "answer",
      iterations: 4,
      skillCalls: 1,
      validationErrors: 0,
      validationErrorsByType: {},
      toolErrors: 0,
      emptyAnswers: 0,
      repeatedCalls: 0,
      promptTokens: 100,
      evaluatedPromptTokens: 50,
      generatedTokens: 10,
      wallMs: 1,
      ...over,
    });
    const a = aggregateRuns("m", 4, [
      run({
        validationErrors: 2,
        validationErrorsByType: { json_syntax: 1, non_empty_final_answer: 1 },
        emptyAnswers: 1,
      }),
      run({
        success: false,
        stopReason: "max_iterations",
        repeatedCalls: 2,
        validationErrorsByType: { unknown_skill: 1 },
        validationErrors: 1,
      }),
    ]);
    expect(a).toMatchObject({
      runs: 2,
      successes: 1,
      successRate: 0.5,
      modelCalls: 8,
      meanIterations: 4,
      meanIterationsToSuccess: 4,
      promptTokens: 200,
      generatedTokens: 20,
      stopReasons: { answer: 1, max_iterations: 1 },
      validationErrorsByType: { json_syntax: 1, non_empty_final_answer: 1, unknown_skill: 1 },
      ratesPerModelCall: {
        empty_answer: 0.125,
        malformed_json: 0.125,
        unknown_skill: 0.125,
        invalid_arguments: 0,
        repeated_call: 0.25,
      },
    });
    expect(
      aggregateRuns("m", 4, [run({}), run({ promptTokens: null, generatedTokens: null })]).promptTokens,
    ).toBeNull();
  });

  it("counts calls where none was wanted, answers where one was, repeats and the median of steps", () => {
    const run = (over: Partial<RunRecord>): RunRecord => ({
      model: "m",
      taskId: "t",
      budget: 4,
      seed: 1,
      success: false,
      failures: [],
      stopReason: "answer",
      iterations: 2,
      skillCalls: 1,
      validationErrors: 0,
      validationErrorsByType: {},
      toolErrors: 0,
      emptyAnswers: 0,
      repeatedCalls: 0,
      promptTokens: null,
      evaluatedPromptTokens: null,
      generatedTokens: null,
      wallMs: 1,
      ...over,
    });
    const a = aggregateRuns("m", 4, [
      run({ expectedCalls: 0, skillCalls: 2, iterations: 3 }), // called where no call is wanted
      run({ expectedCalls: 0, skillCalls: 0, iterations: 1 }), // answered, right
      run({ expectedCalls: 1, skillCalls: 0, iterations: 1 }), // answered where a call is wanted
      run({ expectedCalls: 1, skillCalls: 0, iterations: 4, stopReason: "max_iterations" }), // no answer at all
      run({ expectedCalls: 2, skillCalls: 2, iterations: 3, repeatedCalls: 1 }),
      run({ skillCalls: 1, iterations: 2 }), // no trajectory: counted in none of them
    ]);
    expect(a).toMatchObject({
      callsWhenNoneWanted: 1,
      answersWhenCallWanted: 1,
      rightCallCount: 2,
      expectedCalls: 4,
      runsWithRepeats: 1,
      medianIterations: 2.5,
    });
  });

  it("prints an aligned summary table", async () => {
    const report = await evaluateSuite(BASIC, { models: ["oracle"], budgets: [4, 8] });
    const lines = renderSummaryTable(report).trimEnd().split("\n");
    expect(lines[0]).toMatch(/^model\s+budget\s+success/);
    expect(lines[2]).toMatch(/^oracle\s+4\s+97\.2% \(35\/36\)/);
    expect(lines[3]).toMatch(/^oracle\s+8\s+100\.0% \(36\/36\)/);
  });

  it("draws a progress bar on a terminal, and off one a plain line at most every 30 s", () => {
    const written: string[] = [];
    const stream = (isTTY: boolean) =>
      Object.assign(
        { write: (s: string) => (written.push(s), true) },
        { isTTY },
      ) as unknown as NodeJS.WritableStream & { isTTY: boolean };
    let clock = 0;
    const pipe = progressBar(stream(false), { now: () => clock });
    pipe.update({ done: 1, total: 4, model: "m" });
    clock = 29_999;
    pipe.update({ done: 2, total: 4, model: "m" });
    expect(written).toEqual([]);
    clock = 30_000;
    pipe.update({ done: 3, total: 4, model: "m" });
    clock = 40_000;
    pipe.update({ done: 4, total: 4, model: "m" });
    pipe.done();
    expect(written).toEqual(["progress: 3/4 m\n"]);
    written.length = 0;
    const tty = progressBar(stream(true));
    tty.update({ done: 1, total: 4, model: "oracle" });
    tty.update({ done: 4, total: 4, model: "oracle" });
    tty.done();
    expect(written[0]).toContain("[#######---------------------] 1/4 oracle");
    expect(written[1]).toContain("[############################] 4/4 oracle");
    expect(written.at(-1)).toBe("\r\x1b[2K");
  });

  it("redraws the terminal bar at most every 100 ms, the last state always", () => {
    const written: string[] = [];
    const tty = Object.assign({ write: (s: string) => (written.push(s), true) }, { isTTY: true });
    let clock = 0;
    const bar = progressBar(tty as unknown as NodeJS.WritableStream, { now: () => clock });
    for (let done = 1; done < 1000; done++) {
      clock = done / 10; // 1,000 runs in 100 ms
      bar.update({ done, total: 1000, model: "m" });
    }
    bar.update({ done: 1000, total: 1000, model: "m" });
    expect(written.map((line) => line.match(/\d+\/1000/)?.[0])).toEqual(["1/1000", "1000/1000"]);
    clock = 250;
    bar.update({ done: 1000, total: 2000, model: "m" });
    expect(written).toHaveLength(3);
  });
});
