import type { Token } from "../../src/model/grounding/token.js";
import { describe, expect, it } from "vitest";
import { buildActionJsonSchema } from "../../src/actions/action-json-schema.js";
import { actionOptions, DecisionSteer } from "../../src/model/grounding/decision-steer.js";
import type { DecisionBranch } from "../../src/model/model-handle.js";
import { defineSkill } from "../../src/skills/skill.js";
import { Registry } from "../../src/skills/registry.js";
import { z } from "zod";

/** A made-up vocabulary: every listed text is one token, its id its place in the list. */
function vocabulary(texts: string[]) {
  const ids = new Map(texts.map((t, i) => [t, i as Token]));
  const id = (text: string): Token => {
    const found = ids.get(text);
    if (found === undefined) throw new Error(`no token ${JSON.stringify(text)}`);
    return found;
  };
  return { tokensFor: (text: string) => (ids.has(text) ? [ids.get(text)!] : undefined), banned: new Set<Token>(), id };
}

const registry = new Registry([
  defineSkill({ name: "calc_area", description: "Area.", parameters: z.object({ x: z.number() }), run: () => 1 }),
  defineSkill({ name: "calc_volume", description: "Volume.", parameters: z.object({ x: z.number() }), run: () => 1 }),
  defineSkill({ name: "weather", description: "Weather.", parameters: z.object({ city: z.string() }), run: () => 1 }),
]);
const single = buildActionJsonSchema(registry, { thought: "last" });
const parallel = buildActionJsonSchema(registry, { thought: "last", parallelCalls: true });
const vocab = vocabulary([
  "skill",
  "final",
  "calls",
  "calc_",
  "area",
  "volume",
  "weather",
  '"',
  "}},",
  "}}]",
  ",",
  "]",
  'skill_name":"',
]);

describe("actionOptions", () => {
  it("reads the keys a reply may begin with and every skill name", () => {
    expect(actionOptions(single)).toEqual({
      keys: ["skill_name", "final_answer"],
      skills: ["calc_area", "calc_volume", "weather"],
    });
    expect(actionOptions(parallel).keys).toEqual(["skill_name", "calls", "final_answer"]);
  });
});

describe("DecisionSteer", () => {
  it("gives the tokens that take each option its offset where the reply chooses its action", () => {
    const steer = new DecisionSteer(
      { answer: 5, skills: { calc_area: -3, calc_volume: 2, weather: -1 } },
      actionOptions(single),
      vocab,
    );
    const steering = steer.next('{"');
    // a token that runs on past the key (`skill_name":"`) takes it too
    expect(steering).toEqual({
      type: "bias",
      logits: new Map([
        [vocab.id("skill"), 2],
        [vocab.id('skill_name":"'), 2],
        [vocab.id("final"), 5],
      ]),
    });
  });

  it("gives a token several skill names share the largest of their offsets, and parts them where they part", () => {
    const steer = new DecisionSteer(
      { skills: { calc_area: -3, calc_volume: 2, weather: 4 } },
      actionOptions(single),
      vocab,
    );
    const atName = steer.next('{"skill_name":"');
    expect(atName).toMatchObject({ type: "bias" });
    const logits = (atName as { logits: ReadonlyMap<Token, number> }).logits;
    expect(logits.get(vocab.id("calc_"))).toBe(2);
    expect(logits.get(vocab.id("weather"))).toBe(4);
    const parted = steer.next('{"skill_name":"calc_') as { logits: ReadonlyMap<Token, number> };
    expect(parted.logits.get(vocab.id("area"))).toBe(-3);
    expect(parted.logits.get(vocab.id("volume"))).toBe(2);
  });

  it("steers nothing once the action is chosen, nor inside values", () => {
    const steer = new DecisionSteer({ answer: 5, skills: { weather: 1 } }, actionOptions(single), vocab);
    expect(steer.next('{"skill_name":"weather","arguments":{"city":"Par')).toBeUndefined();
    expect(steer.next('{"skill_name":"weather","arguments":{"city":"Paris"},"')).toBeUndefined();
  });

  it("keeps a calls list going until it holds the planned calls, then closes it", () => {
    const steer = new DecisionSteer({ skills: {}, plannedCalls: 2, listOffset: 10 }, actionOptions(parallel), vocab);
    const first = steer.next('{"calls":[{"skill_name":"weather","arguments":{"city":"Paris"}}') as {
      logits: ReadonlyMap<Token, number>;
    };
    expect(first.logits.get(vocab.id(","))).toBe(10);
    expect(first.logits.get(vocab.id("]"))).toBe(-10);
    const closing = steer.next(
      '{"calls":[{"skill_name":"weather","arguments":{"city":"Paris"}},{"skill_name":"weather","arguments":{"city":"Rome"',
    ) as { logits: ReadonlyMap<Token, number> };
    expect(closing.logits.get(vocab.id("}}]"))).toBe(10);
    expect(closing.logits.get(vocab.id("}},"))).toBe(-10);
    // inside a string the closing tokens are text: no offset (Gemma wrote a city "Madrid}}]}}]" before)
    const inString = new DecisionSteer({ skills: {}, plannedCalls: 2, listOffset: 10 }, actionOptions(parallel), vocab);
    expect(inString.next('{"calls":[{"skill_name":"weather","arguments":{"city":"Par')).toBeUndefined();
  });

  it("takes each call's own skill offsets in a calls list", () => {
    const steer = new DecisionSteer(
      {
        skills: { weather: 0 },
        itemSkills: [
          { weather: 7, calc_area: 0, calc_volume: 0 },
          { weather: 0, calc_area: 9, calc_volume: 0 },
        ],
      },
      actionOptions(parallel),
      vocab,
    );
    const first = steer.next('{"calls":[{"skill_name":"') as { logits: ReadonlyMap<Token, number> };
    expect(first.logits.get(vocab.id("weather"))).toBe(7);
    const second = steer.next('{"calls":[{"skill_name":"weather","arguments":{"city":"Paris"}},{"skill_name":"') as {
      logits: ReadonlyMap<Token, number>;
    };
    expect(second.logits.get(vocab.id("calc_"))).toBe(9);
  });

  it("reports each branch point with the model's own log-probabilities, the offsets taken back out", () => {
    const branches: DecisionBranch[] = [];
    const steer = new DecisionSteer(
      { answer: Math.log(4), skills: { weather: 0 }, onBranch: (branch) => branches.push(branch) },
      actionOptions(single),
      vocab,
    );
    steer.next('{"');
    // under the bias the answer is 4 times as likely as the model made it: equal after the bias, 1:4 before
    const probabilities = new Map([
      [vocab.id("skill"), 0.5],
      [vocab.id("final"), 0.5],
    ]);
    steer.picked(vocab.id("final"), { probabilities, allows: () => true });
    expect(branches).toHaveLength(1);
    expect(branches[0].chosen).toBe("final_answer");
    const byOption = Object.fromEntries(branches[0].options.map((o) => [o.option, o.logprob]));
    expect(byOption.skill_name).toBeCloseTo(Math.log(0.8));
    expect(byOption.final_answer).toBeCloseTo(Math.log(0.2));
  });
});
