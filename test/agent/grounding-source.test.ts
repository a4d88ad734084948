import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { runtimeNoteTexts } from "../../src/agent/grounding-source.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";
import { mathRegistry } from "../helpers/skills.js";

describe("grounding source of each step (issue 26)", () => {
  it("a call step grounds in the question; after a result, the final round grounds in the result first", async () => {
    const model = new ScriptedModel([callReply("add", { a: 17, b: 25 }), answerReply("42")]);
    const agent = new Agent({ model, registry: mathRegistry(), grounding: "soft" });
    const state = await agent.run("What is 17 plus 25?", { maxIterations: 2 });
    expect(state.answer).toBe("42");
    const [first, second] = model.calls.map((c) => c.options.grounding);
    expect(first).toMatchObject({ mode: "soft", source: ["What is 17 plus 25?"] });
    expect(first!.avoid![0]).toBe(agent.systemPrompt);
    // the second step is the budget's final round: the newest result comes before the question
    expect(state.stream.ofType("final-round")).toHaveLength(1);
    expect(second).toMatchObject({ mode: "soft", source: ["42", "What is 17 plus 25?"] });
  });

  it("the runtime's notes are in the avoid list, and what the run told the model too", async () => {
    const model = new ScriptedModel([callReply("add", { a: "x", b: 1 }), answerReply("done")]);
    const state = await new Agent({ model, registry: mathRegistry(), grounding: "strict" }).run("Add 1 and 2");
    const feedback = state.stream.ofType("validation-error")[0].feedback;
    const avoid = model.calls[1].options.grounding!.avoid!;
    expect(avoid).toContain(feedback);
    expect(avoid).toContain(
      "No more skill calls. Answer the question now with a final_answer, using the results above.",
    );
    expect(runtimeNoteTexts().filter((t) => t.includes("{{"))).toEqual([]);
  });

  it("grounding off sends none; a bad mode is a caller bug", async () => {
    const model = new ScriptedModel([answerReply("hi")]);
    await new Agent({ model, registry: mathRegistry(), grounding: "off" }).run("Say hi");
    expect(model.calls[0].options.grounding).toBeUndefined();
    expect(() => new Agent({ model, registry: mathRegistry(), grounding: "hard" as never })).toThrow(TypeError);
  });

  it("groundingLevers travel with each step's grounding; an unknown lever is a caller bug", async () => {
    const model = new ScriptedModel([answerReply("hi")]);
    await new Agent({ model, registry: mathRegistry(), groundingLevers: ["numbers", "answers"] }).run("Say hi");
    expect(model.calls[0].options.grounding).toMatchObject({ mode: "soft", levers: ["numbers", "answers"] });
    const all = new ScriptedModel([answerReply("hi")]);
    await new Agent({ model: all, registry: mathRegistry() }).run("Say hi");
    expect(all.calls[0].options.grounding!.levers).toBeUndefined();
    expect(() => new Agent({ model, registry: mathRegistry(), groundingLevers: ["copy", "magic" as never] })).toThrow(
      /groundingLevers must be a list of copy, numbers, strings, answers/,
    );
  });
});
