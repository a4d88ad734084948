import type { Token } from "../../src/model/grounding/token.js";
import { describe, expect, it } from "vitest";
import {
  GROUNDING_MID_WORD_LOGIT,
  GROUNDING_REFUSED_LOGIT,
  GROUNDING_OTHER_ITEM_LOGIT,
  GROUNDING_AVOID_LOGIT,
  GROUNDING_STRICT_LOGIT,
} from "../../src/model/grounding/defaults.js";
import { GROUNDING_LEVERS, type GroundingLever } from "../../src/model/model-handle.js";
import { GroundingIndex } from "../../src/model/grounding/grounding-index.js";
import { mostListItems } from "../../src/model/grounding/question-lists.js";
import { conversionSide, conversionUnits } from "../../src/model/grounding/grounding-words.js";
import { GroundingSteer, type GroundingVocabulary, type Steering } from "../../src/model/grounding/grounding-steer.js";
import {
  askingValues,
  formulaKey,
  optionalArgumentKeys,
  schemaValues,
  skillArgumentKeys,
} from "../../src/model/grounding/grounding-setup.js";
import { JsonValueTracker } from "../../src/model/grounding/json-value-tracker.js";
import { valueEndKind } from "../../src/model/grounding/token-classes.js";

/** A made-up vocabulary: every listed text is one token, its id its place in the list. */
function vocabulary(
  texts: string[],
): GroundingVocabulary & { id: (text: string) => number; text: (id: number) => string } {
  const ids = new Map(texts.map((t, i) => [t, i as Token]));
  const id = (text: string): Token => {
    const found = ids.get(text);
    if (found === undefined) throw new Error(`no token ${JSON.stringify(text)}`);
    return found;
  };
  return {
    tokensFor: (text) => (ids.has(text) ? [ids.get(text)!] : undefined),
    maxTokenChars: Math.max(...texts.map((t) => t.length)),
    stringClosers: [id('"'), id('"}')],
    valueClosers: [id(","), id("}")],
    banned: new Set([id("<pad>")]),
    id,
    text: (n) => texts[n],
  };
}

const TEXTS = [
  '"',
  '"}',
  ",",
  "}",
  "<pad>",
  "0",
  "1",
  "2",
  "4",
  "5",
  "9",
  ".",
  "-",
  "New",
  " York",
  ",",
  " NY",
  "Boston",
  " ",
  "distance",
  "dist",
  "The",
  " distance",
  " in",
  " meters",
  "function",
  "x",
  "**",
  "x**2",
  "In",
  "<",
  "your",
  " answer",
  "42",
  " is",
  "4",
  "2",
  '"New',
  "San",
  " Francisco",
  "California",
  '"San',
  '"California',
  "cell",
  "Cell",
  "human",
  '"cell',
  '"human',
  "true",
  "false",
  "3",
  "6",
  "]",
  "]}",
  '"]',
  '",',
  '"F',
  "F",
  "G",
  "],",
  "[]",
  "{}",
  ":{}",
  ":[]",
  "8",
  '"David',
  '"Mich',
  "David",
  "Mich",
  "20",
  "200",
  "00",
  "Cel",
  "pounds",
  "kil",
  "Hil",
  "Chi",
  "Hotel",
  "+",
  "17",
  " times",
  " 23",
  " plus",
  "square",
  " root",
  " 1764",
  "1764",
  "3.5",
  " hours",
  "*",
  "US",
  " gallons",
  "many",
  "ounces",
  "m",
  "any",
  "illiliters",
  "Japanese",
  " Yen",
  "(",
  "(1",
  " /",
  "/",
  ")",
  ")?",
  "sqrt",
];

/** The bias the steer gives after `text`, as token texts → logits. */
function steerAfter(
  steer: GroundingSteer,
  vocab: ReturnType<typeof vocabulary>,
  text: string,
): Steering | Record<string, number> {
  const steering = steer.next(text);
  if (steering.type !== "bias") return steering;
  return Object.fromEntries([...steering.logits].map(([token, logit]) => [vocab.text(token), logit]));
}

/** The steer's bias after `"key": ` and `rest` (the value written so far, its quote included), as texts to logits. */
function afterKey(
  source: ConstructorParameters<typeof GroundingSteer>[0],
  vocab: ReturnType<typeof vocabulary>,
  key: string,
  rest: string,
): Record<string, number> {
  const text = `{"skill_name": "f", "arguments": {"${key}": ${rest}`;
  return steerAfter(new GroundingSteer(source, vocab), vocab, text) as Record<string, number>;
}

/** The steer's bias inside `key`'s string value after `value`. */
const inStringValue = (
  source: Parameters<typeof afterKey>[0],
  vocab: Parameters<typeof afterKey>[1],
  key: string,
  value: string,
) => afterKey(source, vocab, key, `"${value}`);

/** The steer's bias where `key`'s value begins (after `"key": `, or inside its opened string). */
const atValueStart = (
  source: Parameters<typeof afterKey>[0],
  vocab: Parameters<typeof afterKey>[1],
  key: string,
  opened: boolean,
) => afterKey(source, vocab, key, opened ? '"' : "");

describe("JsonValueTracker", () => {
  it("tells string and number values under their keys, and where a value is about to begin", () => {
    const tracker = new JsonValueTracker();
    expect(tracker.update('{"skill_name": "a", "arguments": {"city": "New Y')).toEqual({
      kind: "string",
      path: ["arguments", "city"],
      value: "New Y",
    });
    expect(tracker.update('{"skill_name": "a", "arguments": {"city": "New York", "n": ')).toEqual({
      kind: "pending",
      path: ["arguments", "n"],
      value: "",
      opener: "",
    });
    // right after a key: a token may carry the colon with the value's start (`:"New`)
    expect(new JsonValueTracker().update('{"arguments": {"city"')).toMatchObject({ kind: "pending", opener: ":" });
    expect(tracker.update('{"skill_name": "a", "arguments": {"city": "New York", "n": -12.5')).toMatchObject({
      kind: "number",
      value: "-12.5",
    });
    expect(
      tracker.update('{"skill_name": "a", "arguments": {"city": "New York", "n": -12.5, "q": "a\\"b'),
    ).toMatchObject({ kind: "string", path: ["arguments", "q"], value: 'a"b' });
    expect(tracker.update('{"skill_name": "a", "arguments": {"city": "New York", "n": -12.5, "q": "a\\"b"}')).toBe(
      undefined,
    );
  });

  it("inside an array, tells the items before the value", () => {
    const tracker = new JsonValueTracker();
    expect(tracker.update('{"arguments": {"g": [3, 4, 5')).toMatchObject({
      kind: "number",
      value: "5",
      items: ["3", "4"],
    });
    expect(tracker.update('{"arguments": {"g": [3, 4, 5, ')).toMatchObject({ kind: "pending", items: ["3", "4", "5"] });
    expect(new JsonValueTracker().update('{"arguments": {"p": ["C", "F')).toMatchObject({ value: "F", items: ["C"] });
    expect(new JsonValueTracker().update('{"arguments": {"p": "C')).not.toHaveProperty("items");
  });
});

describe("GroundingIndex", () => {
  it("finds spans from word starts, follows them by pieces, and reads the numerals", () => {
    const index = new GroundingIndex(["Weather in New York, NY on day 50", "The answer is 4504"]);
    expect(index.find("New York").map((p) => index.text.slice(p, p + 4))).toEqual([", NY"]);
    expect(index.find("ew")).toEqual([]); // not from the middle of a word
    expect(index.endsAtBoundary(index.find("New York")[0])).toBe(true);
    expect(index.endsAtBoundary(index.find("New")[0])).toBe(false);
    // no span runs from one text into the next
    expect(index.find("50The")).toEqual([]);
    expect(index.numerals).toEqual(["50", "4504"]);
    expect([index.maxNumeralDigits, index.maxDigitRun]).toEqual([4, 1]);
    // a joining word after a space ends a value too, outside quotes; "of" joins a name and does not
    const joined = new GroundingIndex(["From New York to Los Angeles, play 'Ticket to Ride', Law of Gravity"]);
    expect(joined.endsAtBoundary(joined.find("New York")[0])).toBe(true);
    expect(joined.endsAtBoundary(joined.find("Ticket")[0])).toBe(false);
    expect(joined.endsAtBoundary(joined.find("Law")[0])).toBe(false);
  });

  it("reads numerals as JSON writes them: no thousands separators, a magnitude word also scaled", () => {
    const index = new GroundingIndex(["Drive 12,000 km for 213 million people, items 1,2,3"]);
    expect(index.numerals).toEqual(["12000", "213", "1", "2", "3", "213000000"]);
    expect(index.numerals).not.toContain("000");
    // a clause's comma after a grouped numeral ends the clause, not the numeral
    expect(new GroundingIndex(["income of $2,000,000, equity of $10,000,000."]).numerals).toEqual([
      "2000000",
      "10000000",
    ]);
    // digits glued to a word are part of a name, not a number
    expect(new GroundingIndex(["CO2 for 25 MPG, case AL2562, 3x^2"]).numerals).toEqual(["25", "3", "2"]);
    // a minus after a space is a negative number alone; after a digit or a letter a hyphen, both readings
    expect(new GroundingIndex(["coefficients 2, 3 and -4"]).numerals).toEqual(["2", "3", "-4"]);
    expect(new GroundingIndex(["from 10 to -3, and 5x-2"]).numerals).not.toContain("3");
  });

  it("reads a percentage also as its fraction, and a number written as a word as its numeral", () => {
    const index = new GroundingIndex(["Get two tickets, top five of ten; a rate of 7% or 2.5 %, for someone"]);
    expect(index.numerals).toEqual(["7", "2.5", "0.07", "0.025", "2", "5", "10"]);
    expect(index.numerals).not.toContain("1"); // "someone" holds "one", but not as a word
  });

  it("with skipArticles, begins no span with an article or a joining word, unless a capital one mid-sentence", () => {
    const text = "Who discovered the neutron? The answer, a prize, an atom; see The Starry Night.";
    const index = new GroundingIndex([text], { skipArticles: true });
    for (const article of ["the neutron", "The answer", "a prize", "an atom"]) expect(index.find(article)).toEqual([]);
    expect(index.find("neutron")).toHaveLength(1);
    expect(index.find("The Starry Night")).toHaveLength(1);
    // without the option (the avoid texts), every word begins a span
    expect(new GroundingIndex([text]).find("the neutron")).toHaveLength(1);
    // nor with a preposition, a conjunction or a copula; a word after one still begins a span
    const recipe = new GroundingIndex(["What are the proteins in the plasma membrane, for pasta and Of Mice"], {
      skipArticles: true,
    });
    for (const joiner of ["are the proteins", "in the plasma", "for pasta", "and Of"])
      expect(recipe.find(joiner), joiner).toEqual([]);
    for (const word of ["proteins", "plasma membrane", "pasta", "Of Mice"])
      expect(recipe.find(word), word).toHaveLength(1);
    // nor with a word that orders the request before a comma; without the comma it may be a value's ("next Friday")
    const steps = new GroundingIndex(["Specifically, sue Apple. Secondly, on next Friday, First National Bank."], {
      skipArticles: true,
    });
    for (const word of ["Specifically", "Secondly"]) expect(steps.find(word), word).toEqual([]);
    for (const word of ["next Friday", "First National Bank", "Apple"]) expect(steps.find(word), word).toHaveLength(1);
    // nor with a word that opens a request where a sentence begins; the same word inside a sentence still may
    const asks = new GroundingIndex(
      ["\"Calculate the tax in Chicago. Can you find Who Framed Roger Rabbit? I'm in Rome."],
      {
        skipArticles: true,
      },
    );
    for (const word of ["Calculate", "Can you", "I'm in"]) expect(asks.find(word), word).toEqual([]);
    for (const word of ["Chicago", "find", "Who Framed Roger Rabbit", "Rome"])
      expect(asks.find(word), word).toHaveLength(1);
  });

  it('begins no span with closing punctuation (a list item is not ".")', () => {
    const index = new GroundingIndex(["Get the S&P 500. Then (Dow)."]);
    expect(index.find(".")).toEqual([]);
    expect(index.find(")")).toEqual([]);
    expect(index.find("(Dow")).toHaveLength(1);
    expect(index.find("&P")).toHaveLength(1); // other punctuation still begins one
  });
});

describe("valueEndKind", () => {
  it("tells the tokens that end a string or a number and go on with what may follow a value", () => {
    expect(['"', '",', '","', '"}', '"},', '", "', '"]}'].map(valueEndKind)).toEqual(Array(7).fill("string"));
    expect([",", ',"', "}", "]}", ", "].map(valueEndKind)).toEqual(Array(5).fill("number"));
    expect(['":', '"a', "a", ":", '"x"'].map(valueEndKind)).toEqual(Array(5).fill(undefined));
  });
});

describe("GroundingSteer (soft)", () => {
  const vocab = vocabulary(TEXTS);
  const soft = () =>
    new GroundingSteer(
      {
        mode: "soft",
        source: ["How far is New York, NY? The distance is 50 km."],
        avoid: ["Skills:\nfunction: the function to integrate"],
      },
      vocab,
    );

  it("inside an argument string, favours tokens that copy a span of the question, and closing at its boundary", () => {
    const steer = soft();
    const start = steerAfter(steer, vocab, '{"skill_name": "f", "arguments": {"team": "') as Record<string, number>;
    expect(start.New).toBeGreaterThan(0);
    expect(start.function).toBeLessThan(0); // the instructions' text, not in the question
    const afterNew = steerAfter(steer, vocab, '{"skill_name": "f", "arguments": {"team": "New') as Record<
      string,
      number
    >;
    // "New" ends a word inside the name "New York": going on gets more than the copy bonus, closing none
    expect(afterNew[" York"]).toBe(6);
    expect(afterNew['"']).toBeUndefined();
    const afterYork = steerAfter(steer, vocab, '{"skill_name": "f", "arguments": {"team": "New York') as Record<
      string,
      number
    >;
    expect(afterYork['"']).toBeGreaterThan(afterYork[","]); // a boundary: closing gets more
    expect(afterYork[","]).toBeGreaterThan(0); // ", NY" goes on
  });

  it("a place's name goes on with its region", () => {
    const at = (source: string, key: string, value: string) =>
      steerAfter(
        new GroundingSteer({ mode: "soft", source: [source] }, vocab),
        vocab,
        `{"skill_name": "f", "arguments": {"${key}": "${value}`,
      ) as Record<string, number>;
    // a place key: ", NY" ahead of closing at the comma
    const place = at("How far is New York, NY? The distance is 50 km.", "city", "New York");
    expect(place[","]).toBeGreaterThan(place['"']);
  });

  it("does not favour again what another argument of this reply got: a string's start, a numeral", () => {
    const steer = new GroundingSteer(
      { mode: "soft", source: ["Crime: San Francisco, California over 50 days"] },
      vocab,
    );
    const first = '{"skill_name": "f", "arguments": {"city": ';
    expect(steerAfter(steer, vocab, first)).toMatchObject({ '"San': 4, '"California': 4, 5: 4 });
    steer.next(`${first}"San Francisco`); // the steer sees the reply token by token
    const next = `${first}"San Francisco", "state": `;
    const pending = steerAfter(steer, vocab, next) as Record<string, number>;
    expect(pending['"San']).toBeUndefined();
    expect(pending['"California']).toBe(4);
    const start = steerAfter(steer, vocab, `${next}"`) as Record<string, number>;
    expect(start.San).toBeUndefined();
    expect(start.California).toBe(4);
    steer.next(`${next}"California", "days": 50`);
    const afterNumber = steerAfter(steer, vocab, `${next}"California", "days": 50, "extra": `) as Record<
      string,
      number
    >;
    expect(afterNumber[5]).toBeUndefined();
    // the steer is one generate call's: another call's favours them again
    const another = new GroundingSteer({ mode: "soft", source: ["Crime: San Francisco over 50 days"] }, vocab);
    expect(steerAfter(another, vocab, next)).toMatchObject({ '"San': 4, 5: 4 });
  });

  it("penalizes spelling the key's own name when the question does not hold it", () => {
    const steer = new GroundingSteer({ mode: "soft", source: ["Compute the area for x**2"] }, vocab);
    const start = steerAfter(steer, vocab, '{"skill_name": "f", "arguments": {"function": "') as Record<string, number>;
    expect(start.function).toBeLessThan(0);
    expect(start["x**2"]).toBeGreaterThan(0);
  });

  it("a word of the key's own name gets a malus at a string's start, even where the question holds it", () => {
    const steer = new GroundingSteer({ mode: "soft", source: ["Find the structure of human cell"] }, vocab);
    const args = '{"skill_name": "f", "arguments": {"cell_type": ';
    const pending = steerAfter(steer, vocab, args) as Record<string, number>;
    expect(pending['"cell']).toBeUndefined();
    expect(pending['"human']).toBe(4);
    const start = steerAfter(steer, vocab, `${args}"`) as Record<string, number>;
    expect(start.cell).toBeLessThan(0);
    expect(start.Cell).toBeLessThan(0);
    expect(start.human).toBe(4);
    // another key (another reply: a steer follows one growing text): the same word is a span like any other
    const again = new GroundingSteer({ mode: "soft", source: ["Find the structure of human cell"] }, vocab);
    const other = steerAfter(again, vocab, '{"skill_name": "f", "arguments": {"organism": "') as Record<string, number>;
    expect(other.cell).toBe(4);
  });

  it("a word of the called skill's name gets the malus at a string's start too", () => {
    // "human cell" for `cell.find_structure`'s `organism`: the skill's own noun is no value of it
    const steer = new GroundingSteer({ mode: "soft", source: ["Find the structure of human cell"] }, vocab);
    const start = steerAfter(
      steer,
      vocab,
      '{"skill_name": "cell.find_structure", "arguments": {"organism": "',
    ) as Record<string, number>;
    expect(start.cell).toBeLessThan(0);
    expect(start.human).toBe(4);
    // another skill's call: the word is a span like any other
    const other = new GroundingSteer({ mode: "soft", source: ["Find the structure of human cell"] }, vocab);
    const plain = steerAfter(other, vocab, '{"skill_name": "f", "arguments": {"organism": "') as Record<string, number>;
    expect(plain.cell).toBe(4);
  });

  it("a flag whose name the question uses is favoured on; a flag it does not name is left alone", () => {
    const args = (key: string) => `{"skill_name": "f", "arguments": {"${key}": `;
    // one steer per reply (it follows one growing text)
    const named = () => new GroundingSteer({ mode: "soft", source: ["Give me the details, with the dissent"] }, vocab);
    expect(steerAfter(named(), vocab, args("details"))).toMatchObject({ true: 4 });
    expect(steerAfter(named(), vocab, args("include_dissent"))).toMatchObject({ true: 4 });
    const unnamed = new GroundingSteer({ mode: "soft", source: ["Give me the case"] }, vocab);
    const pending = steerAfter(unnamed, vocab, args("include_dissent"));
    expect(pending).not.toHaveProperty("true");
    expect(pending).not.toHaveProperty("false");
    // a generic word of the name is not enough: "include" is in the question, "dissent" is not
    const generic = new GroundingSteer({ mode: "soft", source: ["include the case"] }, vocab);
    expect(steerAfter(generic, vocab, args("include_dissent"))).not.toHaveProperty("true");
  });

  it("an array follows a list the question writes out: its next item, then the array's end", () => {
    const source = ["Compare group A [3, 4, 5, 6, 4] and group B [7, 8]; chords C, F and G for 4 measures"];
    const args = '{"skill_name": "f", "arguments": {"group1": [';
    // one steer per reply (it follows one growing text)
    const at = (text: string) => steerAfter(new GroundingSteer({ mode: "soft", source }, vocab), vocab, text);
    // after 3, 4, 5, 6 the list goes on with 4 (written already, yet favoured: a list may repeat an item)
    expect(at(`${args}3, 4, 5, 6, `)).toMatchObject({ 4: 6 });
    // 6 is whole and the list goes on: the separator, not the array's end
    const six = at(`${args}3, 4, 5, 6`) as Record<string, number>;
    expect(six[","]).toBe(6);
    expect(six["]"]).toBe(-8); // closing where the list goes on gets the malus (Gemma's "open hole" alone)
    // the last 4 ends the list: the array's end, not another item
    const last = at(`${args}3, 4, 5, 6, 4`) as Record<string, number>;
    expect(last["]"]).toBe(6);
    expect(last[","]).toBe(-8); // another item past the list's end: the list-end malus
    // strings, "C, F and G": F comes next, and G ends the list
    const chords = '{"skill_name": "f", "arguments": {"progression": [';
    expect(at(`${chords}"C", `)).toMatchObject({ '"F': 6 });
    const g = at(`${chords}"C", "F", "G`) as Record<string, number>;
    expect(g['"]']).toBe(6);
    expect(g['",']).toBe(-8);
    // a string item closed by its quote alone: the bare `]` or `,` is steered the same way (the steer follows the
    // reply token by token: it saw the item being written)
    const closed = (text: string, steer = new GroundingSteer({ mode: "soft", source }, vocab)) => {
      steer.next(text.slice(0, -1));
      return steerAfter(steer, vocab, text);
    };
    expect(closed(`${chords}"C", "F", "G"`)).toMatchObject({ "]": 6, ",": -8 });
    expect(closed(`${chords}"C", "F"`)).toMatchObject({ ",": 6, "]": -8 });
    expect(at(`${chords}"C", "F`)).toMatchObject({ '",': 6, '"]': -8 });
    // the item after "and" is the list's last, whatever follows ("... and 'Education' and a target ..."); an article
    // after a separator is not part of the item ("Rome and the Oslo")
    const joined = (text: string) =>
      closed(
        text,
        new GroundingSteer(
          { mode: "soft", source: ["Use 'Age' and 'Income' and a target 'Spend'; Rome and the Oslo"] },
          vocab,
        ),
      ) as Record<string, number>;
    expect(joined(`${chords}"Age", "Income"`)).toMatchObject({ "]": 6, ",": -8 });
    expect(joined(`${chords}"Rome", "Oslo"`)).toMatchObject({ "]": 6, ",": -8 });
    // items that follow no list of the question: no list steering, the numerals' usual bonus
    expect(at(`${args}9, `)).toMatchObject({ 3: 4, 4: 4 });
  });

  it("a conversion's units: the quantity's own for the `from` side, the one wanted for the `to` side", () => {
    for (const [key, side] of [
      ["from", "from"],
      ["from_unit", "from"],
      ["base_currency", "from"],
      ["sourceCurrency", "from"],
      ["to", "to"],
      ["to_unit", "to"],
      ["target_currency", "to"],
    ] as const)
      expect(conversionSide(key), key).toBe(side);
    for (const key of ["from_date", "source", "target", "total", "to_date", "base"])
      expect(conversionSide(key), key).toBe(undefined);
    const units = (text: string, side: "from" | "to") =>
      conversionUnits(text, side).map((at) => text.slice(at).split(/[ ?.,]/)[0]);
    // the four wordings of basic.json's and BFCL's conversions
    expect(units("How many kilograms is 150 pounds?", "from")).toEqual(["pounds"]);
    expect(units("How many kilograms is 150 pounds?", "to")).toEqual(["kilograms"]);
    expect(units("What is 98.6 °F in Celsius?", "from")).toEqual(["°F"]);
    expect(units("What is 98.6 °F in Celsius?", "to")).toEqual(["Celsius"]);
    expect(units("How many teaspoons are in 2 tablespoons for my recipe?", "to")).toEqual(["teaspoons"]);
    expect(units("Convert 10 km to miles, then convert that to feet.", "to")).toEqual(["miles", "feet"]);
    // "from X to Y" names the source, whatever numeral follows ("the fee 0.02 included")
    expect(units("The rate from British pounds to Japanese yen with the fee 0.02 included.", "from")).toEqual([
      "British",
    ]);
    expect(units("The rate from British pounds to Japanese yen with the fee 0.02 included.", "to")).toEqual([
      "Japanese",
    ]);
    // what follows a numeral and is no unit, and a target with no source before it
    expect(units("Between 4 and 5 in Paris", "from")).toEqual([]);
    expect(units("Send it to John", "to")).toEqual([]);
    // in the steer: each side's unit is anchored to it and left alone by the other
    const argumentKeys = new Map([["f", ["value", "from", "to"]]]);
    const at = (key: string) =>
      steerAfter(
        new GroundingSteer({ mode: "soft", source: ["How many kilograms is 150 pounds?"], argumentKeys }, vocab),
        vocab,
        `{"skill_name": "f", "arguments": {"value": 150, "${key}": "`,
      ) as Record<string, number>;
    expect(at("from")).toMatchObject({ pounds: 6 });
    expect(at("from").kil).toBeUndefined();
    expect(at("to")).toMatchObject({ kil: 6 });
    expect(at("to").pounds).toBeUndefined();
    // a unit begins with no numeral, the quantity's own included once written (SmolLM2's `"from":"150"`), where the
    // skill has a number key; a skill's `from` date beside no number key keeps the numeral's bonus
    const numericKeys = new Map([["f", ["value"]]]);
    const unit = (question: string, numeric?: Map<string, string[]>) =>
      steerAfter(
        new GroundingSteer({ mode: "soft", source: [question], argumentKeys, numericKeys: numeric }, vocab),
        vocab,
        `{"skill_name": "f", "arguments": {"value": 20, "from": "`,
      ) as Record<string, number>;
    expect(unit("How many kilograms is 20 pounds?", numericKeys)).toMatchObject({ 20: -4, 2: -4 });
    expect(unit("Days from 20 May to 24 May", new Map())[20]).toBeGreaterThan(0);
  });

  it("a conversion's unit: only the question's units begin it, it goes on as that unit, and closes at its last word", () => {
    const argumentKeys = new Map([["f", ["value", "from", "to"]]]);
    const steer = (question: string, text: string, numeric = true) =>
      steerAfter(
        new GroundingSteer(
          { mode: "soft", source: [question], argumentKeys, numericKeys: new Map(numeric ? [["f", ["value"]]] : []) },
          vocab,
        ),
        vocab,
        `{"skill_name": "f", "arguments": {"value": 2, ${text}`,
      ) as Record<string, number>;
    // SmolLM2 and Gemma wrote "from":"many" for "How many grams is 12 ounces?"
    const start = steer("How many grams is 12 ounces?", '"from": "');
    expect(start.ounces).toBe(6);
    expect(start.many).toBeUndefined();
    // a `from` beside no number key is no unit: the question's words keep their copy bonus
    expect(steer("How many grams is 12 ounces?", '"from": "', false).many).toBe(4);
    // "m" goes on as "milliliters", the unit asked for, not as "many"
    const m = steer("How many milliliters are in 2 cups?", '"to": "m');
    expect(m.illiliters).toBeGreaterThan(0);
    expect(m.any).toBeUndefined();
    // SmolLM2's "from":"US" for "5 US gallons": no closing before the unit's last word
    const us = steer("Convert 5 US gallons to liters.", '"from": "US');
    expect(us['"']).toBe(-4);
    expect(us[" gallons"]).toBe(4);
    expect(steer("Convert 5 US gallons to liters.", '"from": "US', false)['"']).not.toBe(-4);
    // the unit ends before a verb ("Japanese Yen | be in"): SmolLM2 went on with "Japanese Yen 20000" (BFCL 393)
    expect(steer("How much will 20 Japanese Yen be in dollars?", '"from": "Japanese Yen')['"']).not.toBe(-4);
    expect(steer("How much will 20 Japanese Yen be in dollars?", '"from": "Japanese')['"']).toBe(-4);
  });

  it("a string does not begin with a numeral a number key of the skill is still to take", () => {
    const argumentKeys = new Map([["f", ["topic", "quantity"]]]);
    const numericKeys = new Map([["f", ["quantity"]]]);
    const at = (question: string, text: string, numeric = numericKeys) =>
      steerAfter(
        new GroundingSteer({ mode: "soft", source: [question], argumentKeys, numericKeys: numeric }, vocab),
        vocab,
        text,
      ) as Record<string, number>;
    // BFCL simple_python_210: Gemma wrote "topic":"5" for "Get 5 latest news on Bitcoin"
    const topic = at("Get 20 latest news on Bitcoin", '{"skill_name": "f", "arguments": {"topic": "');
    expect(topic).toMatchObject({ 2: -4, 20: -4 });
    // once `quantity` is written, or where the skill has no number key: the numeral's copy bonus as before
    expect(
      at("Get 20 latest news on Bitcoin", '{"skill_name": "f", "arguments": {"quantity": 20, "topic": "'),
    ).toMatchObject({
      20: 4,
    });
    expect(
      at("Get 20 latest news on Bitcoin", '{"skill_name": "f", "arguments": {"topic": "', new Map()),
    ).toMatchObject({
      20: 4,
    });
    // a numeral the question writes joined to a word ("20th", "3x^2") is no number key's
    expect(at("News of the 20th century", '{"skill_name": "f", "arguments": {"topic": "')[20]).toBe(4);
    // nor one after another sign ("3x^20 at x = 1": BFCL simple_python_16's function kept its 2)
    expect(at("The derivative of 3x^20 at x = 1", '{"skill_name": "f", "arguments": {"topic": "')[20]).toBe(4);
  });

  it("an expression key copies the question's arithmetic whole, from its start, and closes at its end", () => {
    const formulaKeys = new Map([["f", ["expression"]]]);
    const source = (question: string, formula = true) => ({
      mode: "soft" as const,
      source: [question],
      argumentKeys: new Map([["f", ["expression"]]]),
      ...(formula ? { formulaKeys } : {}),
    });
    // basic.json's arith-mul-add: SmolLM2 closed "17*23" where "23" ends a word of the question
    const mulAdd = "What is 17 times 23 plus 4?";
    const inside = inStringValue(source(mulAdd), vocab, "expression", "17 times 23");
    // the longest token that goes on gets the mid-word bonus, a shorter split (" " of " plus") the copy bonus
    expect(inside[" plus"]).toBe(GROUNDING_MID_WORD_LOGIT);
    expect(inside[" "]).toBe(6);
    expect(inside['"']).toBeUndefined();
    const plain = inStringValue(source(mulAdd, false), vocab, "expression", "17 times 23");
    expect(plain['"']).toBeGreaterThan(0);
    expect(inStringValue(source(mulAdd), vocab, "expression", "17 times 23 plus 4")).toMatchObject({ '"': 6 });
    // arith-sqrt: both models wrote "1764"; the stretch begins at "square", and no value begins inside it
    const sqrt = atValueStart(source("What is the square root of 1764?"), vocab, "expression", true);
    expect(sqrt.square).toBe(6);
    expect(sqrt["1764"]).toBeUndefined();
    expect(atValueStart(source("What is the square root of 1764?", false), vocab, "expression", true)["1764"]).toBe(4);
    // arith-chain-2's second call: Gemma wrote "60 " then "∙", SmolLM2 "466566  #1000"; " /" is the longest next token
    const chain = inStringValue(source("60 / 4."), vocab, "expression", "60");
    expect(chain[" /"]).toBe(GROUNDING_MID_WORD_LOGIT);
    expect(chain[" "]).toBe(6);
    // a stretch that begins with "(" begins the value ("(" is no punctuation-only value there: both models wrote
    // "12.5 + 7.5" for "Compute (12.5 + 7.5) * 3"), and a function's call is a stretch ("sqrt(1000)" of a chain)
    expect(inStringValue(source("Compute (12.5 + 7.5) * 3"), vocab, "expression", "")["("]).toBe(6);
    expect(inStringValue(source("Compute 12.5, then (stop)", false), vocab, "expression", "")["("]).toBe(-4);
    // the longest token stops at the stretch's end: ")" of "sqrt(1000)", not ")?" of the question's "?"
    const call = inStringValue(source("What is sqrt(1000)?"), vocab, "expression", "sqrt(1000");
    expect(call[")"]).toBe(GROUNDING_MID_WORD_LOGIT);
    expect(call[")?"]).toBeUndefined();
    // off the question's arithmetic, words do not copy on into an expression ("3.5 hours" is an error), digits do
    const seconds = "How many seconds are in 3.5 hours?";
    expect(inStringValue(source(seconds), vocab, "expression", "3.5")[" hours"]).toBeUndefined();
    expect(inStringValue(source(seconds, false), vocab, "expression", "3.5")[" hours"]).toBe(4);
  });

  it("in a chain, the anchor at the value the call before took goes to the newest result (chain-anchor)", () => {
    const question = "Weather in the city of New York";
    const chain = (taken: string[]) => ({ mode: "soft" as const, source: ["Boston", question], question, taken });
    // lookup-manager-chain: both models wrote "Alice" again for the manager of Alice's manager, after "Bob"
    const next = atValueStart(chain(["New York"]), vocab, "city", true);
    expect(next["Boston"]).toBe(6);
    expect(next["New"]).toBe(4);
    // the first hop, or a value no call took: the question's anchor stands
    const first = atValueStart(chain([]), vocab, "city", true);
    expect(first["New"]).toBe(6);
    expect(first["Boston"]).toBe(4);
  });

  it("in a call of a calls list over the question's items, another item's value gets twice the avoid malus (taken)", () => {
    const item = (itemized: boolean) => ({
      mode: "soft" as const,
      source: ["Flights to Boston"],
      taken: ["New York"],
      ...(itemized && { itemized }),
    });
    // parallel_multiple: Gemma wrote the first item's 'Hello World' into the call for "translate 'Goodbye'"
    expect(atValueStart(item(true), vocab, "city", false)['"New']).toBe(GROUNDING_OTHER_ITEM_LOGIT);
    expect(atValueStart(item(false), vocab, "city", false)['"New']).toBe(GROUNDING_AVOID_LOGIT);
    // and where the string's own `"` came first, its first word
    expect(inStringValue(item(true), vocab, "city", "")["New"]).toBe(GROUNDING_OTHER_ITEM_LOGIT);
    expect(GROUNDING_OTHER_ITEM_LOGIT).toBeLessThan(GROUNDING_AVOID_LOGIT);
    // the item's own value keeps its bonus
    expect(atValueStart(item(true), vocab, "city", true)["Boston"]).toBeGreaterThan(0);
  });

  it("a value a call of the run failed with is not written again for that skill and key (failed-value)", () => {
    const source = (value: string) => ({
      mode: "soft" as const,
      source: ["Flights from New York to Boston"],
      failed: [{ skill: "f", key: "city", value }],
    });
    // lookup-price-total: both models wrote "widgets" three times after `no entry for "widgets"`
    expect(inStringValue(source("New York"), vocab, "city", "New")[" York"]).toBe(GROUNDING_REFUSED_LOGIT);
    expect(inStringValue(source("New York"), vocab, "city", "New York")['"']).toBe(GROUNDING_REFUSED_LOGIT);
    expect(inStringValue(source("new york"), vocab, "city", "New York")['"']).toBe(GROUNDING_REFUSED_LOGIT);
    expect(atValueStart(source("New"), vocab, "city", false)['"New']).toBe(GROUNDING_REFUSED_LOGIT);
    // the copy bonus elsewhere: another key, another value, a value that only begins the failed one
    expect(inStringValue(source("New York"), vocab, "place", "New")[" York"]).toBeGreaterThan(0);
    expect(inStringValue(source("Boston"), vocab, "city", "New")[" York"]).toBeGreaterThan(0);
    expect(inStringValue(source("New York"), vocab, "city", "")["New"]).toBeGreaterThan(0);
  });

  it("a list's item that writes an earlier item of the list again gets the malus (distinct-items)", () => {
    const source = { mode: "soft" as const, source: ["Flights from New York to Boston"] };
    // both models wrote "rebounds" again and again to the grammar's cap
    expect(afterKey(source, vocab, "cities", '["New York", "New')[" York"]).toBe(GROUNDING_REFUSED_LOGIT);
    expect(afterKey(source, vocab, "cities", '["New York", "New York')['"']).toBe(GROUNDING_REFUSED_LOGIT);
    expect(afterKey(source, vocab, "cities", '["Boston", "')["Boston"]).toBe(GROUNDING_REFUSED_LOGIT);
    // an item not written yet, and the first item, keep the copy bonus
    expect(afterKey(source, vocab, "cities", '["New York", "')["Boston"]).toBeGreaterThan(0);
    expect(afterKey(source, vocab, "cities", '["New')[" York"]).toBeGreaterThan(0);
  });

  it("a list of texts that follows no list of the question ends past the most items one can hold (list-bound)", () => {
    expect(mostListItems("His points, assists, rebounds, and minutes played?")).toBe(4);
    expect(mostListItems("Flights from New York. Then to Boston.")).toBe(2);
    const source = { mode: "soft" as const, source: ["Flights from New York to Boston"] };
    // one item is all "Flights from New York to Boston" can list: the array closes after it
    const after = afterKey(source, vocab, "cities", '["Paris');
    expect(after['"]']).toBeGreaterThan(0);
    expect(after['",']).toBeLessThan(0);
    const off = afterKey({ ...source, rulesOff: ["list-bound"] }, vocab, "cities", '["Paris');
    expect(off['",']).toBeUndefined();
    // a second item where the question can list two
    expect(
      afterKey({ ...source, source: ["Flights to Lyon, Rome"] }, vocab, "cities", '["Paris')['",'],
    ).toBeUndefined();
  });

  it("formulaKey: a string named expression/formula, or described as arithmetic; not BFCL's function or equation", () => {
    expect(formulaKey("expression", { type: "string" })).toBe(true);
    expect(formulaKey("math_expression", { type: "string" })).toBe(true);
    expect(formulaKey("input", { type: "string", description: "An arithmetic expression, e.g. 2+2" })).toBe(true);
    expect(formulaKey("expression", { type: "number" })).toBe(false);
    expect(formulaKey("function", { type: "string", description: "The function to differentiate, e.g. 3x^2" })).toBe(
      false,
    );
    expect(formulaKey("equation", { type: "string", description: "The linear equation to solve." })).toBe(false);
    expect(formulaKey("expressionism", { type: "string" })).toBe(false);
  });

  it("a text the question quotes goes on to its closing quote", () => {
    const at = (question: string, value: string) =>
      inStringValue({ mode: "soft", source: [question] }, vocab, "item", value);
    // BFCL simple_python_344: Gemma closed "Guardian Sword" before the quote's "+"
    const sword = at("The power of the Weapon 'Guardian Sword+' in the game 'Zelda'", "Guardian Sword");
    expect(sword["+"]).toBe(6);
    expect(sword['"']).toBeUndefined();
    // at the closing quote: closing gets the bonus
    expect(at("The power of the Weapon 'Guardian Sword+' in the game 'Zelda'", "Guardian Sword+")).toMatchObject({
      '"': 6,
    });
    // unquoted, the word's end may close as before; an apostrophe is no quote ("It's fresh")
    expect(at("The power of the Guardian Sword+ in the game", "Guardian Sword")['"']).toBe(6);
    expect(at("Review: It's fresh and delicious, the food", "fresh")['"']).toBe(6);
  });

  it("a name of the question that holds a word of the key is that key's value", () => {
    const at = (question: string, key: string, keys: string[]) =>
      steerAfter(
        new GroundingSteer({ mode: "soft", source: [question], argumentKeys: new Map([["f", keys]]) }, vocab),
        vocab,
        `{"skill_name": "f", "arguments": {"${key}": "`,
      ) as Record<string, number>;
    // BFCL simple_python_382 and _386: Gemma wrote the city as the hotel's name
    const hilton = at("Book a room at the Hilton Hotel in Chicago, from 10th December", "hotel_name", [
      "hotel_name",
      "location",
    ]);
    expect(hilton).toMatchObject({ Hil: 6 });
    expect(hilton.Chi).toBeUndefined(); // the place after "in" is `location`'s
    // a name that begins with the key's word: the word keeps its start (no key-name malus)
    expect(at("Book a luxury room in Hotel Paradise, Las Vegas", "hotel_name", ["hotel_name"])).toMatchObject({
      Hotel: 6,
    });
    // the word alone, beginning a sentence, is no name: the key-name malus as before
    expect(at("Hotel rooms in Chicago", "hotel_name", ["hotel_name"])).toMatchObject({ Hotel: -4, Chi: 4 });
  });

  it("a value the question puts beside the key's word is favoured over its other spans", () => {
    const source = [
      "Find the size of the sculpture with title 'David' by Mich. Net income of $2,000,000, dividends 200000; 20 years",
    ];
    const at = (text: string) =>
      steerAfter(new GroundingSteer({ mode: "soft", source }, vocab), vocab, text) as Record<string, number>;
    // "title 'David'": David after the key's word gets the anchor bonus, Mich only the copy bonus
    expect(at('{"skill_name": "f", "arguments": {"title": ')).toMatchObject({ '"David': 6, '"Mich': 4 });
    expect(at('{"skill_name": "f", "arguments": {"title": "')).toMatchObject({ David: 6, Mich: 4 });
    // another key: no anchor, both spans alike
    expect(at('{"skill_name": "f", "arguments": {"artist": "')).toMatchObject({ David: 4, Mich: 4 });
    // unless the skill's keys are known: then what is anchored to `title` is left to it
    const keyed = steerAfter(
      new GroundingSteer({ mode: "soft", source, argumentKeys: new Map([["f", ["artist", "title"]]]) }, vocab),
      vocab,
      '{"skill_name": "f", "arguments": {"artist": "',
    ) as Record<string, number>;
    expect(keyed.Mich).toBe(4);
    expect(keyed.David).toBeUndefined();
    // "for" links no value to the key's word, nor does a lower-case word right after it (an adjective's noun)
    const loose = (key: string, text: string) =>
      steerAfter(
        new GroundingSteer({ mode: "soft", source: [text] }, vocab),
        vocab,
        `{"skill_name": "f", "arguments": {"${key}": "`,
      ) as Record<string, number>;
    expect(loose("matches", "the next five matches for David")).toMatchObject({ David: 4 });
    expect(loose("organic", "top five organic human brands")).toMatchObject({ human: 4 });
    expect(loose("material", "with material David")).toMatchObject({ David: 6 });
    // two keys with one head word: no telling whose "title 'David'" is, so neither is anchored
    const twins = steerAfter(
      new GroundingSteer({ mode: "soft", source, argumentKeys: new Map([["f", ["main_title", "sub_title"]]]) }, vocab),
      vocab,
      '{"skill_name": "f", "arguments": {"main_title": "',
    ) as Record<string, number>;
    expect(twins).toMatchObject({ David: 4, Mich: 4 });
    // "net income of $2,000,000": 2000000, not the dividends' 200000: at 200000 the anchored numeral goes on
    const income = at('{"skill_name": "f", "arguments": {"net_income": 200000');
    expect(income).toMatchObject({ 0: 6 });
    expect(income[","]).toBeUndefined();
    // "dividends 200000" is whole: another digit gets the malus
    expect(at('{"skill_name": "f", "arguments": {"dividends": 200000')).toMatchObject({ ",": 6, 0: -4 });
    // a numeral right before the key's word: "20 years"
    expect(at('{"skill_name": "f", "arguments": {"years": ')).toMatchObject({ 20: 6, 200: 4 });
    // with a magnitude word, before or after: the scaled numeral
    const shares = ["With 100 million outstanding shares and a dividend payout of 50 million USD"];
    const scaled = (text: string) =>
      steerAfter(new GroundingSteer({ mode: "soft", source: shares }, vocab), vocab, text) as Record<string, number>;
    expect(scaled('{"skill_name": "f", "arguments": {"outstanding_shares": 1000000')).toMatchObject({ 0: 6 });
    // and 100 alone is no value of it: going on, not closing
    const hundred = scaled('{"skill_name": "f", "arguments": {"outstanding_shares": 100');
    expect(hundred[0]).toBe(6);
    expect(hundred[","] ?? 0).toBeLessThanOrEqual(4);
    expect(scaled('{"skill_name": "f", "arguments": {"total_payout": 5000000')).toMatchObject({ 0: 6 });
    expect(scaled('{"skill_name": "f", "arguments": {"total_payout": 50000000')).toMatchObject({ ",": 6 });
  });

  it("a place key is anchored to the name after in/near/around/at, where the skill has no other place key", () => {
    const source = ["Predict the growth of forest in San Francisco for the next 5 years"];
    const at = (key: string, keys: string[]) =>
      atValueStart({ mode: "soft", source, argumentKeys: new Map([["f", keys]]) }, vocab, key, true);
    expect(at("location", ["location", "years"]).San).toBe(6);
    // another key is no place's: the copy bonus alone
    expect(at("species", ["species", "years"]).San).toBe(4);
    // two place keys (`city`, `country`): no telling whose
    expect(at("city", ["city", "country"]).San).toBe(4);
    // no name after in/near/around/at: the name after "of" (BFCL simple_python_230, "the King of France")
    const of = (question: string) =>
      atValueStart(
        { mode: "soft", source: [question], argumentKeys: new Map([["f", ["location", "year"]]]) },
        vocab,
        "location",
        true,
      );
    expect(of("Who was the King of San Francisco then?").San).toBe(6);
    // with one: "of" names no place ("the sculptures of Michelangelo in San Francisco")
    expect(of("The sculptures of David in San Francisco")).toMatchObject({ San: 6, David: 4 });
  });

  it("a numeral the question writes only as a percentage is favoured as its fraction, unless the key asks for one", () => {
    const source = ["Invest 4 thousand at an annual rate of 5% for 9 years"];
    const at = (key: string, percentKeys = new Map<string, string[]>()) =>
      atValueStart({ mode: "soft", source, argumentKeys: new Map([["f", [key]]]), percentKeys }, vocab, key, false);
    const rate = at("annual_rate");
    expect(rate[0]).toBeGreaterThan(0); // 0.05
    expect(rate[5]).toBeUndefined();
    expect(rate[9]).toBe(4); // written bare: still favoured
    const percentage = at("annual_rate", new Map([["f", ["annual_rate"]]]));
    expect(percentage[5]).toBeGreaterThan(0);
  });

  it("numbered keys take the question's numerals in its order", () => {
    const source = ["Find the highest common factor of 5 and 4"];
    const at = (key: string, keys: string[]) =>
      atValueStart({ mode: "soft", source, argumentKeys: new Map([["f", keys]]) }, vocab, key, false);
    expect(at("number1", ["number1", "number2"])).toMatchObject({ 5: 6 });
    expect(at("number1", ["number1", "number2"])[4]).toBeUndefined(); // the second's: left to it
    expect(at("number2", ["number1", "number2"])).toMatchObject({ 4: 6 });
    // a numbered key without siblings: no order to follow
    expect(at("number1", ["number1", "limit"])).toMatchObject({ 5: 4, 4: 4 });
  });

  it("a name in apposition after the key's word is anchored; an optional key the question anchors is asked for", () => {
    const source = ["Find 5 restaurants near my location, Boston, with Thai food"];
    const keys = new Map([["f", ["cuisine", "location"]]]);
    const steer = () =>
      new GroundingSteer(
        { mode: "soft", source, argumentKeys: keys, optionalKeys: new Map([["f", ["location"]]]) },
        vocab,
      );
    expect(steerAfter(steer(), vocab, '{"skill_name": "f", "arguments": {"location": "')).toMatchObject({ Boston: 6 });
    // `location` is optional and not written yet: after another value, going on is favoured over closing
    const after = steerAfter(steer(), vocab, '{"skill_name": "f", "arguments": {"n": 5') as Record<string, number>;
    expect(after[","]).toBeGreaterThan(0);
    expect(after["}"]).toBeLessThan(0);
    // written: nothing more is asked
    const done = steerAfter(steer(), vocab, '{"skill_name": "f", "arguments": {"location": "Boston", "n": 5');
    expect((done as Record<string, number>)["}"]).toBeGreaterThan(0);
  });

  it("goes on with a word of the question the value is in the middle of, more than with a copy at a word's end", () => {
    const words = vocabulary(['"', '"}', ",", "}", "<pad>", "Yellow", "stone", "ak", " Park", "Yellowstone"]);
    const source = ["Forest in Yellowstone Park, and a Yellow one"];
    const after = (value: string, text = source) =>
      inStringValue({ mode: "soft", source: text }, words, "species", value);
    // "Yellow" is also a whole word of the question: no more than the copy bonus
    expect(after("Yellow").stone).toBe(4);
    // in "Yellowstone" only: the value is mid-word, and going on with the word outweighs a small model's own word
    const mid = after("Yellow", ["Forest in Yellowstone Park"]);
    expect(mid.stone).toBeGreaterThan(8);
    expect(mid.ak).toBeUndefined();
  });

  it("a name the question writes goes on to its last word, and no value begins inside it", () => {
    const words = vocabulary(['"', '"}', ",", "}", "<pad>", "Yellowstone", " National", " Park", "Magnus", "Carlsen"]);
    const at = (source: string, value: string) =>
      inStringValue({ mode: "soft", source: [source] }, words, "location", value);
    const park = "Predict the growth of forest in Yellowstone National Park for the next 5 years.";
    expect(at(park, "Yellowstone")).toEqual({ " National": 6 });
    expect(at(park, "Yellowstone National")).toEqual({ " Park": 6 });
    expect(at(park, "Yellowstone National Park")['"']).toBeGreaterThan(0);
    // a word that stands alone closes as before: "Yellowstone" before a lower-case word
    expect(at("Forest in Yellowstone for 5 years", "Yellowstone")['"']).toBeGreaterThan(0);
    // "Carlsen" of "Magnus Carlsen" begins no value; "Magnus" does, and so does a name that begins a sentence
    const start = at("What is the chess rating of Magnus Carlsen?", "");
    expect(start.Magnus).toBeGreaterThan(0);
    expect(start.Carlsen).toBeUndefined();
    expect(at("Carlsen plays. Magnus Carlsen wins.", "").Carlsen).toBeGreaterThan(0);
    // a value's first letter follows the name's start, not a word inside it: "M" goes on as "Metropolitan", not as
    // "Museum" (SmolLM2 wrote "Museum of Art")
    const museum = vocabulary(['"', '"}', ",", "}", "<pad>", "M", "etropolitan", "useum"]);
    const met = inStringValue(
      { mode: "soft", source: ["What are the opening hours of the Metropolitan Museum of Art on Saturday?"] },
      museum,
      "museum_name",
      "M",
    );
    expect(met.etropolitan).toBeGreaterThan(0);
    expect(met.useum).toBeUndefined();
    // nor as another key's schema value ("Monday" of `day`), which that key keeps
    const week = vocabulary(['"', '"}', ",", "}", "<pad>", "M", "etropolitan", "onday"]);
    const withDays = {
      mode: "soft" as const,
      source: ["What are the opening hours of the Metropolitan Museum of Art on Saturday?"],
      schemaValues: ["Monday", "Saturday"],
      askedBy: new Map([["f", { museum_name: [], day: ["Monday", "Saturday"] }]]),
    };
    const name = inStringValue(withDays, week, "museum_name", "M");
    expect(name.etropolitan).toBeGreaterThan(0);
    expect(name.onday).toBeUndefined();
    expect(inStringValue(withDays, week, "day", "M").onday).toBeGreaterThan(0);
  });

  it("a place's name closes before a number the question writes after it", () => {
    const words = vocabulary(['"', '"}', ",", "}", "<pad>", " 2022", " Park"]);
    const source = { mode: "soft" as const, source: ["What is the air quality index in London 2022/08/16?"] };
    const london = inStringValue(source, words, "location", "London");
    expect(london['"']).toBeGreaterThan(0);
    expect(london[" 2022"]).toBeLessThan(0);
    // not a key that is no place's, nor a name that goes on with a word
    expect(inStringValue(source, words, "title", "London")[" 2022"]).not.toBeLessThan(0);
    const park = inStringValue(
      { mode: "soft", source: ["Hike in Yellowstone Park 2022"] },
      words,
      "location",
      "Yellowstone",
    );
    expect(park[" Park"]).toBeGreaterThan(0);
  });

  it("an integer argument is not steered toward a numeral with a fraction", () => {
    const source = ["Synaptic rate of 200 and weight 0.5"];
    const at = (integerKeys?: Map<string, string[]>) =>
      steerAfter(
        new GroundingSteer({ mode: "soft", source, integerKeys }, vocab),
        vocab,
        '{"skill_name": "f", "arguments": {"rate": ',
      ) as Record<string, number>;
    expect(at()).toMatchObject({ 0: 4, 2: 6 }); // 0 begins 0.5, 2 the anchored 200
    const integer = at(new Map([["f", ["rate"]]]));
    expect(integer[0]).toBeUndefined();
    expect(integer[2]).toBe(6);
  });

  it("an argument's list is not left empty: a malus on `]` where it opens, and on `[]` where a value begins", () => {
    // one steer per reply (it follows one growing text)
    const at = (text: string, source = ["Regress on Age, Income and Education"]) =>
      steerAfter(new GroundingSteer({ mode: "soft", source }, vocab), vocab, text) as Record<string, number>;
    expect(at('{"skill_name": "f", "arguments": {"predictors": [')).toMatchObject({ "]": -4, "],": -4, "]}": -4 });
    expect(at('{"skill_name": "f", "arguments": {"predictors"')).toMatchObject({ ":[]": -4 });
    // nor an object closed at once (Gemma's `"gradeDict":{}` for five subjects' grades)
    expect(at('{"skill_name": "f", "arguments": {"grades": ')).toMatchObject({ "{}": -4 });
    expect(at('{"skill_name": "f", "arguments": {"grades"')).toMatchObject({ ":{}": -4 });
    // nor a string left empty or of punctuation alone: closing it, or writing only a comma, gets the malus
    expect(at('{"skill_name": "f", "arguments": {"target": "')).toMatchObject({ '"': -4, '"}': -4, ",": -4 });
    // with an item written, `]` is the list's own business (see the list steering)
    expect(at('{"skill_name": "f", "arguments": {"predictors": [8, ', ["Regress on Age"])["]"]).toBeUndefined();
  });

  it("where the question names an optional argument not written yet, a value's end goes on rather than closing", () => {
    const source = ["Get the 5 best teams with details"];
    const optionalKeys = new Map([["f", ["detailed", "region"]]]);
    const at = (text: string, keys = optionalKeys) =>
      steerAfter(new GroundingSteer({ mode: "soft", source, optionalKeys: keys }, vocab), vocab, text) as Record<
        string,
        number
      >;
    // a string closed by its quote alone: the bare `,` gets the bonus and `}` the malus
    const team = '{"skill_name": "f", "arguments": {"team": "Boston"';
    const quoted = (keys: typeof optionalKeys) => {
      const steer = new GroundingSteer({ mode: "soft", source, optionalKeys: keys }, vocab);
      steer.next(team.slice(0, -1)); // the steer follows the reply token by token
      return steerAfter(steer, vocab, team);
    };
    expect(quoted(optionalKeys)).toMatchObject({ ",": 6, "}": -4 });
    // the same after a list closed by a bare `]`, a number item's or a string item's
    for (const list of [
      '{"skill_name": "f", "arguments": {"teams": [3, 4]',
      '{"skill_name": "f", "arguments": {"teams": ["A"]',
    ]) {
      const steer = new GroundingSteer({ mode: "soft", source, optionalKeys }, vocab);
      for (let end = list.length - 3; end < list.length; end++) steer.next(list.slice(0, end));
      expect(steerAfter(steer, vocab, list), list).toMatchObject({ ",": 6, "}": -4 });
    }
    expect(quoted(new Map())).toEqual({ type: "none" });
    const five = at('{"skill_name": "f", "arguments": {"n": 5');
    expect(five[","]).toBe(6);
    expect(five["}"]).toBe(-4); // the bonus alone did not keep Gemma from closing: the malus
    // a list the question writes out ends, and the named optional is still to come: `],`, not `]}`
    const list = steerAfter(
      new GroundingSteer({ mode: "soft", source: ["Teams 3, 4 and 5. Show details"], optionalKeys }, vocab),
      vocab,
      '{"skill_name": "f", "arguments": {"teams": [3, 4, 5',
    ) as Record<string, number>;
    expect(list).toMatchObject({ "]": 6, "],": 6, "]}": -4 });
    // without optional keys, or once the named one is written, or for another skill: closing as before
    expect(at('{"skill_name": "f", "arguments": {"n": 5', new Map())).toMatchObject({ ",": 6, "}": 6 });
    expect(at('{"skill_name": "f", "arguments": {"detailed": true, "n": 5')).toMatchObject({ ",": 6, "}": 6 });
    expect(at('{"skill_name": "g", "arguments": {"n": 5')).toMatchObject({ ",": 6, "}": 6 });
    // inside an object of its own, `}` closes that object, not the arguments: left alone
    expect(at('{"skill_name": "f", "arguments": {"area": {"n": 5')).toMatchObject({ ",": 6, "}": 6 });
  });

  it("once every required argument is written and no optional one is asked for, a value's end closes the arguments", () => {
    const argumentKeys = new Map([["f", ["x", "y", "z", "unit"]]]);
    const optionalKeys = new Map([["f", ["z", "unit"]]]);
    const at = (source: string, text: string) =>
      steerAfter(
        new GroundingSteer({ mode: "soft", source: [source], argumentKeys, optionalKeys }, vocab),
        vocab,
        text,
      ) as Record<string, number>;
    const question = "The hypotenuse of a right triangle with sides 4 and 5";
    // `y` is the last required key: after its value, `}` gets the bonus and going on (to `z`, `unit`) none
    const last = at(question, '{"skill_name": "f", "arguments": {"x": 4, "y": 5');
    expect(last["}"]).toBe(6);
    expect(last[","]).toBeUndefined();
    // a string closed by its quote alone: the bare `}` and `,` likewise
    const steer = new GroundingSteer({ mode: "soft", source: [question], argumentKeys, optionalKeys }, vocab);
    const quoted = '{"skill_name": "f", "arguments": {"x": 4, "y": "5"';
    steer.next(quoted.slice(0, -1));
    expect(steerAfter(steer, vocab, quoted)).toEqual({ "}": 6, ",": -4 }); // the quote written: going on gets the malus too
    // a numeral of the question that no argument holds yet may be an optional argument's: closing as before
    expect(at(`${question}, drawn in 2020`, '{"skill_name": "f", "arguments": {"x": 4, "y": 5')).toMatchObject({
      ",": 6,
      "}": 6,
    });
    // a numeral the question writes in words is none ("the other two sides"): closing
    expect(at(`${question}, the other two sides`, '{"skill_name": "f", "arguments": {"x": 4, "y": 5')["}"]).toBe(6);
    // a required key still to come: closing is left as it was (the grammar holds the arguments open anyway)
    expect(at(question, '{"skill_name": "f", "arguments": {"x": 4')).toMatchObject({ ",": 6, "}": 6 });
    // an optional key the question names is asked for: going on, as before
    expect(at(`${question}, unit cm`, '{"skill_name": "f", "arguments": {"x": 4, "y": 5')).toMatchObject({
      ",": 6,
      "}": -4,
    });
    // an optional key asked for by one of its values ("in Celsius" for `unit`): going on, and the value is anchored
    const askedBy = new Map([["f", { z: [], unit: ["Celsius", "Kelvin"] }]]);
    const celsius = (text: string) =>
      steerAfter(
        new GroundingSteer(
          { mode: "soft", source: [`${question}, in Celsius`], argumentKeys, optionalKeys, askedBy },
          vocab,
        ),
        vocab,
        text,
      ) as Record<string, number>;
    expect(celsius('{"skill_name": "f", "arguments": {"x": 4, "y": 5')).toMatchObject({ ",": 6, "}": -4 });
    expect(celsius('{"skill_name": "f", "arguments": {"x": 4, "y": 5, "unit": "')).toMatchObject({ Cel: 6 });
    // a number key, and a numeral the question writes in digits that no argument holds: going on ("within 10 miles")
    const numericKeys = new Map([["f", ["x", "y", "z"]]]);
    const digits = (source: string, y = 5) =>
      steerAfter(
        new GroundingSteer({ mode: "soft", source: [source], argumentKeys, optionalKeys, numericKeys }, vocab),
        vocab,
        `{"skill_name": "f", "arguments": {"x": 4, "y": ${y}`,
      ) as Record<string, number>;
    expect(digits(`${question}, drawn in 2020`)).toMatchObject({ ",": 6, "}": -4 });
    // a numeral written in words is no value of a number key ("two sets"), even where its digit is part of another
    // numeral (12): closing as before
    expect(digits(`${question}, two of them`)).toMatchObject({ "}": 6 });
    expect(digits("Two sides of 4 and 12", 12)).toMatchObject({ "}": 6 });
    // every key written: nothing may follow but the close, no steering of it
    expect(at(question, '{"skill_name": "f", "arguments": {"unit": "cm", "z": 3, "x": 4, "y": 5')).toMatchObject({
      ",": 6,
      "}": 6,
    });
  });

  it("an array of the key's own values the question writes goes on while one is unwritten, and ends after the last", () => {
    const argumentKeys = new Map([["f", ["features"]]]);
    const askedBy = new Map([["f", { features: ["Camping", "Scenic View", "Trails", "Picnic Areas"] }]]);
    const source = ["Find the closest nature park that allows camping and has scenic views in Boston, MA."];
    const closed = (text: string) => {
      const steer = new GroundingSteer({ mode: "soft", source, argumentKeys, askedBy }, vocab);
      steer.next(text.slice(0, -1));
      return steerAfter(steer, vocab, text);
    };
    const list = '{"skill_name": "f", "arguments": {"features": [';
    // "camping" and "scenic views" are written by the question, "Trails" is not: on after the first, end after both
    expect(closed(`${list}"Camping"`)).toMatchObject({ ",": 6, "]": -8 });
    expect(closed(`${list}"Camping", "Scenic View"`)).toMatchObject({ "]": 6, ",": -8 });
    // an item the question does not write: left alone
    expect(closed(`${list}"Trails"`)).toEqual({ type: "none" });
    // the grammar wrote the rest of the enum value without asking the steer (it last saw "S"): the item is read whole
    const skipped = new GroundingSteer({ mode: "soft", source, argumentKeys, askedBy }, vocab);
    skipped.next(`${list}"Camping", "S`);
    expect(steerAfter(skipped, vocab, `${list}"Camping", "Scenic View"`)).toMatchObject({ "]": 6, ",": -8 });
  });

  it("a currency key takes the question's currency as a code, a conversion's sides in the question's order", () => {
    const words = vocabulary([...TEXTS, "EUR", "CAD", "E", "C", "Euros", "Canadian", '"EUR', '"E', '"Euros']);
    const argumentKeys = new Map([["f", ["amount", "from_currency", "to_currency"]]]);
    const currencyKeys = new Map([["f", ["from_currency", "to_currency"]]]);
    const at = (text: string) =>
      steerAfter(
        new GroundingSteer(
          { mode: "soft", source: ["Convert 150 Euros to Canadian dollars."], argumentKeys, currencyKeys },
          words,
        ),
        words,
        `{"skill_name": "f", "arguments": {"amount": 150, ${text}`,
      ) as Record<string, number>;
    expect(at('"from_currency": ')).toMatchObject({ '"EUR': 6, '"E': 6 });
    expect(at('"from_currency": ')['"Euros'] ?? 0).toBeLessThanOrEqual(0);
    const to = at('"from_currency": "EUR", "to_currency": "');
    expect(to).toMatchObject({ CAD: 6, C: 6 });
    expect(to.Canadian ?? 0).toBeLessThanOrEqual(0);
    expect(at('"from_currency": "EUR')).toMatchObject({ '"': 6 });
    // the last one whole, and only an unasked optional key left: the arguments close, `",` (a string closer of the
    // real vocabularies) loses its bonus
    const plain = vocabulary([...TEXTS, "JPY"]);
    const closers = { ...plain, stringClosers: [...plain.stringClosers, plain.id('",') as Token] };
    const withRate = new GroundingSteer(
      {
        mode: "soft",
        source: ["The exchange rate from British Pounds to Japanese Yen."],
        argumentKeys: new Map([["f", ["from_currency", "to_currency", "amount"]]]),
        optionalKeys: new Map([["f", ["amount"]]]),
        currencyKeys,
      },
      closers,
    );
    const end = steerAfter(
      withRate,
      closers,
      '{"skill_name": "f", "arguments": {"from_currency": "GBP", "to_currency": "JPY',
    ) as Record<string, number>;
    expect(end['"}']).toBe(6);
    expect(end['",'] ?? 0).toBeLessThanOrEqual(0);
  });

  it("a date the key asks in a form of its own: the question's date in that form, alone favoured, closed when whole", () => {
    const words = vocabulary([...TEXTS, "06", "-01", "-", "01", "2023", "June", "Tokyo", '"06', '"June']);
    const argumentKeys = new Map([["f", ["location", "date"]]]);
    const dateFormats = new Map([["f", { date: "mm-dd-yyyy" }]]);
    const steer = () =>
      new GroundingSteer(
        { mode: "soft", source: ["UV index for Tokyo for tomorrow, June01 2023."], argumentKeys, dateFormats },
        words,
      );
    const at = (text: string) => steerAfter(steer(), words, text) as Record<string, number>;
    const call = '{"skill_name": "f", "arguments": {"location": "Tokyo", "date": ';
    // before the string opens, and as it opens: the formatted date's start, and no span of the question
    expect(at(call)).toMatchObject({ '"06': 6 });
    expect(at(call)['"June']).toBeUndefined();
    const open = at(`${call}"`);
    expect(open).toMatchObject({ "06": 6 });
    expect(open.June ?? 0).toBeLessThanOrEqual(0);
    expect(open.Tokyo ?? 0).toBeLessThanOrEqual(0);
    // short of the date: on with it, no close; whole: closed
    expect(at(`${call}"06`)).toMatchObject({ "-01": 6, "-": 6, '"': -4 });
    expect(at(`${call}"06-01-2023`)).toMatchObject({ '"': 6, '"}': 6 });
    // a key whose description spells no format: the question's spans as before
    const plain = new GroundingSteer(
      { mode: "soft", source: ["UV index for Tokyo for tomorrow, June01 2023."], argumentKeys },
      words,
    );
    expect(steerAfter(plain, words, `${call}"`)).not.toMatchObject({ "06": 6 });
  });

  it("another skill's schema values get no copy bonus in the called skill's arguments", () => {
    const words = vocabulary([...TEXTS, "Texas", "violent", "property"]);
    const argumentKeys = new Map([
      ["f", ["type", "city"]],
      ["g", ["game"]],
    ]);
    const askedBy = new Map<string, Record<string, string[]>>([
      ["f", { type: ["violent", "property"], city: [] }],
      ["g", { game: ["Texas Holdem"] }],
    ]);
    const steer = (rulesOff?: string[]) =>
      new GroundingSteer(
        {
          mode: "soft",
          source: ["The official crime rate of violent crime in San Francisco in 2020."],
          schemaValues: ["violent", "property", "Texas Holdem"],
          argumentKeys,
          askedBy,
          rulesOff,
        },
        words,
      );
    const text = '{"skill_name": "f", "arguments": {"type": "';
    const on = steerAfter(steer(), words, text) as Record<string, number>;
    expect(on.Texas).toBeUndefined();
    expect(on.violent).toBeGreaterThan(0);
    expect(on.property).toBe(4); // the called skill's own value keeps its bonus
    expect((steerAfter(steer(["other-keys-values"]), words, text) as Record<string, number>).Texas).toBe(4);
  });

  it("a question's word that the key's own value begins is not closed short of that value", () => {
    const at = (text: string) =>
      steerAfter(
        new GroundingSteer(
          {
            mode: "soft",
            source: ["Give me detail information about stocks of Apple Inc."],
            schemaValues: ["summary", "detailed"],
            argumentKeys: new Map([["f", ["company_name", "detail_level"]]]),
            askedBy: new Map([["f", { company_name: [], detail_level: ["summary", "detailed"] }]]),
          },
          vocab,
        ),
        vocab,
        `{"skill_name": "f", "arguments": {"company_name": "Apple Inc.", "detail_level": "${text}`,
      ) as Record<string, number>;
    expect(at("detail")['"']).toBe(-4); // 'detailed' goes on
    expect(at("detailed")['"']).toBeGreaterThan(0);
  });

  it("a value closes before the source goes on with another key's value", () => {
    const words = vocabulary([...TEXTS, " in", " London", "Natural", " History", " Museum"]);
    const source = ["Get me information about Natural History Museum in London including timings."];
    const at = (keys: string[]) =>
      steerAfter(
        new GroundingSteer({ mode: "soft", source, argumentKeys: new Map([["f", keys]]) }, words),
        words,
        '{"skill_name": "f", "arguments": {"museum": "Natural History Museum',
      ) as Record<string, number>;
    // "in London" is the city's (the call's one place key): the museum's name closes before it
    expect(at(["museum", "city"])).toMatchObject({ " in": -4, '"': 6 });
    // no other key takes London: going on is left to the copy bonus
    expect(at(["museum"])[" in"]).not.toBe(-4);
  });

  it("while a required or asked key is still to come, an optional key the question does not ask for does not begin", () => {
    const keys = vocabulary([...TEXTS, '"z', '"unit', '"y', "z", "unit", "y", ' "z', ' "y']);
    // the schema's order: x, z, unit, y (the grammar writes keys in it, an optional one or the next)
    const argumentKeys = new Map([["f", ["x", "z", "unit", "y"]]]);
    const optionalKeys = new Map([["f", ["z", "unit"]]]);
    const at = (source: string, text: string) =>
      steerAfter(
        new GroundingSteer({ mode: "soft", source: [source], argumentKeys, optionalKeys }, keys),
        keys,
        text,
      ) as Record<string, number>;
    const question = "The hypotenuse of a right triangle with sides 4 and 5";
    // after `,` the key's quote is still to come; after `,"` its name
    expect(at(question, '{"skill_name": "f", "arguments": {"x": 4,')).toEqual({ '"z': -4, '"unit': -4 });
    expect(at(question, '{"skill_name": "f", "arguments": {"x": 4, "')).toEqual({ z: -4, unit: -4 });
    expect(at(question, '{"skill_name": "f", "arguments": {"')).toEqual({ z: -4, unit: -4 });
    // a key the question names is asked for: no malus on it
    expect(at(`${question}, unit cm`, '{"skill_name": "f", "arguments": {"x": 4,')).toEqual({ '"z': -4 });
    // every required key written: nothing to steer toward (the value's end steers the close)
    expect(
      steerAfter(
        new GroundingSteer({ mode: "soft", source: [question], argumentKeys, optionalKeys }, keys),
        keys,
        '{"skill_name": "f", "arguments": {"x": 4, "y": 5,',
      ),
    ).toEqual({ type: "none" });
    // every required key written, and an optional one the question asks for still to come: an unasked one before it
    // gets the malus (both models wrote `"timeZone":"2025-03-01"` before the asked `from`); here in the order x, y,
    // z, unit, where both optional keys may still follow y
    const yFirst = new Map([["f", ["x", "y", "z", "unit"]]]);
    const asked = `${question}, unit cm`;
    const afterY = '{"skill_name": "f", "arguments": {"x": 4, "y": 5,';
    expect(
      steerAfter(
        new GroundingSteer({ mode: "soft", source: [asked], argumentKeys: yFirst, optionalKeys }, keys),
        keys,
        afterY,
      ),
    ).toEqual({ '"z': -4 });
    // in the order x, z, unit, y, nothing may follow y: the optional keys skipped are gone, none is asked for
    expect(
      steerAfter(new GroundingSteer({ mode: "soft", source: [asked], argumentKeys, optionalKeys }, keys), keys, afterY),
    ).toEqual({ type: "none" });
    // nor does a value's end there go on toward the asked `unit`: `}` is what the grammar leaves besides digits
    const end = steerAfter(
      new GroundingSteer({ mode: "soft", source: [asked], argumentKeys, optionalKeys }, keys),
      keys,
      afterY.slice(0, -1),
    ) as Record<string, number>;
    expect(end["}"]).toBeGreaterThan(0);
    expect(end[","]).not.toBeGreaterThan(end["}"]);
    // inside a nested object, or with the rule off: nothing
    expect(
      steerAfter(
        new GroundingSteer({ mode: "soft", source: [question], argumentKeys, optionalKeys }, keys),
        keys,
        '{"skill_name": "f", "arguments": {"x": {"a": 4,',
      ),
    ).toEqual({ type: "none" });
    const off = new GroundingSteer(
      { mode: "soft", source: [question], argumentKeys, optionalKeys, rulesOff: ["arguments-end"] },
      keys,
    );
    expect(off.next('{"skill_name": "f", "arguments": {"x": 4,')).toEqual({ type: "none" });
  });

  it("numbers: favours the question's numeral, closes it when whole, closes a runaway", () => {
    const steer = soft();
    const prefix = '{"skill_name": "f", "arguments": {"distance": ';
    // "The distance is 50 km": 50 stands beside the key's word, so it gets the anchor bonus
    expect(steerAfter(steer, vocab, prefix)).toMatchObject({ 5: 6, '"New': 4 });
    // "5" is no numeral of the source, only the start of 50: going on gets the bonus, closing the malus
    expect(steerAfter(steer, vocab, `${prefix}5`)).toEqual({ 0: 6, ",": -4, "}": -4 }); // 6: toward the anchored 50
    // "9" of "9.8 within 5 seconds": the decimal point gets the bonus, the end the malus
    const decimal = new GroundingSteer({ mode: "soft", source: ["acceleration of 9.8 within 5 seconds"] }, vocab);
    expect(steerAfter(decimal, vocab, `${prefix}9`)).toEqual({ ".": 4, ",": -4, "}": -4 });
    expect(steerAfter(steer, vocab, `${prefix}50`)).toMatchObject({ ",": 6, "}": 6 });
    // "1" is a whole numeral and begins "1000": closing and going on get the same bonus
    const both = new GroundingSteer({ mode: "soft", source: ["1 year, 1000 dollars"] }, vocab);
    expect(steerAfter(both, vocab, `${prefix}1`)).toMatchObject({ "0": 4, ",": 4 });
    // the source's longest numeral has 2 digits: 2 + 2 digits at most
    expect(steer.next(`${prefix}50000`)).toEqual({ type: "close-value" });
    // a run of one digit longer than any in the source (and at least 3)
    expect(new GroundingSteer({ mode: "soft", source: ["speed 12345678"] }, vocab).next(`${prefix}1000`)).toEqual({
      type: "close-value",
    });
  });

  it("closes an argument string that runs one digit past the source's longest run", () => {
    const steer = new GroundingSteer({ mode: "soft", source: ["Find Safeway in Palo Alto"] }, vocab);
    const prefix = '{"skill_name": "f", "arguments": {"location": "Safeway 10';
    expect(steer.next(`${prefix}0`)).not.toEqual({ type: "close-string" });
    expect(steer.next(`${prefix}00`)).toEqual({ type: "close-string" });
    // no numeral in the source: 1 + 2 digits at most
    const alternating = new GroundingSteer({ mode: "soft", source: ["Find Safeway in Palo Alto"] }, vocab);
    expect(alternating.next(`${prefix}1`)).not.toEqual({ type: "close-string" });
    expect(alternating.next(`${prefix}10`)).toEqual({ type: "close-string" });
  });

  it("closes an argument string longer than the longest source text", () => {
    const steer = new GroundingSteer({ mode: "soft", source: ["short question"] }, vocab);
    const runaway = `{"skill_name": "f", "arguments": {"q": "${"ab ".repeat(10)}a`;
    expect(steer.next(runaway)).toEqual({ type: "none" }); // 31 characters: the bound is 32
    expect(steer.next(`${runaway}c`)).toEqual({ type: "close-string" });
  });

  it("each lever left out leaves its part unsteered, and only its part", () => {
    const source = ["How far is New York, NY? The distance is 50 km."];
    const lever = (...levers: GroundingLever[]) => new GroundingSteer({ mode: "soft", source, levers }, vocab);
    const string = '{"skill_name": "f", "arguments": {"team": "';
    const number = '{"skill_name": "f", "arguments": {"distance": ';
    const long = `${string}${"ab ".repeat(20)}`;
    const answer = '{"final_answer": "';
    // all four: the copy bonus, the number's bonus, the length bound, the answer's bias
    const all = lever(...GROUNDING_LEVERS);
    expect(all.next(string).type).toBe("bias");
    expect(lever(...GROUNDING_LEVERS).next(`${number}50000`)).toEqual({ type: "close-value" });
    expect(lever(...GROUNDING_LEVERS).next(long)).toEqual({ type: "close-string" });
    expect(lever(...GROUNDING_LEVERS).next(answer).type).toBe("bias");
    // without copy: a string is not steered, but still bounded
    expect(lever("numbers", "strings", "answers").next(string)).toEqual({ type: "none" });
    expect(lever("numbers", "strings", "answers").next(long)).toEqual({ type: "close-string" });
    expect(lever("numbers", "strings", "answers").next(`${number}50000`)).toEqual({ type: "close-value" });
    // without numbers: a runaway number goes on; strings are steered as before
    expect(lever("copy", "strings", "answers").next(`${number}50000`)).toEqual({ type: "none" });
    expect(lever("copy", "strings", "answers").next(string).type).toBe("bias");
    // without strings: no length bound, the copy bias stays
    expect(lever("copy", "numbers", "answers").next(long).type).not.toBe("close-string");
    // without answers: the answer is not steered
    expect(lever("copy", "numbers", "strings").next(answer)).toEqual({ type: "none" });
    expect(lever("copy", "numbers", "strings").next(string).type).toBe("bias");
  });

  it("leaves the skill name and the thought alone", () => {
    const steer = soft();
    expect(steer.next('{"skill_name": "New')).toEqual({ type: "none" });
    expect(steer.next('{"skill_name": "f", "arguments": {}, "thought": "New')).toEqual({ type: "none" });
  });

  it("an answer: copy bonus toward the result, malus on a placeholder's tokens at the start", () => {
    const vocabA = vocabulary(TEXTS);
    const steer = new GroundingSteer(
      {
        mode: "soft",
        source: ["42", "What is 6 times 7?"],
        avoid: ["To answer: <your answer, in full sentences>\n<your answer"],
      },
      vocabA,
    );
    const start = steerAfter(steer, vocabA, '{"final_answer": "') as Record<string, number>;
    expect(start["42"]).toBeGreaterThan(0);
    expect(start["<"]).toBeLessThan(0);
    const afterThe = steerAfter(steer, vocabA, '{"final_answer": "The answer is ') as Record<string, number>;
    expect(afterThe["42"]).toBeGreaterThan(0); // re-anchored after a space
  });

  it("an answer: the result's own numeral over the question's echoed in the result", () => {
    const source = ['{"value":20,"from":"lb","to":"kg","result":42}', "How many kilograms is 20 pounds?"];
    const at = (question?: string) =>
      steerAfter(new GroundingSteer({ mode: "soft", source, question }, vocab), vocab, '{"final_answer": "') as Record<
        string,
        number
      >;
    // told the question: 42 gets the numeral bonus, 20 (the question's, echoed as `"value":20`) only a span's
    expect(at(source[1])).toMatchObject({ 4: 6, 20: 2 });
    // not told: both alike, as before
    expect(at()).toMatchObject({ 4: 6, 20: 6 });
    // where the results bring no numeral of their own, the question's keep the bonus
    const echo = new GroundingSteer({ mode: "soft", source: ['{"value":20}', source[1]], question: source[1] }, vocab);
    expect(steerAfter(echo, vocab, '{"final_answer": "')).toMatchObject({ 20: 6 });
  });

  it("an answer that runs away with a number is closed", () => {
    const steer = new GroundingSteer({ mode: "soft", source: ['{"value":150,"result":68.0388555]'] }, vocab);
    expect(steer.next('{"final_answer": "68.0388555').type).not.toBe("close-string");
    const runaway = new GroundingSteer({ mode: "soft", source: ['{"value":150,"result":68.0388555]'] }, vocab);
    expect(runaway.next('{"final_answer": "150.00000000000').type).toBe("close-string");
  });
});

describe("GroundingSteer (strict)", () => {
  const vocab = vocabulary(TEXTS);
  it("allows only spans of the source and the schema's values, and closes a value that left them", () => {
    const steer = new GroundingSteer(
      { mode: "strict", source: ["Weather in New York, NY"], schemaValues: ["Boston"] },
      vocab,
    );
    const prefix = '{"skill_name": "f", "arguments": {"city": "';
    const start = steerAfter(steer, vocab, prefix) as Record<string, number>;
    expect(start.New).toBe(GROUNDING_STRICT_LOGIT);
    expect(start.Boston).toBe(GROUNDING_STRICT_LOGIT);
    expect(start.function).toBeUndefined();
    expect(steer.next(`${prefix}Newx`)).toEqual({ type: "close-string" });
    const numbers = new GroundingSteer({ mode: "strict", source: ["walk 50 m"] }, vocab);
    expect(numbers.next('{"skill_name": "f", "arguments": {"d": 9')).toEqual({ type: "close-value" });
  });

  it("collects each skill's optional argument keys, a parallel call's items too", () => {
    const branch = (name: string, properties: string[], required: string[]) => ({
      type: "object",
      properties: {
        skill_name: { const: name },
        arguments: { type: "object", properties: Object.fromEntries(properties.map((p) => [p, {}])), required },
      },
    });
    const schema = {
      anyOf: [
        branch("standings", ["team", "season", "detailed"], ["team"]),
        { properties: { calls: { type: "array", items: { anyOf: [branch("play", ["artist", "duration"], [])] } } } },
      ],
    };
    expect(Object.fromEntries(optionalArgumentKeys(schema))).toEqual({
      standings: ["season", "detailed"],
      play: ["artist", "duration"],
    });
    expect(skillArgumentKeys(schema).get("standings")).toEqual({
      all: ["team", "season", "detailed"],
      optional: ["season", "detailed"],
      integer: [],
      percent: [],
      numeric: [],
      formula: [],
      askedBy: { team: [], season: [], detailed: [] },
      dateFormats: {},
      currency: [],
      units: {},
      kinds: {},
      powers: {},
    });
    const typed = branch("count", ["n", "x", "s"], ["n"]);
    typed.properties.arguments.properties = {
      n: { type: "integer" },
      x: { type: ["number", "integer"] },
      s: { type: "string" },
    };
    expect(skillArgumentKeys(typed).get("count")?.integer).toEqual(["n"]);
    expect(skillArgumentKeys(typed).get("count")?.numeric).toEqual(["n", "x"]);
    const rates = branch("grow", ["r", "p", "d"], ["r"]);
    rates.properties.arguments.properties = {
      r: { type: "number", description: "The interest rate for a year as a percentage." },
      p: { type: "number", description: "The rate in decimal form. Example, 5 percent is 0.05." },
      d: { type: "number", description: "The annual rate of return." },
    };
    expect(skillArgumentKeys(rates).get("grow")?.percent).toEqual(["r"]);
    const dated = branch("uv", ["date", "day"], ["date"]);
    dated.properties.arguments.properties = {
      date: { type: "string", description: "The date, in the format mm-dd-yyyy." },
      day: { type: "string", description: "The day of the week." },
    };
    expect(skillArgumentKeys(dated).get("uv")?.dateFormats).toEqual({ date: "mm-dd-yyyy" });
  });

  it("the values that ask for an optional key: its enum, quoted literals and examples, less its default", () => {
    // BFCL's wording of simple_python_78, _80, _90 and _176
    expect(
      askingValues({
        type: "string",
        description: "The temperature unit ('Celsius' or 'Fahrenheit'). Default is 'Fahrenheit'.",
      }),
    ).toEqual(["Celsius"]);
    expect(
      askingValues({
        type: "array",
        items: { type: "string" },
        description: "Special dietary requirements, e.g. vegan, gluten-free. Default is empty list.",
      }),
    ).toEqual(["vegan", "gluten-free"]);
    expect(
      askingValues({
        type: "array",
        items: { type: "string", enum: ["Personal Info", "Job History", "Payroll"] },
        description: "Fields of data to be fetched. Default is ['Personal Info']",
      }),
    ).toEqual(["Job History", "Payroll"]);
    expect(
      askingValues({
        type: "string",
        description: "Type of the lawsuit, e.g., 'IPR', 'Patent', 'Commercial', etc. Default is 'all'.",
      }),
    ).toEqual(["IPR", "Patent", "Commercial"]);
    expect(askingValues({ type: "string", enum: ["importance", "chronological"], default: "chronological" })).toEqual([
      "importance",
    ]);
    // nothing to go by
    expect(askingValues({ type: "string", description: "The unit of measurement, default is 'km'." })).toEqual([]);
    expect(askingValues({ type: "integer", enum: [1, 2] })).toEqual([]);
  });

  it("collects enum and default values, not the skill names", () => {
    const schema = {
      type: "object",
      properties: {
        skill_name: { enum: ["calc", "weather"] },
        arguments: { properties: { unit: { enum: ["km", "mi"], default: "km" }, n: { default: 3 } } },
      },
    };
    expect(schemaValues(schema).sort()).toEqual(["3", "km", "mi"]);
  });

  it("collects the literals a description quotes, not apostrophes", () => {
    const schema = {
      properties: {
        units: { type: "string", description: "Units of the output. Default is 'cm'." },
        method: { type: "string", description: "Choices are 'trapezoid' or \"simpson\". It's the user's pick." },
      },
    };
    expect(schemaValues(schema).sort()).toEqual(["cm", "simpson", "trapezoid"]);
  });

  it("leaves out the literals a description gives as examples", () => {
    const schema = {
      properties: {
        expression: { type: "string", description: 'The expression, e.g. "15/100*80" or "round(2^0.5, 3)"' },
        from: { type: "string", description: 'Unit of the value, e.g. "km", "lb", "F"' },
        place: {
          type: "string",
          description: "The name of the location, e.g., 'Amazon rainforest'. Default is 'all'.",
        },
        zone: { type: "string", description: 'IANA time zone, e.g. "Europe/Paris"; default "UTC"' },
        route: { type: "string", description: "Type of route (e.g., 'fastest', 'scenic'). Default is 'fastest'." },
      },
    };
    expect(schemaValues(schema).sort()).toEqual(["UTC", "all", "fastest"]);
  });
});
