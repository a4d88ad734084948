/**
 * Grounding's rules (model/grounding/rules.ts), on a text-only corpus (test/helpers/grounding-corpus.ts: BFCL's first
 * questions with replies written from their ground truth, and a few crafted cases), the steer's output at every
 * character compared with each rule on and off:
 * - each rule is live: asked somewhere, and turning it off changes the steer's output somewhere;
 * - a case whose run never asked a rule steers exactly the same with that rule off. scripts/grounding-rules.ts
 *   relies on this to re-run, for each rule, only the questions whose run asked it.
 */
import { describe, expect, it } from "vitest";
import { GROUNDING_RULES, isGroundingRuleList } from "../../src/model/grounding/rules.js";
import { groundingCorpus, steerCase } from "../helpers/grounding-corpus.js";

const { cases, vocabulary, text } = groundingCorpus(10);
const allOn = cases.map((c) => steerCase(c, vocabulary, text));

describe("grounding's rules", () => {
  it("the corpus steers: BFCL cases and the crafted ones, every one with output", () => {
    expect(cases.length).toBeGreaterThan(150);
    expect(cases.some((c) => c.id.startsWith("crafted/"))).toBe(true);
    expect(allOn.every((run) => run.outputs.length > 0)).toBe(true);
  });

  it("names are unique, and each rule says what it reads, what it biases and why", () => {
    const names = GROUNDING_RULES.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of GROUNDING_RULES) {
      expect(rule.name).toMatch(/^[a-z]+(?:-[a-z]+)*$/);
      for (const part of [rule.reads, rule.biases, rule.reason]) expect(part.length).toBeGreaterThan(10);
    }
    expect(isGroundingRuleList(["lists", "anchors"])).toBe(true);
    expect(isGroundingRuleList(["lists", "no-such-rule"])).toBe(false);
  });

  it.each(GROUNDING_RULES.map((r) => r.name))(
    "%s: asked and acting somewhere; off, a case that never asked it steers exactly as before",
    (rule) => {
      let asked = 0;
      let changed = 0;
      const changedUnasked: string[] = [];
      for (const [i, c] of cases.entries()) {
        const on = allOn[i];
        const off = steerCase(c, vocabulary, text, [rule]);
        const same = off.outputs.length === on.outputs.length && off.outputs.every((o, k) => o === on.outputs[k]);
        if (on.asked.has(rule)) asked++;
        if (!same) changed++;
        if (!same && !on.asked.has(rule)) changedUnasked.push(c.id);
        // off, the rule is still asked where it would act (the gate reports it, on or off)
        if (on.asked.has(rule)) expect(off.asked.has(rule), c.id).toBe(true);
      }
      expect(asked).toBeGreaterThan(0);
      expect(changed).toBeGreaterThan(0);
      expect(changedUnasked).toEqual([]);
    },
  );

  it("an unknown rule name is refused with the list of rules", () => {
    expect(() => steerCase(cases[0], vocabulary, text, ["no-such-rule"])).toThrow(/rulesOff must be a list of .*lists/);
  });
});
