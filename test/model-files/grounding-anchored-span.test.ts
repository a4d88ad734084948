/**
 * The `anchors` rule inside a string value, on the text-only corpus (test/helpers/grounding-corpus.ts): a value begun
 * on its key's anchor goes on as the anchored span ahead of another span it also follows ("S" of "shortest" goes on as
 * "Shortest", not as the schema's "Scenic"); and a number key whose head word the question does not write is anchored
 * to the numeral after its other word ("the top 5 landmark cases" for `top_number`); and a pair's sides (`from_lang`,
 * `to_lang`) to the names after "from" and "to".
 */
import { describe, expect, it } from "vitest";
import { biasesAfter, groundingCorpus } from "../helpers/grounding-corpus.js";

const corpus = groundingCorpus(0);

/** The steer's bias on `token` right after `marker` in crafted case `id`'s reply (0 where none). */
function bias(id: string, marker: string, token: string, rulesOff: string[] = []): number {
  return biasesAfter(corpus, id, marker, rulesOff).get(token) ?? 0;
}

describe("grounding's anchors rule inside a string", () => {
  const next = (token: string, rulesOff: string[] = []) => bias("anchored-enum", '"preference":"S', token, rulesOff);

  it("goes on along the anchored span ahead of another span the value follows", () => {
    expect(next("c")).toBeGreaterThan(0);
    expect(next("h")).toBeGreaterThan(next("c"));
  });

  it("treats both spans alike with the rule off", () => {
    expect(next("h", ["anchors"])).toBe(next("c", ["anchors"]));
  });
});

describe("grounding's anchors rule for a number key without its head word", () => {
  it("gives the numeral after the key's other word the anchor bonus, more than the copy bonus alone", () => {
    const five = (rulesOff: string[] = []) => bias("top-number", '"top_number":', "5", rulesOff);
    expect(five()).toBeGreaterThan(five(["anchors"]));
    expect(five(["anchors"])).toBeGreaterThan(0);
  });

  it("reads the key's other word in another form and past 'for' ('hold the stock for 10 years')", () => {
    const on = (key: string, digit: string, rulesOff: string[] = []) =>
      bias("key-word-forms", `"${key}":`, digit, rulesOff);
    expect(on("investment_amount", "5")).toBeGreaterThan(on("investment_amount", "5", ["anchors"]));
    expect(on("holding_period", "1")).toBeGreaterThan(on("holding_period", "1", ["anchors"]));
  });
});

describe("grounding's anchors rule for a pair's sides", () => {
  it("anchors the name after 'from' to the from side, the one after 'to' to the to side", () => {
    const at = (key: string, letter: string, rulesOff: string[] = []) =>
      bias("pair-sides", `"${key}":"`, letter, rulesOff);
    expect(at("from_lang", "F")).toBeGreaterThan(at("from_lang", "F", ["anchors"]));
    expect(at("to_lang", "E")).toBeGreaterThan(at("to_lang", "E", ["anchors"]));
    expect(at("from_lang", "F")).toBeGreaterThan(at("from_lang", "E"));
  });
});
