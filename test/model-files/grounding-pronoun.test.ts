/**
 * The `no-pronoun` rule on the text-only corpus (test/helpers/grounding-corpus.ts): no value begins at the pronoun "I"
 * ("I am in Boston and I'd like ..."), and a quoted text that begins with "I" is still a value's start.
 */
import { describe, expect, it } from "vitest";
import { biasesAfter, groundingCorpus } from "../helpers/grounding-corpus.js";

const corpus = groundingCorpus(0);

/** The steer's bias on the token "I" where the reply's `location` value opens (after `"location":"`). */
function biasOnI(id: string, rulesOff: string[] = []): number | undefined {
  return biasesAfter(corpus, id, '"location":"', rulesOff).get("I");
}

describe("grounding's no-pronoun rule", () => {
  it("gives no copy bonus to a value that begins at the pronoun I, and does with the rule off", () => {
    expect(biasOnI("pronoun")).toBeUndefined();
    expect(biasOnI("pronoun", ["no-pronoun"])).toBeGreaterThan(0);
  });

  it("keeps the copy bonus at a quoted text's first word I", () => {
    expect(biasOnI("quoted-pronoun")).toBeGreaterThan(0);
  });
});
