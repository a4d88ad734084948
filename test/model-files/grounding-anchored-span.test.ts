/**
 * The `anchors` rule inside a string value, on the text-only corpus (test/helpers/grounding-corpus.ts): a value begun
 * on its key's anchor goes on as the anchored span ahead of another span it also follows ("S" of "shortest" goes on as
 * "Shortest", not as the schema's "Scenic"); and a number key whose head word the question does not write is anchored
 * to the numeral after its other word ("the top 5 landmark cases" for `top_number`); and a pair's sides (`from_lang`,
 * `to_lang`) to the names after "from" and "to".
 */
import { describe, expect, it } from "vitest";
import { groundingCorpus, steerCase } from "../helpers/grounding-corpus.js";

const { cases, vocabulary, text } = groundingCorpus(0);

/** The steer's biases on `h` and `c` right after the reply's `"preference":"S`. */
function nextBiases(rulesOff: string[] = []): { anchored: number; other: number } {
  const c = cases.find((x) => x.id === "crafted/anchored-enum")!;
  const at = c.reply.indexOf('"preference":"S') + '"preference":"S'.length;
  const parts = steerCase(c, vocabulary, text, rulesOff).outputs[at].split("|");
  const bias = (token: string) => Number(parts.find((part) => part.startsWith(`${token}=`))?.slice(2) ?? 0);
  return { anchored: bias("h"), other: bias("c") };
}

describe("grounding's anchors rule inside a string", () => {
  it("goes on along the anchored span ahead of another span the value follows", () => {
    const { anchored, other } = nextBiases();
    expect(other).toBeGreaterThan(0);
    expect(anchored).toBeGreaterThan(other);
  });

  it("treats both spans alike with the rule off", () => {
    const { anchored, other } = nextBiases(["anchors"]);
    expect(anchored).toBe(other);
  });
});

describe("grounding's anchors rule for a number key without its head word", () => {
  /** The steer's bias on the token `5` where the reply's `top_number` value opens. */
  function biasOnFive(rulesOff: string[] = []): number {
    const c = cases.find((x) => x.id === "crafted/top-number")!;
    const at = c.reply.indexOf('"top_number":') + '"top_number":'.length;
    const parts = steerCase(c, vocabulary, text, rulesOff).outputs[at].split("|");
    return Number(parts.find((part) => part.startsWith("5="))?.slice(2) ?? 0);
  }

  it("gives the numeral after the key's other word the anchor bonus, more than the copy bonus alone", () => {
    expect(biasOnFive()).toBeGreaterThan(biasOnFive(["anchors"]));
    expect(biasOnFive(["anchors"])).toBeGreaterThan(0);
  });

  it("reads the key's other word in another form and past 'for' ('hold the stock for 10 years')", () => {
    const c = cases.find((x) => x.id === "crafted/key-word-forms")!;
    const biasOn = (key: string, digit: string, rulesOff: string[] = []) => {
      const at = c.reply.indexOf(`"${key}":`) + `"${key}":`.length;
      const parts = steerCase(c, vocabulary, text, rulesOff).outputs[at].split("|");
      return Number(parts.find((part) => part.startsWith(`${digit}=`))?.slice(2) ?? 0);
    };
    expect(biasOn("investment_amount", "5")).toBeGreaterThan(biasOn("investment_amount", "5", ["anchors"]));
    expect(biasOn("holding_period", "1")).toBeGreaterThan(biasOn("holding_period", "1", ["anchors"]));
  });
});

describe("grounding's anchors rule for a pair's sides", () => {
  /** The steer's bias on the first letter of `name` where the reply's `key` value opens. */
  function biasAt(key: string, letter: string, rulesOff: string[] = []): number {
    const c = cases.find((x) => x.id === "crafted/pair-sides")!;
    const at = c.reply.indexOf(`"${key}":"`) + `"${key}":"`.length;
    const parts = steerCase(c, vocabulary, text, rulesOff).outputs[at].split("|");
    return Number(parts.find((part) => part.startsWith(`${letter}=`))?.slice(2) ?? 0);
  }

  it("anchors the name after 'from' to the from side, the one after 'to' to the to side", () => {
    expect(biasAt("from_lang", "F")).toBeGreaterThan(biasAt("from_lang", "F", ["anchors"]));
    expect(biasAt("to_lang", "E")).toBeGreaterThan(biasAt("to_lang", "E", ["anchors"]));
    expect(biasAt("from_lang", "F")).toBeGreaterThan(biasAt("from_lang", "E"));
  });
});
