import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";
import { chain, defineWorkflow, prompt, router, type WorkflowContext } from "../../src/workflows/index.js";
import { mathRegistry } from "../helpers/skills.js";

const types = (events: Iterable<{ type: string }>) => [...events].map((e) => e.type);
const run = (replies: string[], workflow: Parameters<Agent["run"]>[0] & object, query = "q", options = {}) => {
  const model = new ScriptedModel(replies);
  return { model, done: new Agent({ model, registry: mathRegistry() }).run(workflow as never, query, options) };
};

describe("chain", () => {
  const extract = prompt<string>((text) => `Numbers in: ${text}`, {
    schema: z.object({ a: z.number(), b: z.number() }),
  });
  const add = async (ctx: WorkflowContext, args: { a: number; b: number }) => ctx.call<number>("add", args);
  const say = prompt<number>((sum) => `Say the number ${sum} in words.`);

  it("feeds each step's typed output to the next and returns the last", async () => {
    const { model, done } = run(['{"a": 20, "b": 22}', "forty-two"], chain([extract, add, say]), "20 and 22");
    const state = await done;
    expect(state.answer).toBe("forty-two");
    expect(model.calls[0].prompt).toContain("Numbers in: 20 and 22");
    expect(model.calls[1].prompt).toContain("Say the number 42 in words.");
    expect(types(state.stream)).toEqual(["model-call", "call-skill", "observation", "model-call", "final-answer"]);
  });

  it("stops early at a failing gate, with its reason on a workflow-note and as the answer", async () => {
    const gated = chain([extract, add, say], {
      gate: (value, { step }) =>
        step === 2 ? { pass: (value as number) < 100, reason: "the sum is too large to say" } : true,
    });
    const { model, done } = run(['{"a": 500, "b": 1}'], gated);
    const state = await done;
    expect(state.stopReason).toBe("answer");
    expect(state.answer).toBe("the sum is too large to say");
    expect(state.stream.ofType("workflow-note")[0]).toMatchObject({ label: "gate", data: { step: 2, stopped: true } });
    model.assertConsumed(); // the third step never asked the model
  });

  it("returns the verdict's answer when it gives one, and never gates the last step", async () => {
    let gated = 0;
    const { done } = run(['{"a": 1, "b": 1}'], chain([extract, add], { gate: () => (gated++, { pass: true }) }));
    expect((await done).answer).toBe("2");
    expect(gated).toBe(1);
    const stopped = run(
      ['{"a": 1, "b": 1}'],
      chain([extract, add], { gate: () => ({ pass: false, answer: { ok: false } }) }),
    );
    expect((await stopped.done).answer).toBe('{"ok":false}');
  });

  it("honours the budget inside the chain: a step past maxIterations ends the run at max_iterations", async () => {
    const { done } = run(['{"a": 1, "b": 2}'], chain([extract, add, say]), "q", { maxIterations: 1 });
    const state = await done;
    expect(state.stopReason).toBe("max_iterations");
    expect(types(state.stream)).toEqual(["model-call", "call-skill", "observation", "max-iterations"]);
  });

  it("rejects an empty chain at once (a caller bug)", () => {
    expect(() => chain([])).toThrow(TypeError);
  });
});

describe("router", () => {
  const expert = { registry: mathRegistry(), name: "math_expert", description: "arithmetic, done with the add skill" };
  const routes = {
    math: { agent: expert, description: "questions that need arithmetic" },
    greeting: prompt("Reply to this greeting in one short sentence:", { maxTokens: 32 }),
    echo: defineWorkflow({
      name: "echo",
      description: "repeat the text back",
      run: (ctx, q) => ctx.call("echo", { text: q }),
    }),
  };

  it("classifies with one constrained call over the route names, then runs the route (a nested agent here)", async () => {
    const { model, done } = run(
      ['{"route": "math"}', callReply("add", { a: 2, b: 2 }), answerReply("4")],
      router({ routes }),
      "What is 2+2?",
    );
    const state = await done;
    expect(state.answer).toBe("4");
    expect(model.calls[0].options.jsonSchema).toMatchObject({
      properties: { route: { enum: ["math", "greeting", "echo"] } },
    });
    expect(model.calls[0].prompt).toContain("- math: questions that need arithmetic");
    expect(model.calls[0].prompt).toContain("- echo: repeat the text back");
    expect(model.calls[0].prompt).toContain("What is 2+2?");
    expect(state.stream.ofType("workflow-note")[0]).toMatchObject({ label: "route", data: { route: "math" } });
    expect(state.stream.ofType("model-call")[0]).toMatchObject({ name: "classify", value: { route: "math" } });
    // the nested agent's events one depth down, between its call-skill and its observation
    expect(state.stream.toArray().map((e) => `${e.depth ?? 0}:${e.type}`)).toEqual([
      "0:model-call",
      "0:workflow-note",
      "0:call-skill",
      "1:call-skill",
      "1:observation",
      "1:final-answer",
      "0:observation",
      "0:final-answer",
    ]);
    expect(state.iterations).toBe(3); // the nested agent's two model calls count in the run's budget
  });

  it("runs a prompt route and a workflow route", async () => {
    const greet = run(['{"route": "greeting"}', "Hello to you too!"], router({ routes }), "Hi there");
    expect((await greet.done).answer).toBe("Hello to you too!");
    expect(greet.model.calls[1].prompt).toContain("Reply to this greeting in one short sentence:\n\nHi there");
    expect(greet.model.calls[1].options.maxTokens).toBe(32);
    const echo = run(['{"route": "echo"}'], router({ routes }), "say this");
    expect((await echo.done).answer).toBe("say this");
  });

  it("retries a reply naming no route (a validation error), within the retry budget", async () => {
    const { done } = run(['{"route": "weather"}', '{"route": "echo"}'], router({ routes }), "ping");
    const state = await done;
    expect(state.answer).toBe("ping");
    expect(state.stream.ofType("validation-error")[0]).toMatchObject({
      errorType: "schema_mismatch",
      origin: "workflow",
    });
  });

  it("ends with retries_exhausted when the model keeps naming a route that does not exist", async () => {
    const { done } = run(['{"route": "weather"}', '{"route": "sports"}'], router({ routes }), "ping", {
      maxRetries: 1,
    });
    const state = await done;
    expect(state.stopReason).toBe("retries_exhausted");
    expect(state.stream.ofType("call-skill")).toHaveLength(0);
  });

  it("uses a custom classify prompt and system text", async () => {
    const { model, done } = run(
      ['{"route": "echo"}'],
      router({ routes, classify: { prompt: (q, lines) => `ROUTE ${q}\n${lines}`, system: "Be terse." } }),
      "x",
    );
    await done;
    expect(model.calls[0].prompt).toContain("Be terse.");
    expect(model.calls[0].prompt).toContain("ROUTE x\n- math:");
  });

  it("takes the classify prompt as plain text (followed by the routes and the input) or as a function", async () => {
    const text = run(['{"route": "echo"}'], router({ routes, classify: "Pick a route." }), "hello");
    await text.done;
    expect(text.model.calls[0].prompt).toContain("Pick a route.\n\n- math: questions that need arithmetic");
    expect(text.model.calls[0].prompt).toContain("- echo: repeat the text back\n\nhello");
    const fn = run(['{"route": "echo"}'], router({ routes, classify: (q) => `Route this: ${q}` }), "hi");
    await fn.done;
    expect(fn.model.calls[0].prompt).toContain("Route this: hi");
  });

  it("rejects a router without routes (a caller bug)", () => {
    expect(() => router({ routes: {} })).toThrow(TypeError);
  });
});
