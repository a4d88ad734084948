import { describe, expect, it } from "vitest";
import { parseAction } from "../../src/actions/index.js";
import { callReply } from "../../src/testing/index.js";
import { mathRegistry } from "../helpers/skills.js";

const registry = mathRegistry();

describe("parseAction", () => {
  it("reads a skill call", () => {
    const r = parseAction('{"thought":"sum","skill_name":"add","arguments":{"a":1,"b":2}}', registry);
    expect(r).toEqual({
      type: "call-skill",
      skillName: "add",
      arguments: { a: 1, b: 2 },
      thought: "sum",
      raw: '{"thought":"sum","skill_name":"add","arguments":{"a":1,"b":2}}',
    });
  });

  it("reads a final answer and keeps no repaired flag for clean JSON", () => {
    const r = parseAction('{"final_answer":"  Paris  "}', registry);
    expect(r).toMatchObject({ type: "final-answer", answer: "Paris" });
    expect(r).not.toHaveProperty("repaired");
  });

  it("strips code fences and prose around the object", () => {
    const raw =
      'Sure! Here is my action:\n```json\n{"skill_name": "echo", "arguments": {"text": "hi"}}\n```\nHope that helps.';
    expect(parseAction(raw, registry)).toMatchObject({
      type: "call-skill",
      skillName: "echo",
      arguments: { text: "hi" },
      raw,
    });
  });

  it("text with no JSON object is json_syntax, never an answer", () => {
    for (const raw of ["The answer is 42.", "", "[1,2,3]", '"just a string"', "null"]) {
      expect(parseAction(raw, registry)).toMatchObject({
        type: "validation-error",
        validatorName: "action_parse",
        errorType: "json_syntax",
      });
    }
  });

  it("accepts JSON that needed repair and marks it repaired", () => {
    const r = parseAction("{'skill_name': 'add', 'arguments': {'a': 1, 'b': 2,},", registry);
    expect(r).toMatchObject({ type: "call-skill", skillName: "add", arguments: { a: 1, b: 2 }, repaired: true });
    expect(parseAction('{"final_answer": "cut off', registry)).toMatchObject({
      type: "final-answer",
      answer: "cut off",
      repaired: true,
    });
  });

  it("an object with neither skill_name nor final_answer is missing_field", () => {
    const r = parseAction('{"tool": "add", "args": {}}', registry);
    expect(r).toMatchObject({ type: "validation-error", validatorName: "action_parse", errorType: "missing_field" });
    expect((r as { feedback: string }).feedback).toContain("final_answer");
  });

  it("wrong field types are refused with readable feedback", () => {
    const r = parseAction('{"skill_name": 42, "arguments": {}}', registry);
    expect(r).toMatchObject({ type: "validation-error", errorType: "missing_field" });
    expect((r as { feedback: string }).feedback).toContain("skill_name must be a string");
    expect(parseAction('{"skill_name": "add", "arguments": [1, 2]}', registry)).toMatchObject({
      errorType: "missing_field",
    });
  });

  it("an unknown skill is unknown_skill, and the feedback lists the skills", () => {
    const r = parseAction('{"skill_name": "weather", "arguments": {}}', registry);
    expect(r).toMatchObject({ type: "validation-error", errorType: "unknown_skill" });
    const feedback = (r as { feedback: string }).feedback;
    for (const name of ["add", "echo", "explode"]) expect(feedback).toContain(name);
  });

  it("inherited names such as constructor or __proto__ are unknown skills, not crashes", () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect(parseAction(callReply(name), registry)).toMatchObject({
        errorType: "unknown_skill",
      });
    }
  });

  it("arguments failing the skill schema are invalid_arguments with zod's text", () => {
    const r = parseAction('{"skill_name": "add", "arguments": {"a": "one"}}', registry);
    expect(r).toMatchObject({
      type: "validation-error",
      validatorName: "action_parse",
      errorType: "invalid_arguments",
    });
    const feedback = (r as { feedback: string }).feedback;
    expect(feedback).toMatch(/expected number/i);
    expect(feedback).toMatch(/\ba\b/);
    expect(feedback).toMatch(/\bb\b/);
  });

  it("an empty or blank final answer is refused by non_empty_final_answer", () => {
    for (const raw of ['{"final_answer": ""}', '{"final_answer": "   \\n"}']) {
      const r = parseAction(raw, registry);
      expect(r).toMatchObject({ type: "validation-error", validatorName: "non_empty_final_answer" });
      expect(r).not.toHaveProperty("errorType");
    }
  });

  it("a non-empty final answer wins over a skill call, and the call is noted", () => {
    const r = parseAction('{"skill_name": "add", "arguments": {"a": 1, "b": 2}, "final_answer": "3"}', registry);
    expect(r).toMatchObject({ type: "final-answer", answer: "3", ignoredCall: { skillName: "add" } });
  });

  it("refuses replies that are too large or nested too deep, without throwing", () => {
    const deep = "[".repeat(10_000) + "]".repeat(10_000);
    expect(parseAction(`{"final_answer": ${deep}}`, registry)).toMatchObject({ errorType: "json_syntax" });
    expect(parseAction(`{"final_answer": "${"x".repeat(1_000_000)}"}`, registry)).toMatchObject({
      errorType: "json_syntax",
    });
  });

  it("refuses calls arrays unless parallel calls are on", () => {
    const raw = '{"calls": [{"skill_name": "add", "arguments": {"a": 1, "b": 2}}]}';
    expect(parseAction(raw, registry)).toMatchObject({ type: "validation-error", errorType: "missing_field" });
    expect(parseAction(raw, registry, { parallelCalls: true })).toMatchObject({
      type: "call-skills",
      calls: [{ skillName: "add", arguments: { a: 1, b: 2 } }],
    });
  });
});
