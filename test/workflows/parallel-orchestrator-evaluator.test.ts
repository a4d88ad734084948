import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { ScriptedModel, type ScriptedReply } from "../../src/testing/index.js";
import {
  evaluatorOptimizer,
  orchestratorWorkers,
  parallel,
  prompt,
  type DraftRequest,
  type WorkflowContext,
} from "../../src/workflows/index.js";
import { mathRegistry } from "../helpers/skills.js";

const run = (replies: ScriptedReply[], workflow: object, options = {}, registry = mathRegistry()) => {
  const model = new ScriptedModel(replies);
  return { model, done: new Agent({ model, registry }).run(workflow as never, "the input", options) };
};

/** A skill that waits `ms` and records how many of its calls were running at once. */
function waitingRegistry() {
  const seen = { running: 0, most: 0 };
  const registry = new Registry([
    defineSkill({
      name: "wait",
      description: "waits",
      parameters: z.object({ id: z.number(), fail: z.boolean().optional() }),
      run: async ({ id, fail }) => {
        seen.most = Math.max(seen.most, ++seen.running);
        await new Promise((resolve) => setTimeout(resolve, 30));
        seen.running--;
        if (fail) throw new Error(`section ${id} broke`);
        return id;
      },
    }),
  ]);
  return { registry, seen };
}

const waitStep =
  (id: number, fail = false) =>
  async (ctx: WorkflowContext) =>
    ctx.call<number>("wait", { id, ...(fail && { fail }) });

describe("parallel", () => {
  it("runs sections concurrently up to the limit and returns their outputs by name", async () => {
    const { registry, seen } = waitingRegistry();
    const sections = { a: waitStep(1), b: waitStep(2), c: waitStep(3), d: waitStep(4) };
    const { done } = run([], parallel({ sections, limit: 2 }), {}, registry);
    const state = await done;
    expect(JSON.parse(state.answer!)).toEqual({ a: 1, b: 2, c: 3, d: 4 });
    expect(seen.most).toBe(2);
  });

  it("returns an array for an array of sections, and what merge makes of the outputs", async () => {
    const sections = [prompt("Translate to French:"), prompt("Translate to German:")];
    const list = run(["Bonjour", "Hallo"], parallel({ sections }));
    expect(JSON.parse((await list.done).answer!)).toEqual(["Bonjour", "Hallo"]);
    expect(list.model.calls.map((c) => c.prompt.includes("the input"))).toEqual([true, true]);
    const merged = run(
      ["Bonjour", "Hallo"],
      parallel({ sections: { fr: sections[0], de: sections[1] }, merge: (o) => `${String(o.fr)} / ${String(o.de)}` }),
    );
    expect((await merged.done).answer).toBe("Bonjour / Hallo");
  });

  it("fails the whole when a section fails, once the others have finished", async () => {
    const { registry, seen } = waitingRegistry();
    const { done } = run(
      [],
      parallel({ sections: { ok: waitStep(1), bad: waitStep(2, true), late: waitStep(3) } }),
      {},
      registry,
    );
    const state = await done;
    expect(state.stopReason).toBe("workflow_error");
    expect(state.stream.ofType("workflow-error")[0].message).toMatch(/section bad: wait failed: section 2 broke/);
    expect(
      state.stream
        .ofType("observation")
        .map((e) => e.result)
        .sort(),
    ).toEqual(["1", "3"]);
    expect(seen.running).toBe(0);
  });

  it("returns the majority with the counts; a failed voter is left out; a tie goes to the first", async () => {
    const voter = prompt("Is this spam? Answer yes or no:");
    const replies = ["yes", "No", "no ", () => Promise.reject(new Error("voter crashed")), "YES", "no"];
    const { done } = run(replies, parallel({ votes: Array(6).fill(voter), limit: 6 }));
    const state = await done;
    // the model error of one voter ends the run: a model failure is the run's, as in the loop
    expect(state.stopReason).toBe("model_error");
    const codeVoters = [2, 1, 1, 2, 0].map((v, i) => async () => (i === 4 ? Promise.reject(new Error("crashed")) : v));
    const tally = run([], parallel({ votes: codeVoters }));
    expect(JSON.parse((await tally.done).answer!)).toEqual({
      value: 2,
      count: 2,
      counts: { "2": 2, "1": 2 },
      total: 4,
    });
    const spam = run(["yes", "No", "no ", "YES", "no"], parallel({ votes: Array(5).fill(voter) }));
    const spamState = await spam.done;
    expect(JSON.parse(spamState.answer!)).toMatchObject({ value: "No", count: 3, counts: { no: 3, yes: 2 }, total: 5 });
    expect(spamState.stream.ofType("workflow-note")[0]).toMatchObject({ label: "votes", data: { total: 5 } });
  });

  it("asks one voter several times with { step, count }", async () => {
    const voter = prompt("yes or no?", { temperature: 0.8 });
    const { model, done } = run(["yes", "no", "yes"], parallel({ votes: { step: voter, count: 3 } }));
    expect(JSON.parse((await done).answer!)).toEqual({ value: "yes", count: 2, counts: { yes: 2, no: 1 }, total: 3 });
    expect(model.calls.map((c) => c.options.temperature)).toEqual([0.8, 0.8, 0.8]);
    expect(() => parallel({ votes: { step: voter, count: 0 } })).toThrow(TypeError);
  });

  it("ends the run at its budget when the sections ask more than it allows, with no answer", async () => {
    const voter = prompt("yes or no?");
    const { done } = run(["yes", "no"], parallel({ votes: Array(4).fill(voter) }), { maxIterations: 2 });
    const state = await done;
    expect(state.stopReason).toBe("max_iterations");
    expect(state.stream.ofType("model-call")).toHaveLength(2);
    expect(state.stream.ofType("max-iterations")).toHaveLength(1);
  });

  it("stops starting sections once the run is aborted", async () => {
    const { registry } = waitingRegistry();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    const sections = [1, 2, 3, 4, 5, 6].map((id) => waitStep(id));
    const { done } = run([], parallel({ sections, limit: 1 }), { signal: controller.signal }, registry);
    const state = await done;
    expect(state.stopReason).toBe("aborted");
    expect(state.stream.ofType("call-skill").length).toBeLessThan(3);
  });

  it("rejects bad options at once (caller bugs)", () => {
    expect(() => parallel({})).toThrow(TypeError);
    expect(() => parallel({ sections: [prompt("a")], votes: [prompt("b")] })).toThrow(TypeError);
    expect(() => parallel({ votes: [prompt("b")], limit: 0 })).toThrow(TypeError);
  });
});

describe("orchestratorWorkers", () => {
  const worker = prompt<string>((task) => `Do this: ${task}`);

  it("plans subtasks as structured output, runs a worker on each, and synthesizes the answer", async () => {
    const replies = [
      '{"subtasks": ["find the capital", "find the river"]}',
      "Paris",
      "the Seine",
      "Paris, on the Seine.",
    ];
    const { model, done } = run(replies, orchestratorWorkers({ worker, maxWorkers: 3 }));
    const state = await done;
    expect(state.answer).toBe("Paris, on the Seine.");
    expect(model.calls[0].options.jsonSchema).toMatchObject({ properties: { subtasks: { maxItems: 3, minItems: 1 } } });
    expect(model.calls[0].prompt).toContain("at most 3 independent subtasks");
    expect(model.calls[1].prompt).toContain("Do this: find the capital");
    expect(model.calls[3].prompt).toContain("- find the capital: Paris\n- find the river: the Seine");
    expect(state.stream.ofType("model-call").map((e) => e.name)).toEqual(["plan", undefined, undefined, "synthesize"]);
  });

  it("takes the plan and synthesis prompts as text, functions or { prompt, system }", async () => {
    const replies = ['{"subtasks": ["a"]}', "A", "done"];
    const { model, done } = run(
      replies,
      orchestratorWorkers({
        worker,
        plan: { prompt: "List the parts of:", system: "You plan." },
        synthesize: (input, results) => `Sum up ${input} from ${results.length} result`,
      }),
    );
    expect((await done).answer).toBe("done");
    expect(model.calls[0].prompt).toContain("You plan.");
    expect(model.calls[0].prompt).toContain("List the parts of:\n\nthe input");
    expect(model.calls[2].prompt).toContain("Sum up the input from 1 result");
  });

  it("reports a failed worker to the synthesis and goes on with the others", async () => {
    const flaky = async (ctx: WorkflowContext, task: string) =>
      task === "b" ? ctx.call("explode") : ctx.call("echo", { text: task });
    const { model, done } = run(
      ['{"subtasks": ["a", "b", "c"]}', "a and c done; b failed"],
      orchestratorWorkers({ worker: flaky }),
    );
    const state = await done;
    expect(state.answer).toBe("a and c done; b failed");
    expect(model.calls[1].prompt).toContain("- b: (failed: explode failed: kaboom: the reactor is offline)");
    expect(model.calls[1].prompt).toContain("- c: c");
    expect(state.stream.ofType("workflow-note")[0]).toMatchObject({ label: "workers", data: { failed: ["b"] } });
  });

  it("fails when every worker fails", async () => {
    const { done } = run(['{"subtasks": ["a", "b"]}'], orchestratorWorkers({ worker: (ctx) => ctx.call("explode") }));
    const state = await done;
    expect(state.stopReason).toBe("workflow_error");
    expect(state.stream.ofType("workflow-error")[0].message).toMatch(/every worker failed/);
  });

  it("refuses a plan with more subtasks than maxWorkers (a validation error, retried)", async () => {
    const replies = ['{"subtasks": ["a", "b", "c"]}', '{"subtasks": ["a"]}', "A", "done"];
    const { done } = run(replies, orchestratorWorkers({ worker, maxWorkers: 2 }));
    const state = await done;
    expect(state.answer).toBe("done");
    expect(state.stream.ofType("validation-error")).toHaveLength(1);
  });

  it("lets a stop through a worker: the budget ends the run, not the worker", async () => {
    const { done } = run(['{"subtasks": ["a", "b"]}', "A"], orchestratorWorkers({ worker, limit: 1 }), {
      maxIterations: 2,
    });
    expect((await done).stopReason).toBe("max_iterations");
  });
});

describe("evaluatorOptimizer", () => {
  const generate = prompt<DraftRequest>(({ query, draft, feedback }) =>
    draft ? `Revise: ${draft}\nFeedback: ${feedback}` : `Write a title for: ${query}`,
  );
  const evaluate = prompt<{ draft: string }>(({ draft }) => `Judge this title: ${draft}`);

  it("returns the first draft that passes", async () => {
    const { model, done } = run(
      ["A Title", '{"pass": true, "feedback": ""}'],
      evaluatorOptimizer({ generate, evaluate }),
    );
    const state = await done;
    expect(state.answer).toBe("A Title");
    expect(model.calls[1].options.jsonSchema).toMatchObject({ required: ["pass", "feedback"] });
    expect(state.stream.ofType("workflow-note")[0]).toMatchObject({
      label: "critique",
      data: { round: 1, pass: true, converged: true },
    });
  });

  it("revises with the feedback until a draft passes", async () => {
    const replies = [
      "title",
      '{"pass": false, "feedback": "capitalize it"}',
      "Title",
      '{"pass": true, "feedback": ""}',
    ];
    const { model, done } = run(replies, evaluatorOptimizer({ generate, evaluate }));
    const state = await done;
    expect(state.answer).toBe("Title");
    expect(model.calls[2].prompt).toContain("Revise: title\nFeedback: capitalize it");
    expect(state.stream.ofType("workflow-note").map((n) => n.data)).toEqual([
      { round: 1, pass: false, feedback: "capitalize it" },
      { round: 2, pass: true, feedback: "", converged: true },
    ]);
  });

  it("stops after maxRounds when no draft passes and returns the last one, saying so", async () => {
    const no = '{"pass": false, "feedback": "worse"}';
    const { model, done } = run(["d1", no, "d2", no], evaluatorOptimizer({ generate, evaluate, maxRounds: 2 }));
    const state = await done;
    expect(state.stopReason).toBe("answer");
    expect(state.answer).toBe("d2");
    expect(state.stream.ofType("workflow-note")[1]).toMatchObject({
      data: { round: 2, pass: false, converged: false },
    });
    model.assertConsumed();
  });

  it("ends at the run's budget inside the rounds", async () => {
    const no = '{"pass": false, "feedback": "again"}';
    const { done } = run(["d1", no, "d2"], evaluatorOptimizer({ generate, evaluate, maxRounds: 5 }), {
      maxIterations: 3,
    });
    expect((await done).stopReason).toBe("max_iterations");
  });

  it("takes a judge written as code that returns a critique", async () => {
    const judge = (_ctx: WorkflowContext, review: { draft: string }) => ({
      pass: review.draft.length > 3,
      feedback: "longer",
    });
    const { done } = run(["ab", "abcd"], evaluatorOptimizer({ generate, evaluate: judge }));
    expect((await done).answer).toBe("abcd");
  });
});
