import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
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

  it("a call that failed with an error quoting its value: the next steps are told the skill, key and value", async () => {
    const table: Record<string, number> = { widget: 4.5 };
    const price = defineSkill({
      name: "price",
      description: "The price of a product.",
      parameters: z.object({ product: z.string(), shop: z.string().optional() }),
      run: ({ product }) => {
        if (product === "boom") throw new Error("the shop is closed");
        if (!(product in table)) throw new Error(`no entry for ${JSON.stringify(product)}; known: widget`);
        return table[product];
      },
    });
    const model = new ScriptedModel([
      callReply("price", { product: "widgets", shop: "Acme" }),
      callReply("price", { product: "boom" }),
      callReply("price", { product: "widget" }),
      answerReply("4.5"),
    ]);
    await new Agent({ model, registry: new Registry([price]) }).run("What does a widget cost at Acme?", {
      maxIterations: 5,
    });
    const failed = model.calls.map((call) => call.options.grounding?.failed);
    expect(failed[0]).toBeUndefined();
    // "Acme" is no part of the error: only the value the error quotes; an error that quotes none adds nothing
    const widgets = [{ skill: "price", key: "product", value: "widgets" }];
    expect(failed[1]).toEqual(widgets);
    expect(failed[2]).toEqual(widgets);
    expect(failed[3]).toEqual(widgets);
  });

  it("an answer refused as the prompt's text is passed on as refused; one whose raw reply does not parse is not", async () => {
    const copied = "Answer the question now with a final_answer";
    const model = new ScriptedModel([answerReply(copied), answerReply("5")]);
    await new Agent({ model, registry: mathRegistry() }).run("What is 2+3?");
    expect(model.calls[1].options.grounding!.refused).toEqual([copied]);
    // a reply only jsonrepair reads (its closing brace missing) is refused the same, but its raw text names no answer
    const cut = new ScriptedModel([`{"final_answer": "${copied}"`, answerReply("5")]);
    const state = await new Agent({ model: cut, registry: mathRegistry() }).run("What is 2+3?");
    expect(state.stream.ofType("validation-error").map((e) => e.errorType)).toEqual(["copied_prompt_text"]);
    expect(cut.calls[1].options.grounding!.refused).toBeUndefined();
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
