import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";
import { fitContext } from "../../src/memory/fit-context.js";

/** A scripted model that counts a token per 4 characters and has a small context. */
function smallContextModel(
  replies: string[],
  contextSize: number,
): ScriptedModel & { countTokens(p: string): number; contextSize: number } {
  const model = new ScriptedModel(replies) as ScriptedModel & {
    countTokens(p: string): number;
    contextSize: number;
    replyOverrun: number;
  };
  model.countTokens = (prompt: string) => Math.ceil(prompt.length / 4);
  model.contextSize = contextSize;
  model.replyOverrun = 16;
  return model;
}

const lookup = new Registry([
  defineSkill({
    name: "lookup",
    description: "Look a word up.",
    parameters: z.object({ word: z.string() }),
    run: ({ word }) => `${word}: ${"a long definition ".repeat(6)}`,
  }),
]);

describe("context fitting", () => {
  it("leaves out the oldest steps so that prompt + reply fit, keeping the instructions, the question and the newest result", async () => {
    const replies = [
      ...Array.from({ length: 11 }, (_, i) => callReply("lookup", { word: `w${i}` })),
      answerReply("done"),
    ];
    const model = smallContextModel(replies, 700);
    const state = await new Agent({ model, registry: lookup, maxTokens: 100, finalRoundWithoutTools: false }).run(
      "Define eleven words.",
      { maxIterations: 12 },
    );
    expect(state.stopReason).toBe("answer");
    expect(state.iterations).toBe(12);
    for (const { prompt } of model.calls) expect(model.countTokens(prompt) + 100 + 16).toBeLessThanOrEqual(700);
    const trims = state.stream.ofType("context-trimmed");
    expect(trims.length).toBeGreaterThan(0);
    expect(trims.map((t) => t.droppedSteps)).toEqual(trims.map((t) => t.droppedSteps).sort((a, b) => a - b));
    const last = model.calls.at(-1)!.prompt;
    expect(last).toContain("Define eleven words.");
    expect(last).toContain("# Skills");
    expect(last).toContain("w10: a long definition");
    expect(last).not.toContain("w0: a long definition");
    expect(last).toMatch(/\d+ earlier steps are not shown/);
    expect(state.stats.contextTrims).toBe(trims.length);
  });

  it("shrinks the reply budget when nothing more can be dropped, and fails clearly when even that is too little", async () => {
    const model = smallContextModel([callReply("lookup", { word: "x" }), answerReply("x")], 520);
    const state = await new Agent({ model, registry: lookup, maxTokens: 400 }).run("q");
    expect(state.stopReason).toBe("answer");
    const budgets = model.calls.map((c) => c.options.maxTokens!);
    expect(budgets.filter((b) => !(b < 400 && b >= 64))).toEqual([]);

    const tiny = smallContextModel([answerReply("x")], 200);
    const failed = await new Agent({ model: tiny, registry: lookup }).run("q");
    expect(failed.stopReason).toBe("model_error");
    expect(failed.stream.ofType("model-error")[0].message).toMatch(
      /the prompt needs \d+ tokens even with 0 earlier step\(s\) left out/,
    );
    expect(tiny.calls).toHaveLength(0);
  });

  it("keeps only a short wrap-up when the newest step leaves too little room for the full one", async () => {
    const input = {
      render: () => "p",
      countTokens: () => 918,
      contextSize: 1024,
      replyTokens: 512,
      replyOverrun: 128,
      dropped: 0,
      steps: 0,
    };
    expect(await fitContext(input)).toEqual({
      droppedSteps: 0,
      promptTokensBefore: 918,
      promptTokensAfter: 918,
      replyTokens: 1024 - 918 - 32,
    });
    await expect(fitContext({ ...input, countTokens: () => 940 })).rejects.toThrow(
      /leaves 52 of the 1024-token context/,
    );
  });

  it("does nothing when the model cannot count tokens or fitting is off", async () => {
    const model = smallContextModel([answerReply("x")], 100);
    const state = await new Agent({ model, registry: lookup, fitContext: false }).run("q");
    expect(state.stream.ofType("context-trimmed")).toHaveLength(0);
    expect(state.stopReason).toBe("answer");
  });
});

describe("fitContext with a token budget (a conversation's memory)", () => {
  /** Level k renders 1000 - 100k characters; a token is a character. */
  const input = (extra: Partial<Parameters<typeof fitContext>[0]> = {}) => ({
    render: (drop: number) => "x".repeat(1000 - 100 * drop),
    countTokens: (prompt: string) => prompt.length,
    contextSize: 10_000,
    replyTokens: 100,
    replyOverrun: 0,
    dropped: 0,
    steps: 8,
    ...extra,
  });

  it("goes to the lowest level under the budget, even when the context has room", async () => {
    expect(await fitContext(input({ promptBudget: 1000 }))).toBeUndefined();
    expect(await fitContext(input({ promptBudget: 750 }))).toEqual({
      droppedSteps: 3,
      promptTokensBefore: 1000,
      promptTokensAfter: 700,
      replyTokens: 100,
    });
  });

  it("trims on to the target through the levels it names (large chunks), and no further", async () => {
    const fit = await fitContext(input({ promptBudget: 950, trimTarget: { tokens: 600, levels: 3 } }));
    expect(fit?.droppedSteps).toBe(3); // 700: the target is not reached within its 3 levels
    const deeper = await fitContext(input({ promptBudget: 950, trimTarget: { tokens: 600, levels: 6 } }));
    expect(deeper?.droppedSteps).toBe(4);
  });

  it("a prompt over the budget at the last level is an error saying so", async () => {
    await expect(fitContext(input({ promptBudget: 100, steps: 3 }))).rejects.toThrowError(
      /needs 800 tokens even with all the older material left out \(2 trim step\(s\)\), over the memory's token budget of 100/,
    );
  });
});

describe("fitContext with a reply budget under MIN_REPLY_TOKENS", () => {
  it("a step that asks for 48 reply tokens fits when 48 are left (not refused for lacking 64)", async () => {
    const fit = await fitContext({
      render: (drop: number) => "x".repeat(1000 - 100 * drop),
      countTokens: (prompt: string) => prompt.length,
      contextSize: 1_000,
      replyTokens: 48,
      replyOverrun: 0,
      dropped: 0,
      steps: 4,
    });
    expect(fit).toMatchObject({ droppedSteps: 1, promptTokensAfter: 900, replyTokens: 48 });
  });
});
