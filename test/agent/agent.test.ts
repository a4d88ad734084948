import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, EventStream } from "../../src/agent/index.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";
import type { Validator } from "../../src/agent/index.js";
import { mathRegistry } from "../helpers/skills.js";

const types = (events: Iterable<{ type: string }>) => [...events].map((e) => e.type);

describe("Agent.run", () => {
  it("calls a skill, feeds the result back, and answers", async () => {
    const model = new ScriptedModel([callReply("add", { a: 2, b: 3 }), answerReply("5")]);
    const state = await new Agent({ model, registry: mathRegistry() }).run("What is 2+3?");
    expect(state.stopReason).toBe("answer");
    expect(state.answer).toBe("5");
    expect(types(state.stream)).toEqual(["call-skill", "observation", "final-answer"]);
    expect(state.stream.ofType("observation")[0]).toMatchObject({ skillName: "add", result: "5", step: 1 });
    expect(state.stream.ofType("final-answer")[0].step).toBe(2);
    expect(model.calls[1].prompt).toContain("Result of add:\n5");
    model.assertConsumed();
  });

  it("shows validation feedback in the next prompt, then accepts the fix", async () => {
    const model = new ScriptedModel([
      callReply("add", { a: "two", b: 3 }),
      callReply("add", { a: 2, b: 3 }),
      answerReply("5"),
    ]);
    const state = await new Agent({ model, registry: mathRegistry() }).run("2+3?");
    expect(state.stopReason).toBe("answer");
    const error = state.stream.ofType("validation-error")[0];
    expect(error.errorType).toBe("invalid_arguments");
    expect(model.calls[0].prompt).not.toContain(error.feedback);
    expect(model.calls[1].prompt).toContain(error.feedback);
    expect(state.stats.validationErrorsByType).toEqual({ invalid_arguments: 1 });
  });

  it("stops with retries_exhausted after more than maxRetries validation errors, a success in between not resetting the count", async () => {
    const model = new ScriptedModel([
      "nope",
      callReply("add", { a: 1, b: 1 }),
      "{",
      '{"final_answer": ""}',
      '{"x": 1}',
    ]);
    const state = await new Agent({ model, registry: mathRegistry() }).run("q", { maxRetries: 3 });
    expect(state.stopReason).toBe("retries_exhausted");
    expect(state.answer).toBeUndefined();
    expect(state.stream.ofType("validation-error")).toHaveLength(4);
    expect(state.stats.emptyAnswers).toBe(1);
    model.assertConsumed();
  });

  it("turns a throwing skill into a tool-error the model sees, then recovers", async () => {
    const model = new ScriptedModel([callReply("explode", {}), callReply("echo", { text: "ok" }), answerReply("ok")]);
    const state = await new Agent({ model, registry: mathRegistry() }).run("q");
    const error = state.stream.ofType("tool-error")[0];
    expect(error).toMatchObject({
      skillName: "explode",
      message: "kaboom: the reactor is offline",
      availableSkills: ["add", "echo", "explode"],
    });
    expect(model.calls[1].prompt).toContain("kaboom: the reactor is offline");
    expect(model.calls[1].prompt).toContain("Available skills: add, echo, explode");
    expect(state.stopReason).toBe("answer");
  });

  it("emits max-iterations with a deep-copied partial state", async () => {
    const model = new ScriptedModel([callReply("echo", { text: "a" }), callReply("echo", { text: "b" })]);
    const state = await new Agent({ model, registry: mathRegistry(), finalRoundWithoutTools: false }).run("loop", {
      maxIterations: 2,
    });
    expect(state.stopReason).toBe("max_iterations");
    const event = state.stream.ofType("max-iterations")[0];
    expect(event.iterations).toBe(2);
    expect(event.lastActionSummary).toBe("observation from echo: b");
    expect(event.partialState.events).toHaveLength(4);
    expect(event.partialState.stopReason).toBe("max_iterations");
    // later changes to the state or its events do not reach the copy
    const firstCall = state.stream.ofType("call-skill")[0];
    (firstCall.arguments as { text: string }).text = "changed";
    state.stats.modelCalls = 99;
    expect((event.partialState.events[0] as typeof firstCall).arguments).toEqual({ text: "a" });
    expect(event.partialState.stats.modelCalls).toBe(2);
  });

  it("reports a model that throws as model-error", async () => {
    const model = new ScriptedModel([
      () => {
        throw new Error("CUDA out of memory");
      },
    ]);
    const state = await new Agent({ model, registry: mathRegistry() }).run("q");
    expect(state.stopReason).toBe("model_error");
    expect(state.stream.ofType("model-error")[0].message).toBe("CUDA out of memory");
  });

  it("reports a model that returns a non-string as model-error", async () => {
    const model = new ScriptedModel([() => 42 as unknown as string]);
    const state = await new Agent({ model, registry: mathRegistry() }).run("q");
    expect(state.stopReason).toBe("model_error");
  });

  it("aborts promptly while a slow skill runs that ignores its signal", async () => {
    let skillStarted!: () => void;
    const started = new Promise<void>((r) => (skillStarted = r));
    const registry = new Registry([
      defineSkill({
        name: "slow",
        description: "Never finishes.",
        parameters: z.object({}),
        run: () => {
          skillStarted();
          return new Promise(() => {});
        },
      }),
    ]);
    const model = new ScriptedModel([callReply("slow", {})]);
    const controller = new AbortController();
    const running = new Agent({ model, registry }).run("q", { signal: controller.signal });
    await started;
    const abortedAt = performance.now();
    controller.abort();
    const state = await running;
    expect(performance.now() - abortedAt).toBeLessThan(200);
    expect(state.stopReason).toBe("aborted");
    expect(types(state.stream)).toEqual(["call-skill", "aborted"]);
  });

  it("tells the skill through ctx.signal that the run was aborted", async () => {
    let seen: AbortSignal | undefined;
    const registry = new Registry([
      defineSkill({
        name: "wait",
        description: "Waits.",
        parameters: z.object({}),
        run: (_, ctx) => {
          seen = ctx.signal;
          return new Promise(() => {});
        },
      }),
    ]);
    const controller = new AbortController();
    const running = new Agent({ model: new ScriptedModel([callReply("wait", {})]), registry }).run("q", {
      signal: controller.signal,
    });
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await running;
    expect(seen?.aborted).toBe(true);
  });

  it("aborts while the model generates", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([() => new Promise<string>(() => {})]);
    const running = new Agent({ model, registry: mathRegistry() }).run("q", { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    const state = await running;
    expect(state.stopReason).toBe("aborted");
    expect(model.calls[0].options.signal?.aborted).toBe(true);
  });

  it("keeps two concurrent runs on one Agent apart", async () => {
    const replies = (tag: string) => (prompt: string) =>
      prompt.includes(`question ${tag}`) ? callReply("echo", { text: tag }) : "wrong run";
    const finals = (prompt: string) => answerReply(prompt.includes("question A") ? "A done" : "B done");
    const model = new ScriptedModel([replies("A"), replies("B"), finals, finals]);
    const agent = new Agent({ model, registry: mathRegistry() });
    const [a, b] = await Promise.all([agent.run("question A"), agent.run("question B")]);
    expect(a.answer).toBe("A done");
    expect(b.answer).toBe("B done");
    expect(a.stream.ofType("observation").map((e) => e.result)).toEqual(["A"]);
    expect(b.stream.ofType("observation").map((e) => e.result)).toEqual(["B"]);
    expect(a.stream).not.toBe(b.stream);
  });

  it("runs validators on each action and feeds their feedback back", async () => {
    const noFortyTwo: Validator = {
      name: "no_42",
      check: (action) =>
        action.type === "final-answer" && action.answer.includes("42")
          ? { ok: false, feedback: "Do not guess 42." }
          : { ok: true },
    };
    const model = new ScriptedModel([answerReply("42"), answerReply("41")]);
    const state = await new Agent({ model, registry: mathRegistry(), validators: [noFortyTwo] }).run("q");
    expect(state.stream.ofType("validation-error")[0]).toMatchObject({ validatorName: "no_42" });
    expect(model.calls[1].prompt).toContain("Do not guess 42.");
    expect(state.answer).toBe("41");
  });

  it("throws only for caller bugs, with clear messages", async () => {
    const registry = mathRegistry();
    expect(() => new Agent({ model: undefined as never, registry })).toThrow(/model/);
    expect(() => new Agent({ model: new ScriptedModel([]), registry: {} as never })).toThrow(/Registry/);
    const agent = new Agent({ model: new ScriptedModel([]), registry });
    await expect(agent.run("q", { maxIterations: 0 })).rejects.toThrow(/maxIterations/);
    await expect(agent.run("q", { maxIterations: 1.5 })).rejects.toThrow(/maxIterations/);
    await expect(agent.run("q", { maxRetries: -1 })).rejects.toThrow(/maxRetries/);
    await expect(agent.run("   ")).rejects.toThrow(/query/);
  });

  it("sends the action schema unless the grammar is off", async () => {
    const model = new ScriptedModel([answerReply("x"), answerReply("y")]);
    await new Agent({ model, registry: mathRegistry() }).run("q");
    await new Agent({ model, registry: mathRegistry(), grammar: false }).run("q");
    const schema = model.calls[0].options.jsonSchema as { anyOf: { properties: Record<string, { const?: string }> }[] };
    expect(schema.anyOf.map((b) => b.properties.skill_name?.const ?? "final")).toEqual([
      "add",
      "echo",
      "explode",
      "final",
    ]);
    expect(model.calls[1].options.jsonSchema).toBeUndefined();
  });
});

describe("Agent.runStream", () => {
  it("yields the same events as run, as they happen", async () => {
    const script = [callReply("add", { a: 1, b: 2 }), answerReply("3")];
    const seen: string[] = [];
    const agent = new Agent({ model: new ScriptedModel(script), registry: mathRegistry() });
    const gen = agent.runStream("1+2?");
    let next = await gen.next();
    while (!next.done) {
      seen.push(next.value.type);
      next = await gen.next();
    }
    expect(next.value.answer).toBe("3");
    const state = await new Agent({ model: new ScriptedModel(script), registry: mathRegistry() }).run("1+2?");
    expect(seen).toEqual(types(state.stream));
  });

  it("aborts the run when the consumer stops early", async () => {
    const model = new ScriptedModel([
      callReply("echo", { text: "a" }),
      callReply("echo", { text: "b" }),
      answerReply("never"),
    ]);
    for await (const event of new Agent({ model, registry: mathRegistry() }).runStream("q")) {
      if (event.type === "observation") break;
    }
    await new Promise((r) => setTimeout(r, 10));
    expect(model.calls.length).toBeLessThanOrEqual(2);
  });
});

describe("EventStream JSONL", () => {
  it("round-trips a run", async () => {
    const model = new ScriptedModel([
      callReply("explode", {}),
      "garbage",
      callReply("add", { a: 1, b: 2 }),
      answerReply("3"),
    ]);
    const state = await new Agent({ model, registry: mathRegistry() }).run("q");
    const text = state.stream.toJSONL();
    expect(text.trim().split("\n")).toHaveLength(state.stream.length);
    expect(EventStream.fromJSONL(text).toArray()).toEqual(state.stream.toArray());
  });

  it("names the bad line of a broken trace", () => {
    expect(() => EventStream.fromJSONL('{"type":"observation","step":1,"at":0}\n{oops')).toThrow(/line 2/);
    expect(() => EventStream.fromJSONL('{"no":"type"}')).toThrow(/line 1/);
  });
});
