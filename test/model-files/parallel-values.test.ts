/**
 * Each call of a `calls` list takes its own item's values: the number that tells the items apart, not the first
 * item's again nor a value another key took at its one place; not a description's default; a number key in the unit
 * its description ends with; a name that began as its own item's does not go on as another item's. And a final
 * answer refused as the prompt's own text is not written again.
 */
import { describe, expect, it } from "vitest";
import type { Token } from "../../src/model/grounding/token.js";
import { buildActionJsonSchema } from "../../src/actions/index.js";
import { bfclRegistry } from "../../src/eval/bfcl/bfcl-skills.js";
import { replySteerFor } from "../../src/model/grounding/grounding-setup.js";
import type { GroundingVocabulary } from "../../src/model/grounding/grounding-steer.js";
import type { GroundingOptions } from "../../src/model/model-handle.js";
import { questionItems } from "../../src/decision/question-items.js";
import { skillProfiles } from "../../src/agent/step-decision-source.js";
import { numeralsAfterOwnWords, writtenSpans } from "../../src/model/grounding/key-anchors.js";

type Fn = Parameters<typeof bfclRegistry>[0][number];

/** A BFCL function of `properties`, `required` of them required. */
function skillFn(name: string, description: string, properties: Record<string, unknown>, required: string[]): Fn {
  return { name, description, parameters: { type: "dict", properties, required } };
}

/** A vocabulary of the given token texts (each its own id), JSON's closers first. */
function vocabulary(texts: string[]): { vocab: GroundingVocabulary; id: (text: string) => Token } {
  const all = [...new Set(['"', '"}', ",", "}", "}},", "}}]", ...texts])];
  const token = (i: number) => i as unknown as Token;
  const ids = new Map(all.map((text, i) => [text, token(i)]));
  const kept = new Map<string, unknown>();
  const vocab: GroundingVocabulary = {
    memo: <T>(key: string, compute: () => T): T => {
      if (!kept.has(key)) kept.set(key, compute());
      return kept.get(key) as T;
    },
    tokensFor: (text) => (ids.has(text) ? [ids.get(text)!] : undefined),
    maxTokenChars: 16,
    stringClosers: [0, 1].map(token),
    valueClosers: [2, 3, 4, 5].map(token),
    banned: new Set(),
  };
  return { vocab, id: (text) => ids.get(text)! };
}

/** The bias on each of `tokens` after `prefix`, for a reply that may call `fn` in a list. */
function biasAfter(fn: Fn, grounding: GroundingOptions, prefix: string, tokens: string[]): Record<string, number> {
  const { vocab, id } = vocabulary(tokens);
  const schema = buildActionJsonSchema(bfclRegistry([fn]), { parallelCalls: true });
  const steer = replySteerFor(vocab, grounding, schema)!;
  let out = steer.next(prefix.slice(0, 1));
  for (let i = 2; i <= prefix.length; i++) out = steer.next(prefix.slice(0, i));
  const logits = out.type === "bias" ? out.logits : new Map<Token, number>();
  return Object.fromEntries(tokens.map((t) => [t, logits.get(id(t)) ?? 0]));
}

/** The grounding of a `calls` reply over the question's items (as the agent gives it). */
function itemsGrounding(fn: Fn, question: string): GroundingOptions {
  const items = questionItems(question, skillProfiles(bfclRegistry([fn]))).map((item) => item.text);
  return { mode: "soft", source: [items[0]], items, question, avoid: [] };
}

const PRESENT_VALUE = skillFn(
  "calculate_present_value",
  "Calculates the present value of an income stream.",
  {
    payment_per_year: { type: "integer", description: "The payment received per year." },
    interest_rate: { type: "float", description: "The interest rate applied per period." },
    years: { type: "integer", description: "The total number of years." },
  },
  ["payment_per_year", "interest_rate", "years"],
);

const call = (name: string, args: string) => `{"skill_name":"${name}","arguments":{${args}}}`;

describe("a call of a calls list, its own item's values", () => {
  it("the number that tells the items apart, not the first item's again nor another key's at its one place", () => {
    const question = "Calculate the present value of an income paying $1000 per year at 5% for 10, 20 and 30 years.";
    const grounding = itemsGrounding(PRESENT_VALUE, question);
    expect(grounding.items).toHaveLength(3);
    const first = call("calculate_present_value", '"payment_per_year":1000,"interest_rate":0.05,"years":10');
    const prefix = `{"calls":[${first},{"skill_name":"calculate_present_value","arguments":{"payment_per_year":1000,"interest_rate":0.05,"years":`;
    const bias = biasAfter(PRESENT_VALUE, grounding, prefix, ["1", "10", "2", "20", "3", "30"]);
    // "1" begins the first item's 10 and the payment's 1000, anchored to `years` by "per year": neither is this call's
    expect(bias["20"]).toBeGreaterThan(0);
    expect(bias["2"]).toBeGreaterThan(0);
    expect(bias["10"]).toBeLessThan(0);
    expect(bias["1"]).toBeLessThan(0);
    expect(bias["30"]).toBeLessThan(0);
  });

  it("a call before that does not parse leaves the next one's steer to its item, and throws nothing", () => {
    const question = "Calculate the present value of an income paying $1000 per year at 5% for 10, 20 and 30 years.";
    const grounding = itemsGrounding(PRESENT_VALUE, question);
    // (a reply the grammar did not hold: a trailing comma inside the first call's arguments)
    const first = call("calculate_present_value", '"payment_per_year":1000,"interest_rate":0.05,"years":10,');
    const prefix = `{"calls":[${first},{"skill_name":"calculate_present_value","arguments":{"payment_per_year":1000,"interest_rate":0.05,"years":`;
    const bias = biasAfter(PRESENT_VALUE, grounding, prefix, ["1", "10", "2", "20", "30"]);
    expect(bias["20"]).toBeGreaterThan(0);
    expect(bias["30"]).toBeLessThan(0);
  });

  it("a numeral written twice in the item stays this key's where another key took one of them", () => {
    const fn = skillFn(
      "future_value",
      "Future value of an investment.",
      {
        present_value: { type: "integer", description: "The present value." },
        annual_interest_rate: { type: "float", description: "The annual interest rate." },
        number_of_years: { type: "integer", description: "The number of years." },
      },
      ["present_value", "annual_interest_rate", "number_of_years"],
    );
    const grounding = itemsGrounding(
      fn,
      "The future value of $1000 with an annual interest rate of 5% for 1,5 and 10 years.",
    );
    expect(grounding.items).toHaveLength(3);
    const first = call("future_value", '"present_value":1000,"annual_interest_rate":0.05,"number_of_years":1');
    const prefix = `{"calls":[${first},{"skill_name":"future_value","arguments":{"present_value":1000,"annual_interest_rate":0.05,"number_of_years":`;
    const bias = biasAfter(fn, grounding, prefix, ["1", "10", "5"]);
    // (before, the rate's anchor "5%" took the 5 from `number_of_years`: no bonus for it at all)
    expect(bias["5"]).toBeGreaterThan(0);
    expect(bias["5"]).toBeGreaterThan(bias["10"]);
  });

  it("a number key takes the numeral before the unit its description ends with", () => {
    const fn = skillFn(
      "calculate_bmi",
      "Calculate the Body Mass Index (BMI) of a person.",
      {
        weight: { type: "integer", description: "Weight of the person in kilograms." },
        height: { type: "integer", description: "Height of the person in centimeters." },
      },
      ["weight", "height"],
    );
    const question =
      "Calculate the BMI of two people: the first weighs 85 kilograms and is 175 centimeters tall, the second weighs 60 kilograms and is 160 centimeters tall.";
    const grounding = itemsGrounding(fn, question);
    expect(grounding.items).toHaveLength(2);
    const weight = biasAfter(fn, grounding, '{"calls":[{"skill_name":"calculate_bmi","arguments":{"weight":', [
      "85",
      "175",
    ]);
    expect(weight["85"]).toBeGreaterThan(weight["175"]);
    const height = biasAfter(
      fn,
      grounding,
      '{"calls":[{"skill_name":"calculate_bmi","arguments":{"weight":85,"height":',
      ["85", "175"],
    );
    expect(height["175"]).toBeGreaterThan(height["85"]);
  });

  it("a description's default numeral gets no copy bonus; the item's own does", () => {
    const fn = skillFn(
      "find_upcoming",
      "Find upcoming events of a genre in a city.",
      {
        location: { type: "string", description: "The city, e.g. Boston, MA." },
        genre: { type: "string", description: "The genre of music." },
        days_ahead: { type: "integer", description: "The number of days ahead to search. Default is 7." },
      },
      ["location", "genre"],
    );
    const question =
      "Find jazz events in Los Angeles, CA for the next 14 days and then rock events in Chicago, IL for the next 10 days.";
    const grounding = itemsGrounding(fn, question);
    expect(grounding.items).toHaveLength(2);
    const prefix =
      '{"calls":[{"skill_name":"find_upcoming","arguments":{"location":"Los Angeles, CA","genre":"jazz","days_ahead":';
    const bias = biasAfter(fn, grounding, prefix, ["14", "7", "10"]);
    expect(bias["14"]).toBeGreaterThan(0);
    expect(bias["7"]).toBeLessThanOrEqual(0);
    expect(bias["10"]).toBeLessThan(0);
  });

  it("a name begun as its own item's does not go on as another item's; a clause for both is every item's", () => {
    const fn = skillFn(
      "lawsuit_search",
      "Retrieve lawsuits involving an entity in a county.",
      {
        entity: { type: "string", description: "The entity involved." },
        county: { type: "string", description: "The county." },
        state: { type: "string", description: "The state." },
      },
      ["entity", "county", "state"],
    );
    const question =
      'Retrieve all lawsuits involving the entity "Google" from the county of "Santa Clara" and then do the same for the entity "Facebook" in the county of "San Mateo", both in the state of California?';
    const grounding = itemsGrounding(fn, question);
    expect(grounding.items).toHaveLength(2);
    expect(grounding.items![0]).toContain("California");
    const prefix = '{"calls":[{"skill_name":"lawsuit_search","arguments":{"entity":"Google","county":"San';
    const bias = biasAfter(fn, grounding, prefix, ["ta", " Mateo", " Ma"]);
    expect(bias["ta"]).toBeGreaterThan(0);
    expect(bias[" Mateo"]).toBeLessThan(0);
    expect(bias[" Ma"]).toBeLessThan(0);
    const state = biasAfter(
      fn,
      grounding,
      '{"calls":[{"skill_name":"lawsuit_search","arguments":{"entity":"Google","county":"Santa Clara","state":"',
      ["California", "Cal"],
    );
    expect(state["California"]).toBeGreaterThan(0);
  });
});

describe("a final answer refused as the prompt's own text", () => {
  it("is not written again, though its first word begins a result's word", () => {
    const result = '{"status":"recorded","note":"The call was recorded. Answer the user now."}';
    const base: GroundingOptions = { mode: "soft", source: [result, "Where can I buy a piano?"], avoid: [] };
    const prefix = '{"final_answer":"';
    const before = biasAfter(PRESENT_VALUE, base, prefix, ["no", "No", "The"]);
    expect(before["no"]).toBeGreaterThan(0);
    const refused = { ...base, refused: ["no more skill calls"] };
    const after = biasAfter(PRESENT_VALUE, refused, prefix, ["no", "No", "The"]);
    expect(after["no"]).toBeLessThan(0);
    expect(after["No"]).toBeLessThan(0);
    expect(after["The"]).toBeGreaterThan(0);
    const on = biasAfter(PRESENT_VALUE, refused, `${prefix}no`, [" more", "te"]);
    expect(on[" more"]).toBeLessThan(0);
  });
});

describe("a key's own word in another form", () => {
  it("anchors the numeral after it, past a joining word: ending at 20 for end_range, starting from 0", () => {
    const keys = ["start_range", "end_range", "frequency"];
    const text = "a frequency of 10 Hz, starting from 0 radians and ending at 20 radians";
    expect(numeralsAfterOwnWords("end_range", keys, text)).toEqual(["20"]);
    expect(numeralsAfterOwnWords("start_range", keys, text)).toEqual(["0"]);
    expect(numeralsAfterOwnWords("frequency", keys, text)).toEqual(["10"]);
    // a word that only begins like the key's is none ("endless 5")
    expect(numeralsAfterOwnWords("end_range", keys, "an endless 5 loops")).toEqual([]);
    // "from" joins a word to a numeral only: "a direct flight from 'New York'" is no value of `direct_flight`
    const flight = skillFn(
      "flight.book",
      "Book a flight.",
      {
        departure_location: { type: "string", description: "The departure location." },
        destination_location: { type: "string", description: "The destination." },
        direct_flight: { type: "boolean", description: "Only direct flights." },
      },
      ["departure_location", "destination_location"],
    );
    const question = "I need to book a direct flight from 'New York' to 'London' at '10:00AM'.";
    const grounding: GroundingOptions = { mode: "soft", source: [question], question, avoid: [] };
    const bias = biasAfter(flight, grounding, '{"skill_name":"flight.book","arguments":{"departure_location":', [
      '"New',
    ]);
    expect(bias['"New']).toBeGreaterThan(0);
  });
});

describe("an enum value the question writes in words", () => {
  it("is found with its underscore as a space, and a shorter value inside it is not", () => {
    const text = "the last year, and the last five years";
    expect(writtenSpans(text, "five_years").map(([s, e]) => text.slice(s, e))).toEqual(["five years"]);
    expect(writtenSpans(text, "year").map(([start]) => text.slice(start, start + 4))).toEqual(["year", "year"]);
    expect(writtenSpans("a yearly report", "year")).toEqual([]);
    const fn = skillFn(
      "precipitation_stats",
      "Precipitation data for a location and time period.",
      {
        location: { type: "string", description: "The location." },
        time_frame: { type: "string", enum: ["six_months", "year", "five_years"], description: "The period." },
      },
      ["location", "time_frame"],
    );
    const question =
      "The precipitation statistics for the Amazon rainforest for the last year and the last five years?";
    const grounding = itemsGrounding(fn, question);
    expect(grounding.items).toHaveLength(2);
    const first =
      '{"skill_name":"precipitation_stats","arguments":{"location":"Amazon rainforest","time_frame":"year"}}';
    const prefix = `{"calls":[${first},{"skill_name":"precipitation_stats","arguments":{"location":"Amazon rainforest","time_frame":"`;
    const bias = biasAfter(fn, grounding, prefix, ["five", "year"]);
    expect(bias["five"]).toBeGreaterThan(bias["year"]);
  });
});

describe("a digit inside a string value", () => {
  it("gets the malus where the source writes none there; a name's own digit keeps its bonus", () => {
    const fn = skillFn(
      "find_restaurants",
      "Find restaurants.",
      { location: { type: "string", description: "The city." }, band: { type: "string" } },
      ["location"],
    );
    const grounding: GroundingOptions = {
      mode: "soft",
      source: ["Find four restaurants in New York where Maroon 5 played."],
      avoid: [],
    };
    const city = biasAfter(fn, grounding, '{"skill_name":"find_restaurants","arguments":{"location":"New York', [
      " 1",
      "1",
      " where",
    ]);
    expect(city[" 1"]).toBeLessThan(0);
    expect(city[" where"]).toBeGreaterThan(0);
    const spaced = biasAfter(fn, grounding, '{"skill_name":"find_restaurants","arguments":{"location":"New York ', [
      "1",
    ]);
    expect(spaced["1"]).toBeLessThan(0);
    const band = biasAfter(fn, grounding, '{"skill_name":"find_restaurants","arguments":{"band":"Maroon', [" 5", " 1"]);
    expect(band[" 5"]).toBeGreaterThan(0);
    expect(band[" 1"]).toBeLessThan(0);
  });
});

describe("the call before's value of a key", () => {
  it("gets the malus where this call's item anchors another numeral to the key", () => {
    const fn = skillFn(
      "plot_sine_wave",
      "Plot a sine wave.",
      {
        start_range: { type: "integer", description: "Start of the range in radians." },
        end_range: { type: "integer", description: "End of the range in radians." },
        frequency: { type: "integer", description: "Frequency in Hz." },
      },
      ["start_range", "end_range", "frequency"],
    );
    const question =
      "Plot two sine waves. The first one should have a frequency of 5 Hz, starting from 0 radians and ending at 10 " +
      "radians. The second one should have a frequency of 10 Hz, starting from 0 radians and ending at 20 radians.";
    const grounding = itemsGrounding(fn, question);
    expect(grounding.items).toHaveLength(2);
    const first = call("plot_sine_wave", '"start_range":0,"end_range":10,"frequency":5');
    const prefix = `{"calls":[${first},{"skill_name":"plot_sine_wave","arguments":{"start_range":0,"end_range":`;
    const bias = biasAfter(fn, grounding, prefix, ["10", "20"]);
    expect(bias["10"]).toBeLessThan(0);
    expect(bias["20"]).toBeGreaterThan(0);
  });
});

describe("a question written in quotes", () => {
  it("is no quoted value: a name inside it closes where it ends", () => {
    const fn = skillFn(
      "find_restaurants",
      "Find restaurants.",
      { location: { type: "string", description: "The city." } },
      [],
    );
    const question = '"Can you help me find four restaurants in New York that serve Italian food and are open late?"';
    const grounding: GroundingOptions = { mode: "soft", source: [question], question, avoid: [] };
    const bias = biasAfter(fn, grounding, '{"skill_name":"find_restaurants","arguments":{"location":"New York', [
      " that",
      '"',
    ]);
    expect(bias['"']).toBeGreaterThan(bias[" that"]);
    // a short quoted title still keeps its words: no closing inside it
    const title = "Find the book 'Ticket to Ride' for me.";
    const inside = biasAfter(
      fn,
      { mode: "soft", source: [title], question: title, avoid: [] },
      '{"skill_name":"find_restaurants","arguments":{"location":"Ticket',
      [" to", '"'],
    );
    expect(inside[" to"]).toBeGreaterThan(inside['"']);
  });
});

describe("a reference in a call of a calls list", () => {
  it("gets the malus unless the call's item takes up a result", () => {
    const fn = skillFn(
      "stock_return",
      "The return of a stock.",
      { amount: { type: "integer", description: "The amount." }, years: { type: "integer" } },
      ["amount"],
    );
    const refer = (items: string[]) =>
      biasAfter(
        fn,
        { mode: "soft", source: [items[1]], items, question: items.join(" "), avoid: [] },
        '{"calls":[{"skill_name":"stock_return","arguments":{"amount":5}},{"skill_name":"stock_return","arguments":{"amount":',
        ["{", '{"$ref'],
      );
    // a relative "that" is no result taken up
    expect(refer(["Invest 5 dollars.", "Invest in a stock that grows fast."])["{"]).toBeLessThan(0);
    expect(refer(["Invest 5 dollars.", "Then invest the result again."])["{"]).toBe(0);
  });
});
