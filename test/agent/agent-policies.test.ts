import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { ScriptedModel, answerReply, callReply } from "../../src/testing/index.js";
import { mathRegistry } from "../helpers/skills.js";

const model = () => new ScriptedModel([]);

describe("agent-level policies", () => {
  it("refuses budgets, policies, schemas, constraints and memory that cannot be used (caller bugs)", () => {
    const make = (extra: object) => () => new Agent({ model: model(), registry: mathRegistry(), ...extra });
    expect(make({ maxIterations: 0 })).toThrowError(/maxIterations must be an integer >= 1/);
    expect(make({ maxRetries: -1 })).toThrowError(/maxRetries must be an integer >= 0/);
    expect(make({ onMaxIterations: "shrug" })).toThrowError(/onMaxIterations must be "error" or "warn_and_return"/);
    expect(make({ outputSchema: { type: "frob" } })).toThrowError(/output schema: not a usable JSON Schema/);
    expect(make({ constraints: { maxLatencyMs: 0 } })).toThrowError(/constraints.maxLatencyMs must be an integer >= 1/);
    expect(make({ constraints: { forbiddenPatterns: ["/(/"] } })).toThrowError(/not a valid regular expression/);
    expect(make({ memory: { tokenBudget: 1.5 } })).toThrowError(/memory.tokenBudget must be an integer >= 1/);
    expect(make({ memory: { trimPolicy: "forget" } })).toThrowError(
      /memory.trimPolicy must be drop_oldest or summarize_oldest/,
    );
  });

  it("maxIterations and maxRetries are defaults of the agent's runs; a run's own options win", async () => {
    const calls = () => Array.from({ length: 5 }, (_, i) => callReply("add", { a: i, b: 1 }));
    const agent = (replies: string[]) =>
      new Agent({
        model: new ScriptedModel(replies),
        registry: mathRegistry(),
        maxIterations: 3,
        finalRoundWithoutTools: false,
      });
    expect((await agent(calls()).run("Go")).iterations).toBe(3);
    const state = await agent([...calls(), answerReply("done")]).run("Go", { maxIterations: 6 });
    expect([state.iterations, state.answer]).toEqual([6, "done"]);
  });

  it("warn_and_return with no candidate at all warns and returns nothing", async () => {
    const agent = new Agent({
      model: new ScriptedModel(["not json", "still not"]),
      registry: mathRegistry(),
      maxIterations: 2,
      maxRetries: 5,
      onMaxIterations: "warn_and_return",
    });
    const state = await agent.run("Go");
    expect([state.stopReason, state.answer]).toEqual(["max_iterations", undefined]);
    expect(state.stream.ofType("warning")[0].message).toMatch(/no answer candidate to return/);
  });
});
