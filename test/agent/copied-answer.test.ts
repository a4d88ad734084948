/** A final answer that hands the prompt's own text back (a placeholder, an instruction) is refused like an empty one. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";
import { mathRegistry } from "../helpers/skills.js";

/** A skill whose description holds an example value, as the calculator's does. */
function percentRegistry(): Registry {
  return new Registry().register(
    defineSkill({
      name: "calc",
      description: "Evaluate an arithmetic expression, e.g. 15/100*80 for 15% of 80.",
      parameters: z.object({ expression: z.string() }),
      run: () => "12",
    }),
  );
}

describe("answers that copy the prompt", () => {
  it.each([
    ["the format's placeholder", "<your answer, in full sentences>"],
    ["the placeholder without its brackets, in other case", "Your answer, in full sentences."],
    ["an ellipsis", "..."],
    ["punctuation alone", "…"],
    ["the final round's instruction", "Answer the question now with a final_answer"],
    ["a piece of a nudge", "You already made this exact call"],
  ])("refuses %s, feeds the refusal back and counts it, then accepts the answer", async (_, copied) => {
    const model = new ScriptedModel([answerReply(copied), answerReply("5")]);
    const state = await new Agent({ model, registry: mathRegistry() }).run("What is 2+3?");
    const error = state.stream.ofType("validation-error")[0];
    expect(error).toMatchObject({ validatorName: "answer_not_prompt_text", errorType: "copied_prompt_text" });
    expect(error.answer).toBeUndefined();
    expect(model.calls[1].prompt).toContain(error.feedback);
    expect(state.stats.validationErrorsByType).toEqual({ copied_prompt_text: 1 });
    expect(state.answer).toBe("5");
    expect(state.stopReason).toBe("answer");
    model.assertConsumed();
  });

  it("refuses a skill description's example written as the answer, but not the result it computed", async () => {
    const model = new ScriptedModel([
      callReply("calc", { expression: "15/100*80" }),
      answerReply("15/100*80"),
      answerReply("15% of 80 is 12."),
    ]);
    const state = await new Agent({ model, registry: percentRegistry() }).run("What is 15% of 80?");
    // the expression sits in the call the model wrote, but neither in the question nor in a result: still a copy
    expect(state.stream.ofType("validation-error").map((e) => e.errorType)).toEqual(["copied_prompt_text"]);
    expect(state.answer).toBe("15% of 80 is 12.");
  });

  it("accepts short answers and answers the question or a result holds, even when the prompt holds them too", async () => {
    const registry = new Registry().register(
      defineSkill({
        name: "lookup",
        description: "Look a word up; returns its definition.",
        parameters: z.object({ word: z.string() }),
        run: () => "Answer the question now with care",
      }),
    );
    const model = new ScriptedModel([
      callReply("lookup", { word: "x" }),
      answerReply("Answer the question now with care"),
    ]);
    const state = await new Agent({ model, registry }).run("What does x mean?");
    expect(state.stream.ofType("validation-error")).toEqual([]);
    expect(state.answer).toBe("Answer the question now with care");

    const short = new ScriptedModel([answerReply("Add")]);
    expect((await new Agent({ model: short, registry: mathRegistry() }).run("q")).answer).toBe("Add");
  });

  it("ends with retries_exhausted and no answer when every reply is the placeholder", async () => {
    const model = new ScriptedModel(Array.from({ length: 3 }, () => answerReply("<your answer, in full sentences>")));
    const state = await new Agent({ model, registry: mathRegistry() }).run("q", { maxRetries: 2 });
    expect(state.stopReason).toBe("retries_exhausted");
    expect(state.answer).toBeUndefined();
    expect(state.stats.validationErrorsByType).toEqual({ copied_prompt_text: 3 });
  });
});
