import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, EventStream, type AgentEvent } from "../../src/agent/index.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";
import { defineWorkflow, isWorkflowStop, WorkflowCallError, type WorkflowContext } from "../../src/workflows/index.js";
import { mathRegistry } from "../helpers/skills.js";

const types = (events: Iterable<{ type: string }>) => [...events].map((e) => e.type);
const numbers = z.object({ a: z.number(), b: z.number() });

/** Extract two numbers (structured), add them with the skill, then say the sum (free text). */
const addWorkflow = defineWorkflow({
  name: "add-two",
  description: "extract two numbers, add them, say the sum",
  run: async (ctx, query) => {
    const args = await ctx.ask(`Which two numbers are in: ${query}`, { schema: numbers, name: "extract" });
    const sum = await ctx.call<number>("add", args);
    return ctx.ask(`Say that the sum is ${sum}.`, { name: "say" });
  },
});

describe("agent.run(workflow, query)", () => {
  it("records every skill call and model call on the stream, with each model call's tokens", async () => {
    const model = new ScriptedModel(['{"a": 2, "b": 3}', "The sum is 5."], { reportTokens: true });
    const state = await new Agent({ model, registry: mathRegistry() }).run(addWorkflow, "add 2 and 3");
    expect(state.stopReason).toBe("answer");
    expect(state.answer).toBe("The sum is 5.");
    expect(types(state.stream)).toEqual(["model-call", "call-skill", "observation", "model-call", "final-answer"]);
    const [extract, say] = state.stream.ofType("model-call");
    expect(extract).toMatchObject({ name: "extract", structured: true, value: { a: 2, b: 3 }, attempt: 1, step: 1 });
    expect(say).toMatchObject({ name: "say", raw: "The sum is 5.", step: 2 });
    expect(say.value).toBeUndefined();
    // tokens as the model reported them for that very call (words here), and the run's totals are their sum
    expect(say.tokens).toEqual({
      prompt: model.stats!.promptTokens,
      evaluatedPrompt: model.stats!.promptTokens,
      generated: 4,
    });
    expect(state.stats.generatedTokens).toBe(extract.tokens!.generated + say.tokens!.generated);
    expect(state.stats.modelCalls).toBe(2);
    expect(state.iterations).toBe(2);
    expect(state.stream.ofType("call-skill")[0]).toMatchObject({
      skillName: "add",
      arguments: { a: 2, b: 3 },
      origin: "workflow",
    });
    expect(state.stream.ofType("observation")[0]).toMatchObject({ skillName: "add", result: "5" });
    expect(state.stream.ofType("final-answer")[0]).toMatchObject({ answer: "The sum is 5.", origin: "workflow" });
    expect(state.stats.skillCalls).toBe(1);
    model.assertConsumed();
  });

  it("constrains a structured ask with its schema's grammar, a free ask with none, and shows the schema in the prompt", async () => {
    const model = new ScriptedModel(['{"a": 1, "b": 1}', "two"]);
    await new Agent({ model, registry: mathRegistry() }).run(addWorkflow, "1 and 1");
    expect(model.calls[0].options.jsonSchema).toMatchObject({ type: "object", required: ["a", "b"] });
    expect(model.calls[0].prompt).toContain("Which two numbers are in: 1 and 1");
    expect(model.calls[0].prompt).toContain('"required":["a","b"]');
    expect(model.calls[1].options.jsonSchema).toBeUndefined();
    expect(model.calls[1].prompt).not.toContain("JSON Schema");
  });

  it("sends no grammar when the agent's grammar is off, and still validates", async () => {
    const model = new ScriptedModel(['{"a": "x"}', '{"a": 1, "b": 2}', "3"]);
    const state = await new Agent({ model, registry: mathRegistry(), grammar: false }).run(addWorkflow, "1 2");
    expect(model.calls.map((c) => c.options.jsonSchema).filter((schema) => schema !== undefined)).toEqual([]);
    expect(state.stream.ofType("validation-error")).toHaveLength(1);
    expect(state.answer).toBe("3");
  });

  it("retries a reply that fails its schema, showing the reply and the feedback, within the retry budget", async () => {
    const model = new ScriptedModel(["no numbers here", '{"a": 2, "b": "three"}', '{"a": 2, "b": 3}', "5"]);
    const state = await new Agent({ model, registry: mathRegistry() }).run(addWorkflow, "2 and 3", { maxRetries: 2 });
    expect(state.stopReason).toBe("answer");
    const errors = state.stream.ofType("validation-error");
    expect(errors.map((e) => [e.errorType, e.validatorName, e.origin])).toEqual([
      ["json_syntax", "structured_output", "workflow"],
      ["schema_mismatch", "structured_output", "workflow"],
    ]);
    expect(state.stream.ofType("model-call").map((e) => e.attempt)).toEqual([1, 2, 3, 1]);
    expect(model.calls[2].prompt).toContain('{"a": 2, "b": "three"}');
    expect(model.calls[2].prompt).toContain(errors[1].feedback);
    expect(model.calls[2].prompt).toContain(errors[0].feedback);
    expect(state.retries).toBe(2);
    expect(state.stats.validationErrorsByType).toEqual({ json_syntax: 1, schema_mismatch: 1 });
    expect(state.iterations).toBe(4);
  });

  it("ends with retries_exhausted past the retry budget, even when the workflow swallows the stop", async () => {
    const model = new ScriptedModel(["x", "y"]);
    const swallowing = async (ctx: WorkflowContext) => {
      try {
        await ctx.ask("numbers?", { schema: numbers });
      } catch {
        // a workflow that ignores the stop still ends as the budget says
      }
      return "made up";
    };
    const state = await new Agent({ model, registry: mathRegistry() }).run(swallowing, "q", { maxRetries: 1 });
    expect(state.stopReason).toBe("retries_exhausted");
    expect(state.answer).toBeUndefined();
    expect(types(state.stream)).toEqual(["model-call", "validation-error", "model-call", "validation-error"]);
    model.assertConsumed();
  });

  it("stops at maxIterations model calls with the loop's max-iterations event", async () => {
    const model = new ScriptedModel(["a", "b"]);
    const greedy = async (ctx: WorkflowContext) => {
      for (;;) await ctx.ask("more");
    };
    const state = await new Agent({ model, registry: mathRegistry() }).run(greedy, "q", { maxIterations: 2 });
    expect(state.stopReason).toBe("max_iterations");
    const event = state.stream.ofType("max-iterations")[0];
    expect(event.iterations).toBe(2);
    expect(event.lastActionSummary).toBe("model-call: b");
    expect(event.partialState.stopReason).toBe("max_iterations");
    expect(model.calls).toHaveLength(2);
  });

  it("turns a failing model call into a model-error and stopReason model_error", async () => {
    const model = new ScriptedModel([
      () => {
        throw new Error("GPU on fire");
      },
    ]);
    const state = await new Agent({ model, registry: mathRegistry() }).run(addWorkflow, "q");
    expect(state.stopReason).toBe("model_error");
    expect(state.stream.ofType("model-error")[0].message).toBe("GPU on fire");
  });

  it("ends a workflow that throws with a workflow-error event, never an exception", async () => {
    const model = new ScriptedModel([]);
    const broken = defineWorkflow({
      name: "broken",
      run: () => {
        throw new Error("forgot to write this");
      },
    });
    const state = await new Agent({ model, registry: mathRegistry() }).run(broken, "q");
    expect(state.stopReason).toBe("workflow_error");
    expect(state.stream.toArray()).toEqual([
      expect.objectContaining({ type: "workflow-error", workflow: "broken", message: "forgot to write this" }),
    ]);
  });

  it("makes a failed ctx.call a tool-error and a WorkflowCallError the workflow may catch", async () => {
    const model = new ScriptedModel([]);
    let caught: unknown;
    const state = await new Agent({ model, registry: mathRegistry() }).run(async (ctx) => {
      try {
        await ctx.call("explode");
      } catch (error) {
        caught = error;
      }
      try {
        await ctx.call("constructor", {});
      } catch {
        // an unknown name is refused by scope, as in the loop
      }
      return String(await ctx.call("add", { a: 1, b: 2 }));
    }, "q");
    expect(caught).toBeInstanceOf(WorkflowCallError);
    expect(caught).toMatchObject({ skillName: "explode", reason: "kaboom: the reactor is offline" });
    const errors = state.stream.ofType("tool-error");
    expect(errors.map((e) => [e.skillName, e.guard])).toEqual([
      ["explode", undefined],
      ["constructor", "scope"],
    ]);
    expect(state.answer).toBe("3");
    expect(state.stats.toolErrors).toBe(2);
  });

  it("recognises its errors from another copy of the module (a workflow file loaded apart) by their brand", () => {
    const foreign = Object.assign(new Error("x"), { [Symbol.for("gemma-agent.workflow-call-error")]: true });
    expect(foreign).toBeInstanceOf(WorkflowCallError);
    expect(new Error("plain")).not.toBeInstanceOf(WorkflowCallError);
    expect(new WorkflowCallError("add", "no")).toBeInstanceOf(WorkflowCallError);
    const stop = Object.assign(new Error("ended"), { [Symbol.for("gemma-agent.workflow-stop")]: true });
    expect(isWorkflowStop(stop)).toBe(true);
    expect(isWorkflowStop(new WorkflowCallError("add", "no"))).toBe(false);
  });

  it("ends with workflow_error when a failed call is not caught, the tool-error before it", async () => {
    const state = await new Agent({ model: new ScriptedModel([]), registry: mathRegistry() }).run(
      (ctx) => ctx.call("explode"),
      "q",
    );
    expect(types(state.stream)).toEqual(["call-skill", "tool-error", "workflow-error"]);
    expect(state.stream.ofType("workflow-error")[0].message).toBe("explode failed: kaboom: the reactor is offline");
  });

  it("runs ctx.call through approval, custom guards, timeouts, result caps and repetition control", async () => {
    let runs = 0;
    const registry = new Registry([
      defineSkill({
        name: "long",
        description: "a long text",
        parameters: z.object({ n: z.number() }),
        run: ({ n }) => (runs++, "x".repeat(n)),
      }),
      defineSkill({
        name: "slow",
        description: "never ends",
        parameters: z.object({}),
        run: (_args, { signal }) =>
          new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
      }),
    ]);
    const agent = new Agent({
      model: new ScriptedModel([]),
      registry,
      maxResultChars: 50,
      skillTimeoutMs: 50,
      approve: ({ arguments: args }) => (args.n === 13 ? { decision: "deny", reason: "unlucky" } : "allow"),
      guards: [
        {
          name: "small",
          check: ({ arguments: args }) => (Number(args.n) > 1000 ? { ok: false, reason: "too big" } : { ok: true }),
        },
      ],
    });
    const state = await agent.run(async (ctx) => {
      const outcomes: string[] = [];
      for (const call of [
        () => ctx.call("long", { n: 13 }),
        () => ctx.call("long", { n: 5000 }),
        () => ctx.call("slow"),
        () => ctx.call("long", { n: 200 }),
        () => ctx.call("long", { n: 200 }),
      ]) {
        try {
          outcomes.push(String(await call()).length.toString());
        } catch (error) {
          outcomes.push((error as WorkflowCallError).guard ?? "failed");
        }
      }
      return outcomes.join(",");
    }, "q");
    // the skill's value is returned whole; what the stream (and a model) sees is capped
    expect(state.answer).toBe("approval,small,failed,200,200");
    const observations = state.stream.ofType("observation");
    expect(observations[0].truncated).toBe(true);
    expect(observations[0].result.length).toBeLessThan(200);
    expect(state.stream.ofType("tool-error")[2].message).toMatch(/did not finish within 50 ms|timed out/);
    const repeats = state.stream.ofType("call-skill").filter((e) => e.repeated);
    expect(repeats).toHaveLength(1);
    expect(runs).toBe(1);
    expect(state.stats.repeatedCalls).toBe(1);
  });

  it("aborts promptly, also while the workflow awaits work that ignores the signal", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel(["ok"]);
    const started = performance.now();
    const promise = new Agent({ model, registry: mathRegistry() }).run(
      async (ctx) => {
        await ctx.ask("first");
        setTimeout(() => controller.abort(new Error("user pressed Ctrl-C")), 10);
        await new Promise((resolve) => setTimeout(resolve, 10_000));
        return "never";
      },
      "q",
      { signal: controller.signal },
    );
    const state = await promise;
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(state.stopReason).toBe("aborted");
    expect(types(state.stream)).toEqual(["model-call", "aborted"]);
    expect(state.stream.ofType("aborted")[0].reason).toBe("user pressed Ctrl-C");
  });

  it("aborts a model call under way and records it once", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel([
      (_prompt, options) =>
        new Promise((_, reject) => options.signal?.addEventListener("abort", () => reject(new Error("stopped")))),
    ]);
    setTimeout(() => controller.abort(), 20);
    const state = await new Agent({ model, registry: mathRegistry() }).run(addWorkflow, "q", {
      signal: controller.signal,
    });
    expect(state.stopReason).toBe("aborted");
    expect(types(state.stream)).toEqual(["aborted"]);
  });

  it("streams with runStream exactly the events run records", async () => {
    const replies = ['{"a": 4, "b": "x"}', '{"a": 4, "b": 4}', "eight"];
    const ran = await new Agent({ model: new ScriptedModel(replies), registry: mathRegistry() }).run(
      addWorkflow,
      "4 4",
    );
    const streamed: AgentEvent[] = [];
    const run = new Agent({ model: new ScriptedModel(replies), registry: mathRegistry() }).runStream(
      addWorkflow,
      "4 4",
    );
    let next = await run.next();
    while (!next.done) {
      streamed.push(next.value);
      next = await run.next();
    }
    const strip = (events: AgentEvent[]) => events.map(({ at: _at, ...rest }) => ({ ...rest, ms: undefined }));
    expect(strip(streamed)).toEqual(strip(ran.stream.toArray()));
    expect(next.value.answer).toBe("eight");
  });

  it("stops the workflow when the runStream consumer stops early", async () => {
    let seen: AbortSignal | undefined;
    const model = new ScriptedModel([
      "first",
      (_prompt, options) =>
        new Promise((_, reject) => {
          seen = options.signal;
          options.signal?.addEventListener("abort", () => reject(new Error("stopped")));
        }),
    ]);
    const run = new Agent({ model, registry: mathRegistry() }).runStream(async (ctx) => {
      await ctx.ask("one");
      return ctx.ask("two");
    }, "q");
    for await (const event of run) if (event.type === "model-call") break;
    await new Promise((resolve) => setTimeout(resolve, 20));
    // either the second call never started (the run saw the abort first) or it started and was aborted
    expect({ calls: model.calls.length, aborted: seen?.aborted }).toSatisfy(
      (outcome: { calls: number; aborted?: boolean }) => outcome.calls === 1 || outcome.aborted === true,
    );
  });

  it("answers with a returned value's JSON, and ends workflow_error when nothing is returned", async () => {
    const agent = new Agent({ model: new ScriptedModel([]), registry: mathRegistry() });
    expect((await agent.run(() => ({ total: 3 }), "q")).answer).toBe('{"total":3}');
    const nothing = await agent.run(() => undefined, "q");
    expect(nothing.stopReason).toBe("workflow_error");
    expect(nothing.stream.ofType("workflow-error")[0].message).toBe("the workflow returned no answer");
  });

  it("gives ctx read-only state, the step count, the budgets and the skills", async () => {
    const seen: unknown[] = [];
    const state = await new Agent({ model: new ScriptedModel(["a"]), registry: mathRegistry() }).run(
      async (ctx) => {
        seen.push(ctx.step, ctx.budgets, ctx.skills, ctx.query);
        await ctx.ask("x");
        const view = ctx.state;
        (view.stats as { modelCalls: number }).modelCalls = 99;
        seen.push(ctx.step, view.iterations, view.events.length, ctx.state.stats.modelCalls);
        ctx.note("check", "done", { ok: true });
        return "fine";
      },
      "the query",
      { maxIterations: 5, maxRetries: 1 },
    );
    expect(seen).toEqual([0, { maxIterations: 5, maxRetries: 1 }, ["add", "echo", "explode"], "the query", 1, 1, 1, 1]);
    expect(state.stream.ofType("workflow-note")[0]).toMatchObject({
      label: "check",
      message: "done",
      data: { ok: true },
    });
  });

  it("throws for caller bugs: no workflow or query, bad options", async () => {
    const agent = new Agent({ model: new ScriptedModel([]), registry: mathRegistry() });
    await expect(agent.run(42 as never, "q")).rejects.toThrow(TypeError);
    await expect(agent.run(addWorkflow, "")).rejects.toThrow(/query must be a non-empty string/);
    await expect(agent.run(addWorkflow, "q", { maxIterations: 0 })).rejects.toThrow(RangeError);
    // the old signature still works
    const model = new ScriptedModel([callReply("add", { a: 1, b: 1 }), answerReply("2")]);
    expect((await new Agent({ model, registry: mathRegistry() }).run("1+1?", { maxIterations: 3 })).answer).toBe("2");
  });

  it("asks with a JSON Schema, a non-object schema too (asked as {value}, returned unwrapped)", async () => {
    const model = new ScriptedModel(['{"value": "b"}', '{"n": 7}']);
    const state = await new Agent({ model, registry: mathRegistry() }).run(async (ctx) => {
      const pick = await ctx.ask("a or b?", { schema: z.enum(["a", "b"]) });
      const json = (await ctx.ask("n?", {
        schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      })) as { n: number };
      return `${pick}${json.n}`;
    }, "q");
    expect(state.answer).toBe("b7");
    expect(model.calls[0].options.jsonSchema).toMatchObject({ properties: { value: { enum: ["a", "b"] } } });
  });

  it("round-trips its trace through JSON Lines", async () => {
    const model = new ScriptedModel(['{"a": 2, "b": "x"}', '{"a": 2, "b": 3}', "five"], { reportTokens: true });
    const state = await new Agent({ model, registry: mathRegistry() }).run(addWorkflow, "2 3");
    const back = EventStream.fromJSONL(state.stream.toJSONL());
    expect(back.toArray()).toEqual(JSON.parse(JSON.stringify(state.stream.toArray())));
    expect(types(back)).toContain("model-call");
  });
});

describe("ctx.agent", () => {
  it("runs an agent definition (issue 14's YAML) on the run's model as one step", async () => {
    const { loadAgentDefinition } = await import("../../src/definitions/load-agent-definition.js");
    const { agentFromDefinition } = await import("../../src/definitions/agent-from-definition.js");
    const definition = await loadAgentDefinition("examples/agents/supervisor/math-expert.yaml");
    const model = new ScriptedModel([callReply("calculator", { expression: "3 * 250" }), answerReply("750")]);
    const state = await new Agent({ model, registry: mathRegistry() }).run(
      (ctx) => ctx.agent((runModel) => agentFromDefinition(definition, { model: runModel }), "3 * 250"),
      "How much is 3 times 250 g?",
    );
    expect(state.answer).toBe("750");
    expect(state.stream.toArray().map((e) => `${e.depth ?? 0}:${e.type}`)).toEqual([
      "0:call-skill",
      "1:call-skill",
      "1:observation",
      "1:final-answer",
      "0:observation",
      "0:final-answer",
    ]);
    expect(state.stream.ofType("call-skill")[0]).toMatchObject({ skillName: "agent", arguments: { task: "3 * 250" } });
    model.assertConsumed();
  });

  it("gives the nested run what the budget has left, and reports a nested run without an answer as a tool-error", async () => {
    const model = new ScriptedModel(["x", callReply("echo", { text: "a" }), callReply("echo", { text: "b" })]);
    let caught: unknown;
    const state = await new Agent({ model, registry: mathRegistry() }).run(
      async (ctx) => {
        await ctx.ask("warm up");
        try {
          await ctx.agent({ registry: mathRegistry(), name: "helper", finalRoundWithoutTools: false }, "echo twice");
        } catch (error) {
          caught = error;
        }
        return ctx.ask("one more");
      },
      "q",
      { maxIterations: 3 },
    );
    expect(caught).toBeInstanceOf(WorkflowCallError);
    expect(state.stream.ofType("tool-error")[0]).toMatchObject({
      skillName: "helper",
      message: "helper stopped without an answer (max_iterations)",
    });
    // the nested run had 2 of the 3 model calls; the run's next ask is past the budget
    expect(state.iterations).toBe(3);
    expect(state.stopReason).toBe("max_iterations");
  });
});
