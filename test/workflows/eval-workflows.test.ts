/** Suite tasks that name a workflow instead of the loop, and the loop-vs-workflow comparison of the eval report. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { EvalSetupError } from "../../src/eval/errors.js";
import { evaluateSuite } from "../../src/eval/evaluate.js";
import { renderMarkdown } from "../../src/eval/report/render-markdown.js";
import { renderSummaryTable } from "../../src/eval/report/render-summary-table.js";
import type { ModelProvider } from "../../src/eval/runner/model-providers.js";
import { parseSuite } from "../../src/eval/suite/load-suite.js";
import { builtinSkills } from "../../src/skills/builtin/index.js";
import { Registry } from "../../src/skills/index.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";

/** A workflow module as a user writes one: one structured ask for the expression, the calculator, the number. */
const WORKFLOW = `export default {
  name: "calc",
  run: async (ctx, query) => {
    const { expression } = await ctx.ask("Expression for: " + query, {
      schema: { type: "object", properties: { expression: { type: "string" } }, required: ["expression"] },
    });
    return String(await ctx.call("calculator", { expression }));
  },
};
`;

/** A suite file in suites/ of a fresh folder, its workflow module beside that folder (`../calc.mjs`). */
function suiteFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "wf-suite-"));
  mkdirSync(join(dir, "suites"));
  writeFileSync(join(dir, "calc.mjs"), WORKFLOW);
  const suite = {
    name: "workflow suite",
    workflows: { calc: "../calc.mjs" },
    tasks: [
      {
        id: "six-sevens",
        query: "What is 6 times 7?",
        skills: ["calculator"],
        workflow: "calc",
        expected: { includes: "42" },
      },
      {
        id: "two-plus",
        query: "What is 2 plus 2?",
        skills: ["calculator"],
        workflow: "calc",
        expected: { includes: "4" },
      },
      { id: "plain", query: "What is 1 plus 1?", skills: ["calculator"], expected: { includes: "2" } },
    ],
  };
  const path = join(dir, "suites", "suite.json");
  writeFileSync(path, JSON.stringify(suite));
  return path;
}

/**
 * A model that answers both kinds of prompt: a workflow's ask (the expression, with the arithmetic in the query),
 * and the loop's steps (a calculator call, then the answer the result gave). Fresh per run; it reports tokens.
 */
function scriptedProvider(): ModelProvider {
  const expressionOf = (prompt: string) => (/6 times 7/.test(prompt) ? "6*7" : /2 plus 2/.test(prompt) ? "2+2" : "1+1");
  const reply = (prompt: string) => {
    if (prompt.includes("Expression for:")) return JSON.stringify({ expression: expressionOf(prompt) });
    const result = /Result of calculator:\n(\S+)/.exec(prompt);
    return result ? answerReply(result[1]) : callReply("calculator", { expression: expressionOf(prompt) });
  };
  return {
    name: "scripted",
    concurrency: 2,
    acquire: async () => new ScriptedModel(Array(8).fill(reply), { reportTokens: true }),
    dispose: async () => {},
  };
}

describe("suite tasks that name a workflow", () => {
  it("validates the names: a task's workflow must be one the suite declares", () => {
    const base = { name: "s", tasks: [{ id: "t", query: "q", workflow: "nope", expected: { includes: "x" } }] };
    expect(() => parseSuite(base)).toThrow(
      /tasks\[0\]\.workflow: unknown workflow "nope" \(the suite's workflows: none\)/,
    );
    expect(() => parseSuite({ ...base, workflows: { "bad name!": "x.mjs" } })).toThrow(EvalSetupError);
    expect(parseSuite({ ...base, workflows: { nope: "x.mjs" } }).tasks[0].workflow).toBe("nope");
  });

  it("runs the workflow in place of the loop, its path relative to the suite file, and judges it the same way", async () => {
    const report = await evaluateSuite(suiteFile(), { models: [], providers: [scriptedProvider()], budgets: [4] });
    const byTask = Object.fromEntries(report.runs.map((r) => [r.taskId, r]));
    expect(byTask["six-sevens"]).toMatchObject({
      workflow: "calc",
      success: true,
      answer: "42",
      iterations: 1,
      skillCalls: 1,
    });
    expect(byTask.plain.workflow).toBeUndefined();
    expect(byTask.plain).toMatchObject({ success: true, iterations: 2 });
    expect(report.workflowComparison).toBeUndefined();
    expect(report.aggregates[0]).toMatchObject({ runs: 3, successes: 3 });
  });

  it("with compareLoop, also runs the loop on the workflow tasks and compares the two on the same tasks", async () => {
    const report = await evaluateSuite(suiteFile(), {
      models: [],
      providers: [scriptedProvider()],
      budgets: [1, 4],
      compareLoop: true,
    });
    const loops = report.runs.filter((r) => r.baselineOf !== undefined);
    expect(loops.map((r) => `${r.budget}:${r.taskId}`).sort()).toEqual([
      "1:six-sevens@loop",
      "1:two-plus@loop",
      "4:six-sevens@loop",
      "4:two-plus@loop",
    ]);
    // the aggregates hold the suite as written (3 tasks), not the loop runs made for the comparison
    expect(report.aggregates.map((a) => a.runs)).toEqual([3, 3]);
    const [tight, roomy] = report.workflowComparison!;
    // under a budget of one model call the loop cannot call a skill and answer; the workflow needs one call
    expect(tight).toMatchObject({
      budget: 1,
      workflow: "calc",
      tasks: 2,
      loop: { successRate: 0 },
      workflowRuns: { successRate: 1 },
    });
    expect(roomy).toMatchObject({
      budget: 4,
      loop: { successRate: 1, meanSteps: 2, meanSkillCalls: 1 },
      workflowRuns: { successRate: 1, meanSteps: 1, meanSkillCalls: 1 },
    });
    expect(roomy.workflowRuns.meanGeneratedTokens).toBeLessThan(roomy.loop.meanGeneratedTokens!);
    const markdown = renderMarkdown(report);
    expect(markdown).toContain("## Loop vs workflow");
    expect(markdown).toMatch(
      /\| scripted \| six-sevens \| calc \| ✓ answer, 2 steps, \d+ tok, [\d.]+ s \| ✓ answer, 1 steps/,
    );
    expect(renderSummaryTable(report)).toContain("Loop vs workflow (same tasks):");
  });

  it("refuses compareLoop when no task names a workflow, and a workflow module that does not load or exports none", async () => {
    const plain = parseSuite({ name: "s", tasks: [{ id: "t", query: "q", expected: { includes: "x" } }] });
    await expect(
      evaluateSuite(plain, { models: [], providers: [scriptedProvider()], budgets: [1], compareLoop: true }),
    ).rejects.toThrow(/--compare-loop: no task here names a workflow/);
    const dir = mkdtempSync(join(tmpdir(), "wf-bad-"));
    writeFileSync(join(dir, "none.mjs"), "export const x = 1;\n");
    const task = { id: "t", query: "q", workflow: "w", expected: { includes: "x" } };
    for (const [file, message] of [
      ["missing.mjs", /workflows\.w: missing\.mjs: no such file/],
      ["none.mjs", /workflows\.w: none\.mjs exports no workflow/],
    ] as const) {
      writeFileSync(join(dir, "suite.json"), JSON.stringify({ name: "s", workflows: { w: file }, tasks: [task] }));
      await expect(
        evaluateSuite(join(dir, "suite.json"), { models: [], providers: [scriptedProvider()] }),
      ).rejects.toThrow(message);
    }
  });

  it("plays a workflow task's smaller budgets back from its largest run (a deterministic model)", async () => {
    let calls = 0;
    const provider: ModelProvider = { ...scriptedProvider(), deterministic: true, concurrency: 1 };
    const acquire = provider.acquire.bind(provider);
    provider.acquire = async (task, seed) => {
      const model = await acquire(task, seed);
      const generate = model.generate.bind(model);
      model.generate = (prompt, options) => (calls++, generate(prompt, options));
      return model;
    };
    const report = await evaluateSuite(suiteFile(), {
      models: [],
      providers: [provider],
      budgets: [1, 4],
      taskIds: ["six-sevens"],
    });
    expect(report.runs.map((r) => [r.budget, r.success, r.derivedFrom])).toEqual([
      [1, true, 4],
      [4, true, undefined],
    ]);
    expect(calls).toBe(1); // one real call: the budget-1 run was played back from the budget-4 run
  });

  it("replays a recorded workflow run from a trace directory (replay:DIR)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wf-traces-"));
    const model = new ScriptedModel(['{"expression": "6*7"}']);
    const registry = new Registry(builtinSkills()).scope(["calculator"]);
    const suite = suiteFile();
    const { default: calc } = (await import(join(suite, "..", "..", "calc.mjs"))) as { default: never };
    const state = await new Agent({ model, registry }).run(calc, "What is 6 times 7?");
    writeFileSync(join(dir, "six-sevens.jsonl"), state.stream.toJSONL());
    const report = await evaluateSuite(suite, {
      models: [`replay:${dir}`],
      budgets: [4],
      taskIds: ["six-sevens"],
    });
    expect(report.runs[0]).toMatchObject({ taskId: "six-sevens", workflow: "calc", success: true, answer: "42" });
  });
});
