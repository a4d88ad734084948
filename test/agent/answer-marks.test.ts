/** What an answer rests on: cut at its bound, given without any skill call, forced by a final round. */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { answerMarks, answerNotes } from "../../src/agent/answer-marks.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";
import { mathRegistry } from "../helpers/skills.js";

describe("answer marks", () => {
  it("an answer with no call before it is marked as given without a skill call, and nothing else", async () => {
    const state = await new Agent({ model: new ScriptedModel([answerReply("5")]), registry: mathRegistry() }).run(
      "2+3?",
    );
    expect(answerMarks(state)).toEqual({ truncated: false, withoutSkillCall: true, forcedByFinalRound: false });
    expect(answerNotes(answerMarks(state), state.answer)).toEqual([
      "answered without calling a skill: no result backs it",
    ]);
  });

  it("an answer after a call, within the budget, carries no mark", async () => {
    const model = new ScriptedModel([callReply("add", { a: 2, b: 3 }), answerReply("5")]);
    const state = await new Agent({ model, registry: mathRegistry() }).run("2+3?", { maxIterations: 8 });
    expect(answerMarks(state)).toEqual({ truncated: false, withoutSkillCall: false, forcedByFinalRound: false });
    expect(answerNotes(answerMarks(state), state.answer)).toEqual([]);
  });

  it("an answer written in the final round of the budget is marked as forced by it", async () => {
    const model = new ScriptedModel([callReply("add", { a: 2, b: 3 }), answerReply("5")]);
    const state = await new Agent({ model, registry: mathRegistry() }).run("2+3?", { maxIterations: 2 });
    expect(state.stream.ofType("final-round")).toHaveLength(1);
    expect(answerMarks(state)).toMatchObject({ withoutSkillCall: false, forcedByFinalRound: true });
  });

  it("an answer that fills the grammar's bound is cut: the event and the marks say so", async () => {
    const long = "x".repeat(40);
    const model = new ScriptedModel([answerReply(long)]);
    const state = await new Agent({ model, registry: mathRegistry(), maxAnswerChars: 40 }).run("q");
    expect(state.stream.ofType("final-answer")[0]).toMatchObject({ truncated: true });
    expect(answerMarks(state)).toMatchObject({ truncated: true });
    expect(answerNotes(answerMarks(state), state.answer)[0]).toBe(
      "the answer was cut at 40 characters (--max-answer-chars raises the bound)",
    );
    // the same answer under a larger bound is whole
    const whole = await new Agent({ model: new ScriptedModel([answerReply(long)]), registry: mathRegistry() }).run("q");
    expect(whole.stream.ofType("final-answer")[0].truncated).toBeUndefined();
  });

  it("an answer whose reply stopped mid-JSON (the token limit) is cut; without a grammar the bound does not apply", async () => {
    const model = new ScriptedModel(['{"final_answer":"The sum is 5, because two plus']);
    const state = await new Agent({ model, registry: mathRegistry() }).run("q");
    expect(state.answer).toBe("The sum is 5, because two plus");
    expect(answerMarks(state)).toMatchObject({ truncated: true });
    const free = new ScriptedModel([answerReply("y".repeat(400))]);
    const unbounded = await new Agent({ model: free, registry: mathRegistry(), grammar: false }).run("q");
    expect(answerMarks(unbounded)).toMatchObject({ truncated: false });
  });

  it("a run without an answer has no marks", async () => {
    const model = new ScriptedModel(["nonsense", "nonsense"]);
    const state = await new Agent({ model, registry: mathRegistry() }).run("q", { maxIterations: 2 });
    expect(state.answer).toBeUndefined();
    expect(answerMarks(state)).toEqual({ truncated: false, withoutSkillCall: false, forcedByFinalRound: false });
  });
});
