/**
 * The final round's prompt ends with what the answer should come from (issue 26 item 6): the run's newest result, after
 * the repeat note and the final round's instruction, never with an instruction a small model would copy.
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { gemma3ChatFormat } from "../../src/prompt/index.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";
import { mathRegistry } from "../helpers/skills.js";

/** The prompt's last user turn, without the turn markup and the generation prompt after it. */
function lastUserTurn(prompt: string): string {
  const turns = prompt.split("<start_of_turn>user\n");
  return turns[turns.length - 1].split("<end_of_turn>")[0];
}

describe("the final round's prompt", () => {
  it("at the budget's last step, ends with the newest result", async () => {
    const model = new ScriptedModel([callReply("add", { a: 17, b: 25 }), answerReply("42")], {
      chatFormat: gemma3ChatFormat,
    });
    await new Agent({ model, registry: mathRegistry(), grounding: "off" }).run("What is 17 plus 25?", {
      maxIterations: 2,
    });
    const turn = lastUserTurn(model.calls[1].prompt);
    expect(turn).toMatch(/No more skill calls\./);
    expect(turn.trimEnd()).toMatch(/result of add:\n42$/);
  });

  it("after a repeated call, the repeat note comes before the result, not after it", async () => {
    const call = callReply("add", { a: 2, b: 3 });
    const model = new ScriptedModel([call, call, answerReply("5")], { chatFormat: gemma3ChatFormat });
    const state = await new Agent({ model, registry: mathRegistry(), grounding: "off" }).run("Add 2 and 3", {
      maxIterations: 8,
    });
    expect(state.stream.ofType("final-round")).toMatchObject([{ reason: "repeat" }]);
    const turn = lastUserTurn(model.calls[2].prompt);
    expect(turn.indexOf("already made this exact call")).toBeGreaterThanOrEqual(0);
    expect(turn.indexOf("already made this exact call")).toBeLessThan(turn.lastIndexOf("No more skill calls."));
    expect(turn.trimEnd()).toMatch(/result of add:\n5$/);
  });

  it("without any result, says only that no more calls are allowed", async () => {
    const model = new ScriptedModel([callReply("add", { a: "x", b: 1 }), answerReply("3")], {
      chatFormat: gemma3ChatFormat,
    });
    const state = await new Agent({ model, registry: mathRegistry(), grounding: "off" }).run("Add 1 and 2", {
      maxIterations: 2,
    });
    expect(state.stream.ofType("final-round")).toHaveLength(1);
    const turn = lastUserTurn(model.calls[1].prompt);
    expect(turn).toContain("No more skill calls.");
    expect(turn).not.toContain("result of");
  });
});
