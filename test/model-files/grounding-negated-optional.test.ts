/**
 * The `arguments-end` rule on the text-only corpus (test/helpers/grounding-corpus.ts): an optional number argument the
 * question names after a negation ("he will not make any additional contributions") is not asked for, so the
 * arguments close after the required ones; named plainly, the arguments go on to it.
 */
import { describe, expect, it } from "vitest";
import { biasesAfter, groundingCorpus } from "../helpers/grounding-corpus.js";

const corpus = groundingCorpus(0);

/** The steer's biases on `}` and `,` right after the reply's `"years":10`. */
function endBiases(id: string, rulesOff: string[] = []): { close: number; more: number } {
  const biases = biasesAfter(corpus, id, '"years":10', rulesOff);
  return { close: biases.get("}") ?? 0, more: biases.get(",") ?? 0 };
}

describe("grounding's arguments-end rule and a negated optional argument", () => {
  it("closes the arguments where the question names the optional number only after a negation", () => {
    const { close, more } = endBiases("negated-optional");
    expect(close).toBeGreaterThan(more);
  });

  it("goes on to the optional number the question names plainly", () => {
    const { close, more } = endBiases("named-optional");
    expect(more).toBeGreaterThan(close);
  });

  it("leaves the end alone with the rule off", () => {
    const { close, more } = endBiases("negated-optional", ["arguments-end"]);
    expect(close).toBe(more);
  });
});
