import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import type { DecisionOptions, GenerateOptions, ModelHandle } from "../../src/model/model-handle.js";
import { calculatorSkill } from "../../src/skills/builtin/index.js";
import { Registry } from "../../src/skills/index.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";

/**
 * A scripted model that says it scores decisions (as the llama loader does): it records each call's decision options
 * and reports one branch point per call through them, as a loader would.
 */
function scoringModel(replies: string[]): ModelHandle & { decisions: (DecisionOptions | undefined)[] } {
  const scripted = new ScriptedModel(replies);
  const decisions: (DecisionOptions | undefined)[] = [];
  return {
    scoresDecisions: true,
    decisions,
    async generate(prompt: string, options: GenerateOptions = {}) {
      decisions.push(options.decision);
      options.decision?.onBranch?.({
        at: "action",
        options: [{ option: "skill_name", logprob: -0.1, offset: options.decision.skills?.calculator ?? 0 }],
        chosen: "skill_name",
      });
      return scripted.generate(prompt, options);
    },
  };
}

const registry = () => new Registry([calculatorSkill]);

describe("the decision in the loop", () => {
  it("passes each step's offsets to a handle that scores them, and records its branch points as a decision event", async () => {
    const model = scoringModel([callReply("calculator", { expression: "17*23" }), answerReply("391")]);
    const state = await new Agent({ model, registry: registry() }).run("What is 17 times 23?");
    expect(state.answer).toBe("391");
    // the question fits the calculator: calling it is favoured over answering
    expect(model.decisions[0]?.skills?.calculator).toBeGreaterThan(model.decisions[0]?.answer ?? 0);
    const events = state.stream.toArray().map((event) => event.type);
    expect(events[0]).toBe("decision");
    expect(state.stream.ofType("decision")[0].branches[0]).toMatchObject({ at: "action", chosen: "skill_name" });
  });

  it("holds a final round once the results are in: a one-call question answers at step 2, not after a repeat", async () => {
    const model = scoringModel([callReply("calculator", { expression: "17*23" }), answerReply("391")]);
    const state = await new Agent({ model, registry: registry() }).run("What is 17 times 23?");
    expect(state.stream.ofType("final-round")).toEqual([expect.objectContaining({ reason: "done", step: 2 })]);
    // a final round takes no decision (its grammar allows only the answer)
    expect(model.decisions[1]).toBeUndefined();
    expect(state.iterations).toBe(2);
  });

  it("leaves everything to the model with decision off, or with a handle that does not score", async () => {
    const off = scoringModel([callReply("calculator", { expression: "17*23" }), answerReply("391")]);
    const offState = await new Agent({ model: off, registry: registry(), decision: "off" }).run("What is 17 times 23?");
    expect(off.decisions).toEqual([undefined, undefined]);
    expect(offState.stream.ofType("final-round")).toEqual([]);
    const scripted = new ScriptedModel([callReply("calculator", { expression: "17*23" }), answerReply("391")]);
    const state = await new Agent({ model: scripted, registry: registry() }).run("What is 17 times 23?");
    expect(state.stream.ofType("final-round")).toEqual([]);
    expect(state.stream.ofType("decision")).toEqual([]);
  });

  it("refuses a decision it does not know, and lever lists that are not lists of levers", () => {
    const model = new ScriptedModel([]);
    // @ts-expect-error: not a mode
    expect(() => new Agent({ model, registry: registry(), decision: "always" })).toThrow(/decision must be/);
    // @ts-expect-error: not a lever
    expect(() => new Agent({ model, registry: registry(), decisionLevers: ["luck"] })).toThrow(/decisionLevers/);
  });
});
