// In a `calls` list each argument may also be a reference to an earlier call's result (`{"$ref": "calls[0].result"}`):
// grounding keeps a value the question gives the key from turning into one.
import { describe, expect, it } from "vitest";
import type { Token } from "../../src/model/grounding/token.js";
import { GroundingSteer, type GroundingVocabulary } from "../../src/model/grounding/grounding-steer.js";

const TEXTS = ['"', '"}', ",", "}", "<pad>", "{", '{"', '{"$', '"Boston', '"Sushi'];
const ids = new Map(TEXTS.map((t, i) => [t, i as Token]));
const vocab: GroundingVocabulary = {
  tokensFor: (text) => (ids.has(text) ? [ids.get(text)!] : undefined),
  maxTokenChars: 8,
  stringClosers: [0 as Token, 1 as Token],
  valueClosers: [2 as Token, 3 as Token],
  banned: new Set([4 as Token]),
};
const bias = (question: string, text: string) => {
  const steering = new GroundingSteer(
    { mode: "soft", source: [question], argumentKeys: new Map([["find", ["location", "cuisine"]]]) },
    vocab,
  ).next(text);
  return steering.type === "bias"
    ? Object.fromEntries([...steering.logits].map(([token, logit]) => [TEXTS[token], logit]))
    : {};
};

describe("a calls list's references", () => {
  const second = '{"calls":[{"skill_name":"t","arguments":{"x":1}},{"skill_name":"find","arguments":{"location":';

  it("a value the question anchors to the key or names it for: the reference's opening gets the malus", () => {
    const logits = bias("I'm currently in Boston, MA and I'm craving some Sushi. Find the closest one.", second);
    expect(logits['"Boston']).toBeGreaterThan(0);
    expect(logits["{"]).toBeLessThan(0);
    expect(logits['{"']).toBeLessThan(0);
  });

  it("a key the question gives nothing: the reference is left to the model (a chain takes the result)", () => {
    const logits = bias("Then find the closest restaurant to the address that search returned.", second);
    expect(logits["{"]).toBeUndefined();
    expect(logits['{"']).toBeUndefined();
  });

  it("outside a calls list nothing changes", () => {
    const logits = bias("I'm currently in Boston, MA.", '{"skill_name":"find","arguments":{"location":');
    expect(logits["{"]).toBeUndefined();
  });
});
