import { describe, expect, it } from "vitest";
import { parseAction } from "../../src/actions/index.js";
import { answerReply, callReply, parallelReply } from "../../src/testing/index.js";
import { mathRegistry } from "../helpers/skills.js";

const registry = mathRegistry();

describe("reply builders", () => {
  it("callReply parses to the call it names, with its thought when given", () => {
    const raw = callReply("add", { a: 2, b: 3 });
    expect(parseAction(raw, registry)).toEqual({
      type: "call-skill",
      skillName: "add",
      arguments: { a: 2, b: 3 },
      raw,
    });
    const withThought = callReply("echo", { text: "hi" }, "say hi");
    expect(parseAction(withThought, registry)).toEqual({
      type: "call-skill",
      skillName: "echo",
      arguments: { text: "hi" },
      thought: "say hi",
      raw: withThought,
    });
    expect(JSON.parse(withThought)).toEqual({ thought: "say hi", skill_name: "echo", arguments: { text: "hi" } });
  });

  it("callReply without arguments writes none (an empty object)", () => {
    const raw = callReply("explode");
    expect(JSON.parse(raw)).toEqual({ skill_name: "explode", arguments: {} });
    expect(parseAction(raw, registry)).toEqual({ type: "call-skill", skillName: "explode", arguments: {}, raw });
  });

  it("answerReply parses to the answer, with its thought when given", () => {
    const raw = answerReply("5");
    expect(parseAction(raw, registry)).toEqual({ type: "final-answer", answer: "5", raw });
    const withThought = answerReply("Paris", "the lookup said so");
    expect(parseAction(withThought, registry)).toEqual({
      type: "final-answer",
      answer: "Paris",
      thought: "the lookup said so",
      raw: withThought,
    });
  });

  it("parallelReply parses to the calls in order, $ref arguments included", () => {
    const raw = parallelReply(
      [["add", { a: 1, b: 2 }], ["echo", { text: { $ref: "calls[0].result" } }], ["explode"]],
      "both at once",
    );
    expect(parseAction(raw, registry, { parallelCalls: true })).toEqual({
      type: "call-skills",
      calls: [
        { skillName: "add", arguments: { a: 1, b: 2 } },
        { skillName: "echo", arguments: { text: { $ref: "calls[0].result" } } },
        { skillName: "explode", arguments: {} },
      ],
      thought: "both at once",
      raw,
    });
  });
});
