import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, agentAsSkill } from "../../src/agent/index.js";
import { defineSkill, Registry, type ApprovalHook, type Guard } from "../../src/skills/index.js";
import { answerReply, callReply, parallelReply, ScriptedModel, type ReplyCall } from "../../src/testing/index.js";
import { renderEvent } from "../../src/cli/render-event.js";
import { collectCalls } from "../../src/eval/runner/collect-calls.js";

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A skill that records how many of its runs overlap; each run waits `ms` then returns its `id`. */
function concurrencyProbe() {
  const probe = { active: 0, maxActive: 0, started: [] as string[], finished: [] as string[], log: [] as string[] };
  const skill = defineSkill({
    name: "work",
    description: "Does some work.",
    parameters: z.object({ id: z.string(), ms: z.number().default(20), input: z.unknown().optional() }),
    run: async ({ id, ms, input }) => {
      probe.started.push(id);
      probe.log.push(`start:${id}`);
      probe.active++;
      probe.maxActive = Math.max(probe.maxActive, probe.active);
      await tick(ms);
      probe.active--;
      probe.finished.push(id);
      probe.log.push(`end:${id}`);
      return input === undefined ? { id } : { id, got: input };
    },
  });
  return { probe, skill };
}

describe("parallel calls", () => {
  it("run concurrently up to the limit, with observations in call order", async () => {
    const { probe, skill } = concurrencyProbe();
    const items = [50, 10, 40, 5, 30, 1].map((ms, i): ReplyCall => ["work", { id: `c${i}`, ms }]);
    const model = new ScriptedModel([parallelReply(items), answerReply("done")]);
    const state = await new Agent({
      model,
      registry: new Registry([skill]),
      parallelCalls: true,
      maxConcurrency: 3,
    }).run("q");
    expect(probe.maxActive).toBe(3);
    expect(probe.finished).not.toEqual(probe.started); // they really overlapped and finished out of order
    const observations = state.stream.ofType("observation");
    expect(observations.map((o) => o.callIndex)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(observations.map((o) => JSON.parse(o.result).id)).toEqual(["c0", "c1", "c2", "c3", "c4", "c5"]);
    const prompt = model.calls[1].prompt;
    expect(prompt.indexOf('"id":"c0"')).toBeLessThan(prompt.indexOf('"id":"c5"'));
  });

  it("default to one call a step: a calls array is refused when parallel calls are off", async () => {
    const { skill } = concurrencyProbe();
    const model = new ScriptedModel([parallelReply([["work", { id: "a" }]]), answerReply("x")]);
    const state = await new Agent({ model, registry: new Registry([skill]) }).run("q");
    expect(state.stream.ofType("validation-error")).toHaveLength(1);
    expect(model.calls[0].options.jsonSchema).not.toHaveProperty("anyOf.3");
  });

  it("one failing call does not stop the others", async () => {
    const registry = new Registry([
      defineSkill({ name: "ok", description: "ok", parameters: z.object({ n: z.number() }), run: ({ n }) => n * 2 }),
      defineSkill({
        name: "bad",
        description: "bad",
        parameters: z.object({}),
        run: () => {
          throw new Error("bad failed");
        },
      }),
    ]);
    const model = new ScriptedModel([
      parallelReply([
        ["ok", { n: 1 }],
        ["bad", {}],
        ["ok", { n: 3 }],
      ]),
      answerReply("x"),
    ]);
    const state = await new Agent({ model, registry, parallelCalls: true }).run("q");
    const outcomes = state.stream.toArray().filter((e) => e.type === "observation" || e.type === "tool-error");
    expect(outcomes.map((e) => [e.type, (e as { callIndex?: number }).callIndex])).toEqual([
      ["observation", 0],
      ["tool-error", 1],
      ["observation", 2],
    ]);
  });

  it("run a call that references another after its input is ready, with the referenced value", async () => {
    const { probe, skill } = concurrencyProbe();
    const model = new ScriptedModel([
      parallelReply([
        ["work", { id: "late", input: { $ref: "calls[1].result.id" } }],
        ["work", { id: "first", ms: 30 }],
      ]),
      answerReply("x"),
    ]);
    // calls[0] referencing calls[1] is a forward reference: refused before anything runs
    const refused = await new Agent({ model, registry: new Registry([skill]), parallelCalls: true }).run("q");
    expect(refused.stream.ofType("validation-error")[0]).toMatchObject({ errorType: "invalid_reference" });
    expect(probe.started).toEqual([]);

    const model2 = new ScriptedModel([
      parallelReply([
        ["work", { id: "first", ms: 30 }],
        ["work", { id: "second", input: { $ref: "calls[0].result.id" } }],
        ["work", { id: "third", ms: 1 }],
      ]),
      answerReply("x"),
    ]);
    const state = await new Agent({ model: model2, registry: new Registry([skill]), parallelCalls: true }).run("q");
    expect(probe.log.indexOf("start:second")).toBeGreaterThan(probe.log.indexOf("end:first"));
    expect(probe.log.indexOf("start:third")).toBeLessThan(probe.log.indexOf("end:first")); // independent: not held back
    expect(JSON.parse(state.stream.ofType("observation")[1].result)).toEqual({ id: "second", got: "first" });
  });

  it("reject self references and cycles before anything runs", async () => {
    const { probe, skill } = concurrencyProbe();
    for (const bad of [
      parallelReply([["work", { id: "a", input: { $ref: "calls[0].result" } }]]),
      parallelReply([
        ["work", { id: "a", input: { $ref: "calls[1].result" } }],
        ["work", { id: "b", input: { $ref: "calls[0].result" } }],
      ]),
      parallelReply([["work", { id: "a", input: { $ref: "calls[7].result" } }]]),
    ]) {
      const state = await new Agent({
        model: new ScriptedModel([bad, answerReply("x")]),
        registry: new Registry([skill]),
        parallelCalls: true,
      }).run("q");
      const error = state.stream.ofType("validation-error")[0];
      expect(error.errorType).toBe("invalid_reference");
    }
    expect(probe.started).toEqual([]);
  });

  it("skip a call whose input failed", async () => {
    const registry = new Registry([
      defineSkill({
        name: "bad",
        description: "bad",
        parameters: z.object({}),
        run: () => {
          throw new Error("no data");
        },
      }),
      defineSkill({ name: "use", description: "use", parameters: z.object({ v: z.unknown() }), run: () => "ran" }),
    ]);
    const model = new ScriptedModel([
      parallelReply([
        ["bad", {}],
        ["use", { v: { $ref: "calls[0].result" } }],
      ]),
      answerReply("x"),
    ]);
    const state = await new Agent({ model, registry, parallelCalls: true }).run("q");
    expect(state.stream.ofType("tool-error").map((e) => e.message)).toEqual([
      "no data",
      "skipped: it uses the result of calls[0], which failed",
    ]);
  });

  it("a reference that does not resolve is a tool-error on the stream, even for the last call to finish", async () => {
    const registry = new Registry([
      defineSkill({ name: "get", description: "get", parameters: z.object({}), run: () => ({ a: 1 }) }),
      defineSkill({ name: "use", description: "use", parameters: z.object({ v: z.unknown() }), run: () => "ran" }),
    ]);
    const model = new ScriptedModel([
      parallelReply([
        ["get", {}],
        ["use", { v: { $ref: "calls[0].result.b" } }],
      ]),
      answerReply("x"),
    ]);
    const state = await new Agent({ model, registry, parallelCalls: true }).run("q");
    const outcomes = state.stream.toArray().filter((e) => e.type === "observation" || e.type === "tool-error");
    expect(outcomes.map((e) => [e.type, (e as { callIndex?: number }).callIndex])).toEqual([
      ["observation", 0],
      ["tool-error", 1],
    ]);
    expect(state.stats.toolErrors).toBe(1);
  });
});

describe("guard chain", () => {
  const order: string[] = [];
  const registry = new Registry([
    defineSkill({
      name: "send",
      description: "Send money.",
      parameters: z.object({ to: z.string(), amount: z.number().positive() }),
      run: ({ to, amount }) => `sent ${amount} to ${to}`,
    }),
  ]);
  const approveWith =
    (decide: ReturnType<ApprovalHook>): ApprovalHook =>
    (c) => (order.push(`approve:${JSON.stringify(c.arguments)}`), decide);

  it("allow runs the call", async () => {
    const state = await new Agent({
      model: new ScriptedModel([callReply("send", { to: "bob", amount: 5 }), answerReply("ok")]),
      registry,
      approve: approveWith("allow"),
    }).run("q");
    expect(state.stream.ofType("observation")[0].result).toBe("sent 5 to bob");
  });

  it("deny gives a tool-error naming the guard, and the skill does not run", async () => {
    const state = await new Agent({
      model: new ScriptedModel([callReply("send", { to: "eve", amount: 5 }), answerReply("ok")]),
      registry,
      approve: approveWith({ decision: "deny", reason: "eve is not a contact" }),
    }).run("q");
    expect(state.stream.ofType("tool-error")[0]).toMatchObject({
      guard: "approval",
      message: "denied: eve is not a contact",
    });
    expect(state.stream.ofType("observation")).toHaveLength(0);
  });

  it("corrected arguments are validated again, and the event keeps both", async () => {
    const state = await new Agent({
      model: new ScriptedModel([callReply("send", { to: "bob", amount: 500 }), answerReply("ok")]),
      registry,
      approve: approveWith({ decision: "correct", arguments: { to: "bob", amount: 50 } }),
    }).run("q");
    expect(state.stream.ofType("call-skill")[0]).toMatchObject({
      arguments: { to: "bob", amount: 50 },
      originalArguments: { to: "bob", amount: 500 },
    });
    expect(state.stream.ofType("observation")[0].result).toBe("sent 50 to bob");
    const bad = await new Agent({
      model: new ScriptedModel([callReply("send", { to: "bob", amount: 5 }), answerReply("ok")]),
      registry,
      approve: approveWith({ decision: "correct", arguments: { to: "bob", amount: -1 } }),
    }).run("q");
    expect(bad.stream.ofType("tool-error")[0]).toMatchObject({ guard: "approval" });
    expect(bad.stream.ofType("tool-error")[0].message).toMatch(/corrected arguments are invalid/);
  });

  it("a corrected call that is then refused shows the corrected arguments, with the model's as the original", async () => {
    const invalid = await new Agent({
      model: new ScriptedModel([callReply("send", { to: "bob", amount: 5 }), answerReply("ok")]),
      registry,
      approve: approveWith({ decision: "correct", arguments: { to: "bob", amount: -1 } }),
    }).run("q");
    expect(invalid.stream.ofType("call-skill")[0]).toMatchObject({
      arguments: { to: "bob", amount: -1 },
      originalArguments: { to: "bob", amount: 5 },
    });
    const guard: Guard = {
      name: "limit",
      check: (c) => ((c.arguments.amount as number) > 100 ? { ok: false, reason: "over the limit" } : { ok: true }),
    };
    const guarded = await new Agent({
      model: new ScriptedModel([callReply("send", { to: "bob", amount: 5 }), answerReply("ok")]),
      registry,
      approve: approveWith({ decision: "correct", arguments: { to: "bob", amount: 500 } }),
      guards: [guard],
    }).run("q");
    expect(guarded.stream.ofType("call-skill")[0]).toMatchObject({
      arguments: { to: "bob", amount: 500 },
      originalArguments: { to: "bob", amount: 5 },
    });
    expect(guarded.stream.ofType("tool-error")[0]).toMatchObject({ guard: "limit" });
    expect(renderEvent(guarded.stream.ofType("call-skill")[0])).toContain(
      'send {"to":"bob","amount":500} (corrected from {"to":"bob","amount":5})',
    );
  });

  it("runs validation, approval, then custom guards, which see only validated arguments", async () => {
    order.length = 0;
    const seen: unknown[] = [];
    const guard: Guard = {
      name: "limit",
      check: (c) => (
        order.push("guard"),
        seen.push(c.arguments),
        (c.arguments.amount as number) > 100 ? { ok: false, reason: "over the limit" } : { ok: true }
      ),
    };
    const model = new ScriptedModel([callReply("send", { to: "bob", amount: 500 }), answerReply("ok")]);
    const state = await new Agent({ model, registry, approve: approveWith("allow"), guards: [guard] }).run("q");
    expect(order).toEqual(['approve:{"to":"bob","amount":500}', "guard"]);
    expect(state.stream.ofType("tool-error")[0]).toMatchObject({ guard: "limit", message: "over the limit" });
    expect(seen).toEqual([{ to: "bob", amount: 500 }]);
  });
});

describe("call-skill events", () => {
  it("keep the arguments as the model wrote them, while the skill gets the schema's parsed values", async () => {
    let got: unknown;
    const registry = new Registry([
      defineSkill({
        name: "greet",
        description: "greet",
        parameters: z.object({ name: z.string(), polite: z.boolean().default(true) }),
        run: (args) => ((got = args), "hi"),
      }),
    ]);
    const state = await new Agent({
      model: new ScriptedModel([callReply("greet", { name: "Ada" }), answerReply("ok")]),
      registry,
    }).run("q");
    expect(state.stream.ofType("call-skill")[0].arguments).toEqual({ name: "Ada" });
    expect(got).toEqual({ name: "Ada", polite: true });
  });
});

describe("time and size", () => {
  it("a skill that outlives its timeout is a tool-error and sees its signal abort", async () => {
    let signal: AbortSignal | undefined;
    const registry = new Registry([
      defineSkill({
        name: "hang",
        description: "hangs",
        parameters: z.object({}),
        timeoutMs: 30,
        run: (_, ctx) => ((signal = ctx.signal), new Promise(() => {})),
      }),
    ]);
    const state = await new Agent({
      model: new ScriptedModel([callReply("hang", {}), answerReply("gave up")]),
      registry,
    }).run("q");
    expect(state.stream.ofType("tool-error")[0].message).toBe("timed out after 30 ms");
    expect(signal?.aborted).toBe(true);
    expect(state.answer).toBe("gave up");
  });

  it("the agent-wide skill timeout applies when a skill has none", async () => {
    const registry = new Registry([
      defineSkill({ name: "hang", description: "hangs", parameters: z.object({}), run: () => new Promise(() => {}) }),
    ]);
    const state = await new Agent({
      model: new ScriptedModel([callReply("hang", {}), answerReply("x")]),
      registry,
      skillTimeoutMs: 20,
    }).run("q");
    expect(state.stream.ofType("tool-error")[0].message).toBe("timed out after 20 ms");
  });

  it("aborting the run cancels parallel skills in flight", async () => {
    const signals: AbortSignal[] = [];
    const registry = new Registry([
      defineSkill({
        name: "hang",
        description: "hangs",
        parameters: z.object({ i: z.number() }),
        run: (_, ctx) => (signals.push(ctx.signal), new Promise(() => {})),
      }),
    ]);
    const controller = new AbortController();
    const model = new ScriptedModel([
      parallelReply([
        ["hang", { i: 1 }],
        ["hang", { i: 2 }],
      ]),
    ]);
    const running = new Agent({ model, registry, parallelCalls: true }).run("q", { signal: controller.signal });
    await tick(20);
    controller.abort();
    const state = await running;
    expect(state.stopReason).toBe("aborted");
    expect(signals).toHaveLength(2);
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);
  });

  it("caps long results with a note, and renders what JSON cannot hold", async () => {
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    const registry = new Registry([
      defineSkill({ name: "big", description: "big", parameters: z.object({}), run: () => "x".repeat(10_000) }),
      defineSkill({
        name: "odd",
        description: "odd",
        parameters: z.object({}),
        run: () => ({ big: 2n ** 70n, cyclic, fn: function helper() {}, error: new TypeError("inner") }),
      }),
    ]);
    const model = new ScriptedModel([callReply("big", {}), callReply("odd", {}), answerReply("x")]);
    const state = await new Agent({ model, registry, maxResultChars: 200 }).run("q");
    const [big, odd] = state.stream.ofType("observation");
    expect(big.truncated).toBe(true);
    expect(big.result.slice(0, 201)).toBe("x".repeat(200) + "\n");
    expect(big.result).toContain("200 of 10000 characters shown");
    expect(odd.truncated).toBeUndefined();
    expect(JSON.parse(odd.result)).toEqual({
      big: "1180591620717411303424",
      cyclic: { name: "loop", self: "[Circular]" },
      fn: "[Function helper]",
      error: { name: "TypeError", message: "inner" },
    });
  });
});

describe("safeStringify", () => {
  it("writes an object shared by two branches in both; only an object that is its own ancestor is [Circular]", async () => {
    const { safeStringify } = await import("../../src/safe-stringify.js");
    const shared = { a: 1 };
    expect(JSON.parse(safeStringify({ x: shared, y: [shared, { z: shared }] }))).toEqual({
      x: { a: 1 },
      y: [{ a: 1 }, { z: { a: 1 } }],
    });
    const loop: Record<string, unknown> = { n: 1 };
    loop.arr = [loop, { back: loop }];
    const map = new Map<string, unknown>([["self", undefined]]);
    map.set("self", map);
    expect(JSON.parse(safeStringify({ loop, map }))).toEqual({
      loop: { n: 1, arr: ["[Circular]", { back: "[Circular]" }] },
      map: { self: "[Circular]" },
    });
  });

  it("a value whose shared objects double at each of 60 levels is written in bounded time and size", async () => {
    const { safeStringify } = await import("../../src/safe-stringify.js");
    let node: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 60; i++) node = { l: node, r: node };
    const text = safeStringify(node);
    expect(text.length).toBeLessThan(5_000_000);
    expect(text).toContain('"[…]"');
  });
});

describe("repetition control", () => {
  it("answers an exact repeat of a call that succeeded with the earlier result, whatever the key order, then holds a final round", async () => {
    let runs = 0;
    const registry = new Registry([
      defineSkill({
        name: "lookup",
        description: "look up",
        parameters: z.object({ city: z.string(), unit: z.string() }),
        run: () => (runs++, "12 degrees"),
      }),
    ]);
    const model = new ScriptedModel([
      callReply("lookup", { city: "Oslo", unit: "C" }),
      JSON.stringify({ arguments: { unit: "C", city: "Oslo" }, skill_name: "lookup" }),
      answerReply("12 degrees"),
    ]);
    const state = await new Agent({ model, registry }).run("q", { maxIterations: 8 });
    expect(runs).toBe(1);
    const [first, second] = state.stream.ofType("observation");
    expect(first.warning).toBeUndefined();
    expect(second).toMatchObject({
      result: "12 degrees",
      warning: expect.stringMatching(/already made this exact call/),
    });
    expect(state.stream.ofType("call-skill").map((c) => c.repeated)).toEqual([undefined, true]);
    expect(state.stats.repeatedCalls).toBe(1);
    // the step after the repeat is a final round: answer-only grammar, and the model is told
    expect(state.stream.ofType("final-round")).toMatchObject([{ reason: "repeat", step: 3 }]);
    expect(model.calls[2].prompt).toContain("No more skill calls.");
    expect(JSON.stringify(model.calls[2].options?.jsonSchema)).not.toContain("lookup");
    expect(JSON.stringify(model.calls[1].options?.jsonSchema)).toContain("lookup");
    expect(state.answer).toBe("12 degrees");
    expect(collectCalls(state.stream)).toHaveLength(1);
  });

  it("runs a repeatable skill again and does not end the run for it", async () => {
    let n = 0;
    const registry = new Registry([
      defineSkill({ name: "next", description: "counter", parameters: z.object({}), run: () => ++n, repeatable: true }),
    ]);
    const state = await new Agent({
      model: new ScriptedModel([callReply("next", {}), callReply("next", {}), callReply("next", {}), answerReply("3")]),
      registry,
    }).run("q");
    expect(state.stream.ofType("observation").map((o) => [o.result, o.warning])).toEqual([
      ["1", undefined],
      ["2", undefined],
      ["3", undefined],
    ]);
    expect(state.stream.ofType("final-round")).toHaveLength(0);
  });

  it("warns when a call fails the same way twice, blocks it the third time, then holds a final round", async () => {
    let runs = 0;
    const registry = new Registry([
      defineSkill({
        name: "calc",
        description: "calc",
        parameters: z.object({ e: z.string() }),
        run: () => {
          runs++;
          throw new Error("cannot read %");
        },
      }),
    ]);
    const model = new ScriptedModel([
      callReply("calc", { e: "17% of 2340" }),
      callReply("calc", { e: "17% of 2340" }),
      callReply("calc", { e: "17% of 2340" }),
      answerReply("I could not compute it"),
    ]);
    const state = await new Agent({ model, registry }).run("q", { maxIterations: 8 });
    expect(runs).toBe(2);
    const errors = state.stream.ofType("tool-error");
    expect(errors.map((e) => [e.guard, e.warning !== undefined])).toEqual([
      [undefined, false],
      [undefined, true],
      ["repetition", false],
    ]);
    expect(model.calls[2].prompt).toContain("already failed the same way");
    expect(errors[2].message).toMatch(/failed 2 times with the same error, so it was not run again: cannot read %/);
    expect(state.stats.repeatedCalls).toBe(2);
    expect(state.stream.ofType("final-round")).toMatchObject([{ reason: "repeat", step: 4 }]);
    expect(state.answer).toBe("I could not compute it");
  });

  it("holds a final round after one skill fails the same kind of way three times in a row, its values varied", async () => {
    const units = new Set(["C", "F"]);
    let runs = 0;
    const registry = new Registry([
      defineSkill({
        name: "convert",
        description: "convert",
        parameters: z.object({ from: z.string() }),
        run: ({ from }) => {
          runs++;
          if (from === "boom") throw new Error("the converter is down");
          if (!units.has(from)) throw new Error(`Unknown unit ${JSON.stringify(from)}. Known units: C, F`);
          return 75.2;
        },
      }),
    ]);
    const run = async (...froms: string[]) => {
      const model = new ScriptedModel([...froms.map((from) => callReply("convert", { from })), answerReply("done")]);
      return new Agent({ model, registry }).run("q", { maxIterations: 8 });
    };
    // "Lisbon", "Lisbo", "Lisb": three calls, each its own, one kind of error: the fourth step is a final round
    runs = 0;
    const varied = await run("Lisbon", "Lisbo", "Lisb");
    expect(runs).toBe(3);
    expect(varied.stream.ofType("tool-error").map((e) => e.guard)).toEqual([undefined, undefined, undefined]);
    expect(varied.stream.ofType("final-round")).toMatchObject([{ reason: "repeat", step: 4 }]);
    // another kind of error, or a call that ran, between them starts the count again
    for (const froms of [
      ["Lisbon", "boom", "Lisb", "done"],
      ["Lisbon", "Lisbo", "C", "Lisb", "Lis"],
    ]) {
      const state = await run(...froms);
      expect(state.stream.ofType("final-round").filter((f) => f.reason === "repeat")).toEqual([]);
    }
  });

  it("does not warn when a failing call changes", async () => {
    const registry = new Registry([
      defineSkill({
        name: "calc",
        description: "calc",
        parameters: z.object({ e: z.string() }),
        run: ({ e }) => {
          if (e.includes("%")) throw new Error("no %");
          return 1;
        },
      }),
    ]);
    const model = new ScriptedModel([
      callReply("calc", { e: "17%" }),
      callReply("calc", { e: "0.17" }),
      answerReply("1"),
    ]);
    const state = await new Agent({ model, registry }).run("q");
    expect(state.stream.ofType("tool-error").map((e) => e.warning)).toEqual([undefined]);
    expect(state.stats.repeatedCalls).toBe(0);
    expect(state.stream.ofType("final-round")).toHaveLength(0);
  });
});

describe("final round without tools", () => {
  const echo = () =>
    new Registry([
      defineSkill({
        name: "echo",
        description: "echo",
        parameters: z.object({ text: z.string() }),
        run: ({ text }) => text,
      }),
    ]);

  it("makes the last step of the budget answer-only once the run has taken a step", async () => {
    const model = new ScriptedModel([callReply("echo", { text: "a" }), answerReply("a")]);
    const state = await new Agent({ model, registry: echo() }).run("q", { maxIterations: 2 });
    expect(state.stream.ofType("final-round")).toMatchObject([{ reason: "budget", step: 2 }]);
    expect(JSON.stringify(model.calls[0].options?.jsonSchema)).toContain("echo");
    expect(JSON.stringify(model.calls[1].options?.jsonSchema)).not.toContain("echo");
    expect(state.stopReason).toBe("answer");
    expect(state.stats.finalRounds).toBe(1);
  });

  it("leaves a budget of 1 free to call (nothing to answer from yet)", async () => {
    const model = new ScriptedModel([callReply("echo", { text: "a" })]);
    const state = await new Agent({ model, registry: echo() }).run("q", { maxIterations: 1 });
    expect(state.stream.ofType("final-round")).toHaveLength(0);
    expect(state.stream.ofType("observation")).toHaveLength(1);
    expect(state.stopReason).toBe("max_iterations");
  });

  it("without the grammar, a call written in the final round is not made", async () => {
    let runs = 0;
    const registry = new Registry([
      defineSkill({
        name: "echo",
        description: "echo",
        parameters: z.object({ text: z.string() }),
        run: ({ text }) => (runs++, text),
      }),
    ]);
    const model = new ScriptedModel([callReply("echo", { text: "a" }), callReply("echo", { text: "b" })]);
    const state = await new Agent({ model, registry, grammar: false }).run("q", { maxIterations: 2 });
    expect(runs).toBe(1);
    expect(state.stream.ofType("tool-error")).toMatchObject([{ guard: "final-round" }]);
    expect(state.stopReason).toBe("max_iterations");
  });

  it("can be turned off", async () => {
    const model = new ScriptedModel([callReply("echo", { text: "a" }), callReply("echo", { text: "b" })]);
    const state = await new Agent({ model, registry: echo(), finalRoundWithoutTools: false }).run("q", {
      maxIterations: 2,
    });
    expect(state.stream.ofType("final-round")).toHaveLength(0);
    expect(state.stream.ofType("observation")).toHaveLength(2);
  });
});

describe("nested agents", () => {
  it("a worker's events appear in the supervisor's stream, marked with their depth", async () => {
    const worker = new Agent({
      model: new ScriptedModel([callReply("double", { n: 21 }), answerReply("42")]),
      registry: new Registry([
        defineSkill({
          name: "double",
          description: "double",
          parameters: z.object({ n: z.number() }),
          run: ({ n }) => n * 2,
        }),
      ]),
    });
    const supervisor = new Agent({
      model: new ScriptedModel([callReply("math_worker", { task: "double 21" }), answerReply("The worker says 42")]),
      registry: new Registry([agentAsSkill(worker, { name: "math_worker", description: "Does math." })]),
    });
    const state = await supervisor.run("What is 21 doubled?");
    expect(state.answer).toBe("The worker says 42");
    expect(state.stream.toArray().map((e) => `${e.depth ?? 0}:${e.type}`)).toEqual([
      "0:call-skill",
      "1:call-skill",
      "1:observation",
      "1:final-answer",
      "0:observation",
      "0:final-answer",
    ]);
    expect(state.stream.ofType("observation").at(-1)!.result).toBe("42");
  });

  it("stops runaway nesting at the depth limit", async () => {
    // an agent that delegates to itself forever
    const replies = Array.from({ length: 10 }, () => callReply("self", { task: "again" }));
    const model = new ScriptedModel([...replies, ...Array.from({ length: 10 }, () => answerReply("stopped"))]);
    const registry = new Registry();
    const selfAgent = new Agent({ model, registry });
    registry.register(agentAsSkill(selfAgent, { name: "self", description: "Delegates.", maxDepth: 2 }));
    const state = await selfAgent.run("go", { maxIterations: 3 });
    const limitError = state.stream.ofType("tool-error").find((e) => e.message.includes("depth limit"));
    expect(limitError).toBeDefined();
    expect(limitError!.depth).toBe(2);
    expect(Math.max(...state.stream.toArray().map((e) => e.depth ?? 0))).toBe(2);
  });
});
