import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { EvalSetupError } from "../../src/eval/errors.js";
import { evaluateSuite } from "../../src/eval/evaluate.js";
import { readTrace, recordedSteps, ReplayMismatchError, ReplayModel } from "../../src/eval/models/replay-model.js";
import { parseSuite } from "../../src/eval/suite/load-suite.js";
import { tracePath } from "../../src/eval/runner/trace-dir.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";

function registry(capitalOfFrance = "Paris"): Registry {
  return new Registry([
    defineSkill({
      name: "capital",
      description: "capital of a country",
      parameters: z.object({ country: z.string() }),
      run: ({ country }) => (country === "France" ? capitalOfFrance : "unknown"),
    }),
  ]);
}

/** Record a run the way `ask --trace` does: every event as one JSON line. */
async function record(replies: string[], query = "Capital of France?"): Promise<string> {
  const state = await new Agent({ model: new ScriptedModel(replies), registry: registry() }).run(query);
  return state.stream.toJSONL();
}

/** The suite skill the eval tests share: a lookup of two capitals. */
const CAPITAL_LOOKUP = {
  type: "lookup",
  name: "capital",
  description: "capital of a country",
  parameter: "country",
  table: { France: "Paris", Spain: "Madrid" },
} as const;

describe("ReplayModel", () => {
  it("plays a recorded run back: the same replies, the same events", async () => {
    const replies = ['{"skill_name": "capital"}', callReply("capital", { country: "France" }), answerReply("Paris")];
    const trace = await record(replies);
    const events = readTraceText(trace);
    expect(recordedSteps(events).map((s) => s.raw)).toEqual(replies);
    const model = new ReplayModel(events);
    const state = await new Agent({ model, registry: registry() }).run("Capital of France?");
    expect(state.answer).toBe("Paris");
    expect(state.stream.toArray().map((e) => e.type)).toEqual(events.map((e) => e.type));
    expect(model.unusedSteps).toBe(0);
  });

  it("reports a run whose prompt differs from the recording (a skill now returns something else)", async () => {
    const events = readTraceText(await record([callReply("capital", { country: "France" }), answerReply("Paris")]));
    const state = await new Agent({ model: new ReplayModel(events), registry: registry("Lyon") }).run(
      "Capital of France?",
    );
    expect(state.stopReason).toBe("model_error");
    const error = state.stream.ofType("model-error")[0];
    expect(error.message).toMatch(
      /replay diverged at step 2: the prompt lacks the recorded "Result of capital:\\nParis"/,
    );
  });

  it("throws when asked for more steps than were recorded, and counts the ones left unused", async () => {
    const events = readTraceText(await record([callReply("capital", { country: "France" }), answerReply("Paris")]));
    const short = new ReplayModel(events);
    const state = await new Agent({ model: short, registry: registry() }).run("Capital of France?", {
      maxIterations: 1,
    });
    expect(state.stopReason).toBe("max_iterations");
    expect(short.unusedSteps).toBe(1);
    const model = new ReplayModel(events);
    await model.generate("p");
    await expect(model.generate("Result of capital:\nParis")).resolves.toBe(answerReply("Paris"));
    await expect(model.generate("p")).rejects.toBeInstanceOf(ReplayMismatchError);
  });

  it("in an eval: a directory of <task-id>.jsonl traces, divergence and leftovers as failures", async () => {
    const dir = mkdtempSync(join(tmpdir(), "replay-"));
    const traces = join(dir, "traces");
    mkdirSync(traces);
    writeFileSync(
      join(traces, "ok.jsonl"),
      await record(["{}", callReply("capital", { country: "France" }), answerReply("Paris")]),
    );
    // recorded when the skill did not know Spain ("unknown"); the suite's table now says "Madrid": the replayed
    // conversation differs from the recorded one at step 2
    writeFileSync(
      join(traces, "stale.jsonl"),
      await record([callReply("capital", { country: "Spain" }), answerReply("Madrid")], "Capital of Spain?"),
    );
    const suite = parseSuite({
      name: "replayed",
      skills: [CAPITAL_LOOKUP],
      tasks: [
        { id: "ok", query: "Capital of France?", skills: ["capital"], expected: { includes: "Paris" } },
        { id: "stale", query: "Capital of Spain?", skills: ["capital"], expected: { includes: "Madrid" } },
        { id: "missing", query: "Capital of Peru?", skills: ["capital"], expected: { includes: "Lima" } },
      ],
    });
    const report = await evaluateSuite(suite, { models: [`replay:${traces}`], budgets: [1, 8] });
    const at = (budget: number, id: string) => report.runs.find((r) => r.budget === budget && r.taskId === id)!;
    expect(at(8, "ok")).toMatchObject({ success: true, validationErrors: 1, answer: "Paris" });
    expect(at(8, "stale")).toMatchObject({ success: false, stopReason: "model_error" });
    expect(at(8, "stale").failures.join(" ")).toMatch(/replay diverged at step 2/);
    expect(at(8, "missing")).toMatchObject({ success: false, stopReason: "harness_error" });
    expect(at(8, "missing").failures[0]).toMatch(/no trace .*missing\.jsonl/);
    // a budget smaller than the recording leaves recorded replies unplayed: reported, not silently accepted
    expect(at(1, "ok").failures).toContain("replay: the run ended with 2 recorded model call(s) not replayed");
  });

  it("eval --traces writes one file per run under <model>/b<budget>-s<seed>/, and a folder of them replays", async () => {
    const dir = mkdtempSync(join(tmpdir(), "traces-"));
    const suite = parseSuite({
      name: "traced",
      skills: [CAPITAL_LOOKUP],
      tasks: [
        {
          id: "fr",
          query: "Capital of France?",
          skills: ["capital"],
          expected: { includes: "Paris" },
          trajectory: [{ call: "capital", arguments: { country: "France" } }, { answer: "Paris." }],
        },
        {
          id: "es",
          query: "Capital of Spain?",
          skills: ["capital"],
          expected: { includes: "Madrid" },
          trajectory: [{ call: "capital", arguments: { country: "Spain" } }, { answer: "Madrid." }],
        },
      ],
    });
    const traced = await evaluateSuite(suite, { models: ["oracle"], budgets: [1, 4], traces: dir });
    for (const run of traced.runs) {
      const path = tracePath(dir, run);
      expect(path).toBe(join(dir, "oracle", `b${run.budget}-s1`, `${run.taskId}.jsonl`));
      const events = readTrace(path);
      // the file is this run's: as many replies as its iterations, and its answer when it had one
      expect(recordedSteps(events)).toHaveLength(run.iterations);
      const answer = events.findLast((e) => e.type === "final-answer");
      expect(answer && "answer" in answer ? answer.answer : undefined).toBe(run.answer);
    }
    expect(traced.runs.find((r) => r.budget === 4 && r.taskId === "es")).toMatchObject({ success: true });
    const replayed = await evaluateSuite(suite, { models: [`replay:${join(dir, "oracle", "b4-s1")}`], budgets: [4] });
    const outcome = (r: (typeof replayed.runs)[number]) => [r.taskId, r.success, r.iterations, r.answer];
    expect(replayed.runs.map(outcome)).toEqual(traced.runs.filter((r) => r.budget === 4).map(outcome));
    // a file where the folder should be: a setup error before anything runs
    writeFileSync(join(dir, "a-file"), "");
    await expect(
      evaluateSuite(suite, { models: ["oracle"], budgets: [1], traces: join(dir, "a-file") }),
    ).rejects.toThrow(/--traces: .*a-file is not a folder/);
    // a folder that cannot be made (under a file): refused before anything runs, too
    await expect(
      evaluateSuite(suite, { models: ["oracle"], budgets: [1], traces: join(dir, "a-file", "below") }),
    ).rejects.toThrow(/--traces: cannot write to .*below/);
  });

  it("rejects unreadable traces as setup errors", () => {
    const dir = mkdtempSync(join(tmpdir(), "replay-"));
    writeFileSync(join(dir, "bad.jsonl"), '{"type": "final-answer"}\n');
    expect(() => readTrace(join(dir, "bad.jsonl"))).toThrow(EvalSetupError);
    expect(() => readTrace(join(dir, "bad.jsonl"))).toThrow(/line 1: not an event/);
    writeFileSync(
      join(dir, "empty.jsonl"),
      '{"type": "observation", "step": 1, "at": 0, "skillName": "x", "result": "y"}\n',
    );
    expect(() => readTrace(join(dir, "empty.jsonl"))).toThrow(/records no model reply/);
  });
});

function readTraceText(text: string) {
  const dir = mkdtempSync(join(tmpdir(), "trace-"));
  writeFileSync(join(dir, "t.jsonl"), text);
  return readTrace(join(dir, "t.jsonl"));
}
