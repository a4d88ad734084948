import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, type AgentEvent } from "../../src/agent/index.js";
import { readTrace, ReplayModel } from "../../src/eval/models/replay-model.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";
import { defineWorkflow, parallel, prompt, type WorkflowContext } from "../../src/workflows/index.js";

function registry(population = 2102650): Registry {
  return new Registry([
    defineSkill({
      name: "population",
      description: "population of a city",
      parameters: z.object({ city: z.string() }),
      run: ({ city }) => (city === "Paris" ? population : 0),
    }),
  ]);
}

/** A workflow with every kind of step: a structured ask with a retry, a skill call, parallel asks, a nested agent. */
const survey = defineWorkflow({
  name: "survey",
  run: async (ctx: WorkflowContext, query: string) => {
    const { city } = await ctx.ask(`Which city? ${query}`, { schema: z.object({ city: z.string() }), name: "city" });
    const people = await ctx.call<number>("population", { city });
    const views = (await parallel({
      sections: { pro: prompt("Say one good thing about"), con: prompt("Say one bad thing about") },
    })(ctx, city)) as Record<string, string>;
    const checked = await ctx.agent(
      { registry: ctx.state.stats ? registry() : registry(), name: "checker" },
      `Check ${city}`,
    );
    return `${city}: ${people} people; ${views.pro} / ${views.con}; ${checked}`;
  },
});

const replies = [
  "Paris!",
  '{"city": "Paris"}',
  "Lovely food.",
  "Crowded metro.",
  callReply("population", { city: "Paris" }),
  answerReply("checked"),
];

/** The events as they would be again: the same in all but time. */
function comparable(events: readonly AgentEvent[]) {
  return JSON.parse(JSON.stringify(events, (key, value) => (key === "at" || key === "ms" ? undefined : value)));
}

function writeTrace(events: readonly AgentEvent[]): string {
  const path = join(mkdtempSync(join(tmpdir(), "wf-replay-")), "run.jsonl");
  writeFileSync(path, events.map((e) => JSON.stringify(e)).join("\n") + "\n");
  return path;
}

describe("replay of a workflow run", () => {
  it("reproduces the run from its JSON Lines trace: the same events, every recorded call used", async () => {
    const recorded = await new Agent({ model: new ScriptedModel(replies), registry: registry() }).run(
      survey,
      "the capital of France",
    );
    expect(recorded.stopReason).toBe("answer");
    expect(recorded.stream.ofType("model-call")).toHaveLength(4);
    expect(recorded.stream.toArray().map((e) => e.depth ?? 0)).toContain(1);
    const events = readTrace(writeTrace(recorded.stream.toArray()));
    const replay = new ReplayModel(events);
    const again = await new Agent({ model: replay, registry: registry() }).run(survey, "the capital of France");
    expect(again.answer).toBe(recorded.answer);
    expect(comparable(again.stream.toArray())).toEqual(comparable(events));
    expect(replay.unusedSteps).toBe(0);
  });

  it("fails loudly when the run diverges from the recording (a skill now returns something else)", async () => {
    const recorded = await new Agent({ model: new ScriptedModel(replies), registry: registry() }).run(
      survey,
      "the capital of France",
    );
    const sumUp = defineWorkflow({
      name: "sum-up",
      run: async (ctx) => {
        const people = await ctx.call<number>("population", { city: "Paris" });
        return ctx.ask(`Say that ${people} people live there.`);
      },
    });
    const original = await new Agent({ model: new ScriptedModel(["Two million."]), registry: registry() }).run(
      sumUp,
      "q",
    );
    const state = await new Agent({ model: new ReplayModel(original.stream.toArray()), registry: registry(9) }).run(
      sumUp,
      "q",
    );
    expect(state.stopReason).toBe("model_error");
    expect(state.stream.ofType("model-error")[0].message).toMatch(
      /replay diverged at call 1: the prompt lacks the recorded "Say that 2102650 people live there\."/,
    );
    expect(recorded.answer).toContain("Paris");
  });

  it("matches calls that come in another order to the recorded call they repeat", async () => {
    const ask = (first: string, second: string) => async (ctx: WorkflowContext) =>
      `${await ctx.ask(first)} ${await ctx.ask(second)}`;
    const recorded = await new Agent({ model: new ScriptedModel(["one", "two"]), registry: registry() }).run(
      ask("Count to one.", "Count to two."),
      "q",
    );
    const replay = new ReplayModel(recorded.stream.toArray());
    const state = await new Agent({ model: replay, registry: registry() }).run(
      ask("Count to two.", "Count to one."),
      "q",
    );
    expect(state.answer).toBe("two one");
    expect(replay.unusedSteps).toBe(0);
  });

  it("replays a retried structured ask: the retry's prompt must hold the recorded feedback", async () => {
    const workflow = async (ctx: WorkflowContext) => (await ctx.ask("n?", { schema: z.object({ n: z.number() }) })).n;
    const recorded = await new Agent({
      model: new ScriptedModel(['{"n": "x"}', '{"n": 1}']),
      registry: registry(),
    }).run(workflow, "q");
    const replay = new ReplayModel(recorded.stream.toArray());
    const state = await new Agent({ model: replay, registry: registry() }).run(workflow, "q");
    expect(state.answer).toBe("1");
    expect(comparable(state.stream.toArray())).toEqual(comparable(recorded.stream.toArray()));
  });
});
