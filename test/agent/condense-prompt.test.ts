/**
 * Issue 19 §2, a context that never overflows: when even every earlier step left out leaves too little of the context
 * for a reply, the run condenses its system prompt to the compact style (a `context-trimmed` event with
 * `promptStyle: "compact"`), and only when even that does not fit is it the clear model error.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, AgentState } from "../../src/agent/index.js";
import { buildMessages, RunTranscript } from "../../src/agent/build-messages.js";
import { renderEvent } from "../../src/cli/render-event.js";
import { gemma3ChatFormat } from "../../src/prompt/index.js";
import { sharedOpeningLength } from "../../src/prompt/shared-opening.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";

/** A token per 4 characters: the scripted model's "tokenizer". */
const count = (prompt: string) => Math.ceil(prompt.length / 4);
const MAX_TOKENS = 100;
const QUESTION = "What does 'serendipity' mean?";

const registry = new Registry([
  defineSkill({
    name: "lookup",
    description: "Look a word up in the dictionary.",
    parameters: z.object({
      word: z.string().describe("the word, as written"),
      language: z.enum(["en", "fr", "de"]).describe("the dictionary's language"),
    }),
    run: ({ word }) => `${word}: finding something good without looking for it.`,
  }),
]);

type SizedModel = ScriptedModel & { countTokens(p: string): number; contextSize: number; replyOverrun: number };

/** A scripted model that counts tokens with `count` and has a context of `contextSize` tokens. */
function sizedModel(replies: string[], contextSize: number): SizedModel {
  const model = new ScriptedModel(replies) as SizedModel;
  model.countTokens = count;
  model.contextSize = contextSize;
  model.replyOverrun = 0;
  return model;
}

/** The first prompt's tokens in the full and in the compact style, for an agent on `registry`. */
function firstPromptTokens(): { full: number; compact: number } {
  const agent = new Agent({ model: new ScriptedModel([]), registry });
  const state = new AgentState(QUESTION);
  return {
    full: count(agent.renderPrompt(state)),
    compact: count(agent.renderPrompt(state, { promptStyle: "compact" })),
  };
}

describe("condensing the system prompt when the context is too small for the full one", () => {
  it("a first prompt that does not fit in the full style is sent in the compact style, the run answers, the event says so", async () => {
    const first = firstPromptTokens();
    // room for the compact prompt, a whole reply and the first step's call and result; under 64 for the full one
    const contextSize = first.compact + MAX_TOKENS + 60;
    expect(contextSize - first.full).toBeLessThan(64);
    const model = sizedModel(
      [callReply("lookup", { word: "serendipity", language: "en" }), answerReply("A happy accident.")],
      contextSize,
    );
    const agent = new Agent({ model, registry, maxTokens: MAX_TOKENS });
    const compactSystem = agent.compactSystemPrompt!;
    expect(compactSystem).toContain("- lookup(");
    expect(agent.systemPrompt).toContain("  arguments:\n  - word (");

    const state = await agent.run(QUESTION);

    expect(state.stopReason).toBe("answer");
    expect(state.answer).toBe("A happy accident.");
    expect(state.stream.ofType("model-error")).toEqual([]);
    const trims = state.stream.ofType("context-trimmed");
    expect(trims[0]).toMatchObject({
      step: 1,
      droppedSteps: 0,
      promptTokensBefore: first.full,
      promptTokensAfter: first.compact,
      contextSize,
      replyTokens: MAX_TOKENS,
      promptStyle: "compact",
    });
    // the run stays compact: every later trim says so, and every prompt sent begins with the compact system prompt
    expect(trims.filter((t) => t.promptStyle !== "compact")).toEqual([]);
    expect(model.calls).toHaveLength(2);
    const opening = sharedOpeningLength(gemma3ChatFormat, compactSystem);
    for (const { prompt, options } of model.calls) {
      expect(prompt).toContain(compactSystem);
      expect(prompt).not.toContain("  arguments:\n");
      expect(count(prompt) + options.maxTokens!).toBeLessThanOrEqual(contextSize);
      // the prompt cache's shared opening is the compact system prompt's, as sent
      expect(options.sharedPrefix).toBe(opening);
      expect(prompt.slice(0, opening)).toBe(model.calls[0].prompt.slice(0, opening));
    }
    expect(model.calls[1].prompt.slice(0, model.calls[0].prompt.length)).toBe(model.calls[0].prompt);
    expect(state.stats.contextTrims).toBe(trims.length);
    expect(renderEvent(trims[0])).toContain("system prompt in the compact style");
  });

  it("when even the compact prompt leaves too little room, the run ends with the clear model error and no call", async () => {
    const first = firstPromptTokens();
    const model = sizedModel([answerReply("never")], first.compact + 40);
    const state = await new Agent({ model, registry, maxTokens: MAX_TOKENS }).run(QUESTION);
    expect(state.stopReason).toBe("model_error");
    const [error] = state.stream.ofType("model-error");
    expect(error.message).toMatch(
      new RegExp(
        `the prompt needs ${first.compact} tokens even with 0 earlier step\\(s\\) left out, which leaves 40 of`,
      ),
    );
    expect(error.message).toContain("already in the compact style");
    expect(state.stream.ofType("context-trimmed")).toEqual([]);
    expect(model.calls).toHaveLength(0);
  });

  it("an agent in the compact style has nothing to condense to: the error as before", async () => {
    const first = firstPromptTokens();
    const model = sizedModel([answerReply("never")], first.compact + 40);
    const agent = new Agent({ model, registry, maxTokens: MAX_TOKENS, promptStyle: "compact" });
    expect(agent.compactSystemPrompt).toBeUndefined();
    const state = await agent.run(QUESTION);
    expect(state.stopReason).toBe("model_error");
    expect(model.calls).toHaveLength(0);
  });

  it("a full prompt that fits stays full (nothing condensed, no event)", async () => {
    const first = firstPromptTokens();
    const model = sizedModel([answerReply("A happy accident.")], first.full + MAX_TOKENS);
    const agent = new Agent({ model, registry, maxTokens: MAX_TOKENS });
    const state = await agent.run(QUESTION);
    expect(state.answer).toBe("A happy accident.");
    expect(state.stream.ofType("context-trimmed")).toEqual([]);
    expect(model.calls[0].prompt).toContain(agent.systemPrompt);
  });

  it("a conversation turn (invoke) whose full first prompt cannot fit is condensed instead of refused", async () => {
    const first = firstPromptTokens();
    const model = sizedModel([answerReply("A happy accident.")], first.compact + MAX_TOKENS + 10);
    const agent = new Agent({ model, registry, maxTokens: MAX_TOKENS });
    const result = await agent.invoke(QUESTION);
    expect(result.answer).toBe("A happy accident.");
    expect(result.state.stream.ofType("context-trimmed")[0].promptStyle).toBe("compact");
    expect(model.calls[0].prompt).toContain(agent.compactSystemPrompt!);
  });

  it("the run transcript renders incrementally exactly as a full render, across the switch to the compact style", async () => {
    const model = new ScriptedModel([
      callReply("lookup", { word: "a", language: "en" }),
      callReply("lookup", { word: "b", language: "en" }),
      answerReply("done"),
    ]);
    const state = await new Agent({ model, registry }).run(QUESTION);
    const events = state.stream.toArray();
    events.splice(3, 0, {
      type: "context-trimmed",
      droppedSteps: 0,
      promptTokensBefore: 500,
      promptTokensAfter: 300,
      contextSize: 512,
      replyTokens: 100,
      promptStyle: "compact",
      step: 2,
      at: 0,
    });
    const transcript = new RunTranscript("FULL", QUESTION, 0, undefined, "COMPACT");
    for (let n = 0; n <= events.length; n++) {
      const prefix = events.slice(0, n);
      transcript.add(prefix);
      const expected = buildMessages("FULL", QUESTION, prefix, 0, { compactSystem: "COMPACT" });
      expect(transcript.render(gemma3ChatFormat), `after ${n} events`).toBe(gemma3ChatFormat.render(expected));
      expect(transcript.systemPrompt).toBe(n > 3 ? "COMPACT" : "FULL");
      expect(transcript.render(gemma3ChatFormat, 0, false)).toContain("FULL");
      expect(transcript.render(gemma3ChatFormat, 0, true)).toContain("COMPACT");
    }
  });
});
