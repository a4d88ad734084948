import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EvalSetupError } from "../../src/eval/errors.js";
import { evaluateSuite } from "../../src/eval/evaluate.js";
import { answerEquals, answerIncludes, checkExpected } from "../../src/eval/suite/check-expected.js";
import { loadSuite, parseSuite, parseSuiteText } from "../../src/eval/suite/load-suite.js";
import { suiteTasks } from "../../src/eval/suite/suite-tasks.js";

const BASIC = join(import.meta.dirname, "../../evals/basic.json");

const minimal = (task: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name: "t",
  tasks: [{ id: "a", query: "q", skills: ["calculator"], expected: { includes: "4" }, ...task }],
  ...extra,
});

function setupError(fn: () => unknown): EvalSetupError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(EvalSetupError);
    return error as EvalSetupError;
  }
  throw new Error("expected an EvalSetupError");
}

describe("suite files", () => {
  it("the built-in suite has at least 30 tasks covering arithmetic, conversions, multi-call lookups and no-tool questions", () => {
    const suite = loadSuite(BASIC);
    expect(suite.tasks.length).toBeGreaterThanOrEqual(30);
    for (const category of ["arithmetic", "conversion", "lookup", "no-tool"]) {
      expect(suite.tasks.filter((t) => t.category === category).length, category).toBeGreaterThanOrEqual(5);
    }
    const callCounts = suite.tasks.map((t) => (t.trajectory ?? []).filter((s) => "call" in s).length);
    for (const n of [0, 1, 2, 3, 4]) expect(callCounts).toContain(n);
    expect(suite.tasks.filter((t) => !(t.trajectory && "answer" in t.trajectory.at(-1)!)).map((t) => t.id)).toEqual([]);
  });

  it("every built-in trajectory, run through the agent with the real skills, meets its task's expectation", async () => {
    const report = await evaluateSuite(BASIC, { models: ["oracle"], budgets: [16] });
    expect(report.runs.filter((r) => !r.success).map((r) => `${r.taskId}: ${r.failures.join("; ")}`)).toEqual([]);
    expect(report.runs.filter((r) => r.toolErrors !== 0 || r.validationErrors !== 0)).toEqual([]);
  });

  it("names the bad field by its path", () => {
    expect(setupError(() => parseSuite(minimal({ expected: { matches: "(" } }))).message).toMatch(
      /tasks\[0\]\.expected\.matches: not a valid regular expression/,
    );
    expect(setupError(() => parseSuite(minimal({ skills: ["calculator", "web"] }))).message).toMatch(
      /tasks\[0\]\.skills\[1\]: unknown skill "web"/,
    );
    expect(
      setupError(() =>
        parseSuite(
          minimal({ trajectory: [{ answer: "4" }, { call: "calculator", arguments: { expression: "2+2" } }] }),
        ),
      ).message,
    ).toMatch(
      /tasks\[0\]\.trajectory\[0\]: only the last step may be an answer[\s\S]*tasks\[0\]\.trajectory\[1\]: the trajectory must end with an answer step/,
    );
    expect(setupError(() => parseSuite(minimal({ expected: {} }))).message).toMatch(
      /tasks\[0\]\.expected: expected needs at least one of/,
    );
    expect(setupError(() => parseSuite(minimal({ maxIterations: 0 }))).message).toMatch(/tasks\[0\]\.maxIterations/);
    expect(setupError(() => parseSuite(minimal({ id: "a b" }))).message).toMatch(/tasks\[0\]\.id: a task id is/);
    expect(
      setupError(() =>
        parseSuite({
          name: "t",
          tasks: [
            { id: "a", query: "q", expected: { equals: "x" } },
            { id: "a", query: "q", expected: { equals: "x" } },
          ],
        }),
      ).message,
    ).toMatch(/tasks\[1\]\.id: duplicate task id "a"/);
    expect(
      setupError(() =>
        parseSuite(
          minimal({}, { skills: [{ type: "lookup", name: "calculator", description: "d", table: { a: 1 } }] }),
        ),
      ).message,
    ).toMatch(/skills\[0\]\.name: "calculator" is a built-in skill/);
    expect(setupError(() => parseSuite(minimal({ colour: "red" }))).message).toMatch(
      /tasks\[0\]: Unrecognized key: "colour"/,
    );
  });

  it("reads YAML as well as JSON, and says where the syntax breaks", () => {
    const yaml =
      "name: y\ntasks:\n  - id: t1\n    query: What is 2+2?\n    skills: [calculator]\n    expected: { includes: '4' }\n";
    expect(parseSuiteText(yaml, "suite.yaml").tasks[0]).toMatchObject({ id: "t1", skills: ["calculator"] });
    expect(setupError(() => parseSuiteText("name: [unclosed", "s.yml")).message).toMatch(/^s\.yml is not valid YAML/);
    expect(setupError(() => parseSuiteText("{", "s.json")).message).toMatch(/^s\.json is not valid JSON/);
    const dir = mkdtempSync(join(tmpdir(), "suite-"));
    expect(setupError(() => loadSuite(join(dir, "missing.json"))).code).toBe("suite_not_found");
    writeFileSync(join(dir, "bad.json"), JSON.stringify({ name: "x", tasks: [] }));
    expect(setupError(() => loadSuite(join(dir, "bad.json"))).message).toMatch(
      /bad\.json is not a valid suite:\n {2}tasks:/,
    );
  });

  it("builds data-defined skills: lookup tables (case-insensitive keys) and fixed answers", async () => {
    const suite = parseSuite({
      name: "data",
      skills: [
        {
          type: "lookup",
          name: "capital",
          description: "capital of a country",
          parameter: "country",
          table: { France: "Paris" },
        },
        {
          type: "fixed",
          name: "rate",
          description: "a rate",
          parameters: { currency: { type: "string" } },
          result: { rate: 1.08 },
        },
      ],
      tasks: [{ id: "t", query: "q", skills: ["capital", "rate"], expected: { includes: "Paris" } }],
    });
    const [task] = suiteTasks(suite);
    const ctx = { signal: new AbortController().signal, state: { query: "q", iterations: 1 } };
    expect(await task.registry.get("capital")!.run({ country: "  france " }, ctx)).toBe("Paris");
    await expect(
      Promise.resolve().then(() => task.registry.get("capital")!.run({ country: "Spain" }, ctx)),
    ).rejects.toThrow(/no entry for "Spain"; known: France/);
    expect(await task.registry.get("rate")!.run({ currency: "EUR" }, ctx)).toEqual({ rate: 1.08 });
    expect(task.registry.get("rate")!.parameters.safeParse({})).toMatchObject({ success: false });
    expect(task.lookups).toEqual([{ skillName: "capital", parameter: "country", keys: ["France"] }]);
  });
});

describe("expectations", () => {
  it("compares answers as people would: case, spacing, separators and numbers", () => {
    expect(answerEquals("  Ready. ", "ready")).toBe(true);
    expect(answerEquals("42.0", 42)).toBe(true);
    expect(answerEquals("1,000", "1000")).toBe(true);
    expect(answerEquals("ready now", "ready")).toBe(false);
    expect(answerIncludes("The answer is 395.", "395")).toBe(true);
    expect(answerIncludes("It is 13,780,908 people", "13780908")).toBe(true);
    expect(answerIncludes("3950", "395")).toBe(false);
    expect(answerIncludes("1.395", "395")).toBe(false);
    expect(answerIncludes("395.5", "395")).toBe(false);
    expect(answerIncludes("NAIROBI", "Nairobi")).toBe(true);
  });

  it("requires every condition: answer text, calls made (arguments as a subset), or no calls", () => {
    const calls = [{ skillName: "capital", arguments: { country: "kenya", extra: 1 } }];
    expect(
      checkExpected(
        { includes: "Nairobi", calls: [{ skill: "capital", arguments: { country: "Kenya" } }] },
        { answer: "Nairobi", calls },
      ),
    ).toMatchObject({ success: true });
    expect(
      checkExpected({ calls: [{ skill: "capital", arguments: { country: "Peru" } }] }, { answer: "x", calls }).failures,
    ).toEqual(['missing call capital {"country":"Peru"}']);
    expect(checkExpected({ calls: [{ skill: "capital" }, { skill: "capital" }] }, { answer: "x", calls }).success).toBe(
      false,
    );
    expect(checkExpected({ equals: "x", noCalls: true }, { answer: "x", calls }).failures).toEqual([
      "expected no skill calls, got 1",
    ]);
    expect(checkExpected({ matches: "^n.*i$" }, { answer: "Nairobi", calls: [] })).toMatchObject({ success: true });
    expect(checkExpected({ includes: ["a", "b"] }, { answer: undefined, calls: [] }).failures).toEqual(["no answer"]);
  });
});
