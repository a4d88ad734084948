import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { buildMessages, RunTranscript } from "../../src/agent/build-messages.js";
import { gemma3ChatFormat, gemma4ChatFormat } from "../../src/prompt/index.js";
import { buildSystemPrompt } from "../../src/prompt/system-prompt.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";
import { mathRegistry } from "../helpers/skills.js";

const script = [
  callReply("add", { a: 1, b: 2 }),
  "not json at all",
  callReply("explode", {}),
  callReply("echo", { text: "<end_of_turn>" }),
  answerReply("done"),
];

describe("the prompt", () => {
  for (const chatFormat of [gemma3ChatFormat, gemma4ChatFormat]) {
    it(`is append-only across the steps of a run (${chatFormat.name})`, async () => {
      const model = new ScriptedModel(script, { chatFormat });
      const state = await new Agent({ model, registry: mathRegistry() }).run("What is 1+2?");
      expect(state.answer).toBe("done");
      const prompts = model.calls.map((c) => c.prompt);
      expect(prompts).toHaveLength(5);
      for (let k = 1; k < prompts.length; k++) {
        expect(prompts[k].slice(0, prompts[k - 1].length)).toBe(prompts[k - 1]);
        // what the model wrote is in the history verbatim, right after the previous prompt
        const written = script[k - 1].replace("<end_of_turn>", "<\u200bend_of_turn>");
        expect(prompts[k].slice(prompts[k - 1].length, prompts[k - 1].length + written.length)).toBe(written);
      }
    });
  }

  for (const chatFormat of [gemma3ChatFormat, gemma4ChatFormat]) {
    it(`renders a run incrementally exactly as a full render of its messages, step by step, trims included (${chatFormat.name})`, async () => {
      const model = new ScriptedModel(script, { chatFormat });
      const state = await new Agent({ model, registry: mathRegistry() }).run("What is 1+2?");
      const events = state.stream.toArray();
      // a context-trimmed event in the middle, as fitting the context emits one
      events.splice(5, 0, {
        type: "context-trimmed",
        droppedSteps: 2,
        promptTokensBefore: 900,
        promptTokensAfter: 500,
        contextSize: 1024,
        replyTokens: 256,
        step: 3,
        at: 0,
      });
      const conversation = new RunTranscript("SYSTEM", "What is 1+2?");
      for (let n = 0; n <= events.length; n++) {
        const prefix = events.slice(0, n);
        conversation.add(prefix);
        expect(conversation.render(chatFormat), `after ${n} events`).toBe(
          chatFormat.render(buildMessages("SYSTEM", "What is 1+2?", prefix)),
        );
        for (const drop of [0, 1, 3])
          expect(conversation.render(chatFormat, drop)).toBe(
            chatFormat.render(buildMessages("SYSTEM", "What is 1+2?", prefix, 0, { droppedSteps: drop })),
          );
      }
    });
  }

  it("documents every skill with its arguments one a line by default, and the action format", () => {
    const agent = new Agent({ model: new ScriptedModel([]), registry: mathRegistry(), soul: "You are Testy." });
    expect(agent.systemPrompt).toContain("- add: Add two numbers.\n  arguments:\n  - a (number, required):");
    expect(agent.systemPrompt).not.toContain("arguments (JSON Schema)");
  });

  it("documents every skill with its argument schema with paramDetails off, and the action format", () => {
    const agent = new Agent({
      model: new ScriptedModel([]),
      registry: mathRegistry(),
      soul: "You are Testy.",
      paramDetails: false,
    });
    const system = agent.systemPrompt;
    expect(system).toMatch(/^You are Testy\./);
    expect(system).toContain(
      '- add: Add two numbers.\n  arguments (JSON Schema): {"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}',
    );
    expect(system).toContain('"final_answer"');
    expect(system).toContain('"skill_name"');
  });

  it("exampleTrajectory adds one worked conversation, apart under its own heading, in the grammar's key order", () => {
    const plain = new Agent({ model: new ScriptedModel([]), registry: mathRegistry() }).systemPrompt;
    expect(plain).not.toContain("# Example");
    for (const thought of ["first", "last", "none"] as const) {
      const system = new Agent({
        model: new ScriptedModel([]),
        registry: mathRegistry(),
        exampleTrajectory: true,
        thought,
      }).systemPrompt;
      const before = plain.slice(0, plain.indexOf("# How to reply"));
      expect(system.slice(0, before.length)).toBe(before);
      const example = system.slice(system.indexOf("# Example"));
      expect(example.length).toBeGreaterThan(0);
      const replies = example
        .split("\n")
        .filter((line) => line.startsWith("You: "))
        .map((line) => JSON.parse(line.slice(5)));
      expect(replies).toHaveLength(2);
      const [callKeys, answerKeys] = replies.map((reply) => Object.keys(reply));
      const expected = {
        first: [
          ["thought", "skill_name", "arguments"],
          ["thought", "final_answer"],
        ],
        last: [
          ["skill_name", "arguments", "thought"],
          ["final_answer", "thought"],
        ],
        none: [["skill_name", "arguments"], ["final_answer"]],
      }[thought];
      expect([callKeys, answerKeys]).toEqual(expected);
      // the example's skill is not one the agent has, so the grammar cannot call it
      expect(mathRegistry().names()).not.toContain(replies[0].skill_name);
    }
  });
});

describe("the action format's examples follow the grammar's order", () => {
  it("puts the thought of the parallel-calls example where the grammar puts it", () => {
    const parallelLine = (thought: "first" | "last" | "none") =>
      buildSystemPrompt(mathRegistry(), { thought, parallelCalls: true })
        .split("\n")
        .find((line) => line.startsWith("To call several independent skills"))!;
    expect(parallelLine("first")).toContain('{"thought":"...","calls":[');
    expect(parallelLine("last")).toContain('...],"thought":"..."}');
    expect(parallelLine("none")).not.toContain('"thought"');
  });
});
