import { describe, expect, it } from "vitest";
import { callRefusal, checkArguments, checkCall, checkSkillName } from "../../src/skills/check-call.js";
import { mathRegistry } from "../helpers/skills.js";

const registry = mathRegistry();

describe("checkCall", () => {
  it("passes a known skill with valid arguments, with the schema's parsed values", () => {
    const checked = checkCall(registry, { skillName: "add", arguments: { a: 1, b: 2 } });
    expect(checked).toMatchObject({ ok: true, validated: { a: 1, b: 2 } });
    expect(checked.ok && checked.skill.name).toBe("add");
  });

  it("refuses a skill the registry does not hold, inherited names included", () => {
    for (const skillName of ["nope", "constructor", "__proto__"]) {
      expect(checkCall(registry, { skillName, arguments: {} })).toEqual({ ok: false, problem: "unknown_skill" });
      expect(checkSkillName(registry, skillName)).toEqual({ ok: false, problem: "unknown_skill" });
    }
  });

  it("refuses arguments that fail the skill's schema, with zod's readable detail", () => {
    const checked = checkCall(registry, { skillName: "add", arguments: { a: "1" } });
    expect(checked).toMatchObject({ ok: false, problem: "invalid_arguments" });
    expect(!checked.ok && checked.problem === "invalid_arguments" && checked.detail).toMatch(/a[\s\S]*b/);
    expect(checkArguments(registry.get("echo")!, { text: "hi" })).toEqual({ ok: true, validated: { text: "hi" } });
  });

  it("words a refusal as the tool error the model reads, naming the guard", () => {
    const call = { skillName: "nope", arguments: {} };
    expect(callRefusal(call, { ok: false, problem: "unknown_skill" })).toEqual({
      guard: "scope",
      message: 'the skill "nope" is not available here',
    });
    expect(callRefusal(call, { ok: false, problem: "invalid_arguments", detail: "✖ bad" })).toEqual({
      guard: "arguments",
      message: "invalid arguments: ✖ bad",
    });
  });
});
