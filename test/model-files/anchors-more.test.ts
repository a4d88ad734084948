/**
 * QuestionReading's anchors beyond a key's head word (model/grounding/question-reading.ts), seen through the grounded
 * schema a server is given (the same reading the in-process steer asks): years for a year key, a shared head word told
 * apart by the key's other words, a number written as a word, an identifier, a route's two sides.
 */
import { describe, expect, it } from "vitest";
import { groundedSchema } from "../../src/model/grounding/grounded-schema.js";
import { GbnfMatcher } from "../../src/model/gbnf/gbnf-matcher.js";
import { parseGbnf } from "../../src/model/gbnf/gbnf-parse.js";
import { jsonSchemaToGbnf } from "../../src/model/gbnf/json-schema-to-gbnf.js";
import type { JsonSchema } from "../../src/json-schema.js";
import { numeralsOf } from "../../src/numerals.js";
import { QuestionReading } from "../../src/model/grounding/question-reading.js";
import { OptionalKeys } from "../../src/model/grounding/optional-keys.js";
import { GroundingIndex } from "../../src/model/grounding/grounding-index.js";
import { RuleGate } from "../../src/model/grounding/rules.js";
import { askingValues, steerSource } from "../../src/model/grounding/grounding-setup.js";
import { findAction } from "../helpers/action-schema.js";
import { coefficientPower, polynomialsOf } from "../../src/model/grounding/polynomials.js";

/** The question as the in-process steer reads it for `schema` (its schema's values in the source after it). */
function readingOf(schema: JsonSchema, question: string): QuestionReading {
  const source = steerSource({ mode: "soft", source: [question] }, schema);
  const index = new GroundingIndex([...source.source, ...(source.schemaValues ?? [])], { skipArticles: true });
  return new QuestionReading(source, index, new RuleGate(undefined));
}

const action = findAction;

/** Whether the grounded schema of `args` for `question` takes the call with `values`. */
function takes(
  args: Record<string, JsonSchema>,
  question: string,
  values: Record<string, unknown>,
  required?: string[],
): boolean {
  const grounded = groundedSchema(action(args, required), { mode: "strict", source: [question] })!;
  const matcher = new GbnfMatcher(parseGbnf(jsonSchemaToGbnf(grounded.schema)));
  const text = `{"skill_name":"find","arguments":${JSON.stringify(values)}}`;
  return matcher.accept(text) && matcher.complete;
}

describe("anchors beyond the head word", () => {
  it("a year key takes the question's years, an ordinal one in their order", () => {
    const args = { company: { type: "string" }, year1: { type: "integer" }, year2: { type: "integer" } } as const;
    const q = "What is the growth rate for company 'Tech Inc' with revenues of $1M in 2019 and $1.2M in 2020?";
    expect(takes(args, q, { company: "Tech Inc", year1: 2019, year2: 2020 })).toBe(true);
    expect(takes(args, q, { company: "Tech Inc", year1: 1, year2: 2020 })).toBe(false);
    expect(takes(args, q, { company: "Tech Inc", year1: 2020, year2: 2019 })).toBe(false);
  });

  it("keys that share a head word take the numeral after their own other words", () => {
    const args = {
      initial_value: { type: "integer" },
      final_value: { type: "integer" },
      period_in_years: { type: "integer" },
    } as const;
    const q = "Calculate the CAGR for an initial investment of $2000, final value of $3000 in a period of 4 years.";
    expect(takes(args, q, { initial_value: 2000, final_value: 3000, period_in_years: 4 })).toBe(true);
    expect(takes(args, q, { initial_value: 3000, final_value: 2000, period_in_years: 4 })).toBe(false);
    const rates = {
      input_synaptic_rate: { type: "integer" },
      weight: { type: "number" },
      decay_rate: { type: "number" },
    } as const;
    const r =
      "Calculate the neuronal activity based on synaptic input rate of 200 and weight 0.5 and decay rate of 0.1.";
    expect(takes(rates, r, { input_synaptic_rate: 200, weight: 0.5, decay_rate: 0.1 })).toBe(true);
    expect(takes(rates, r, { input_synaptic_rate: 200, weight: 0.5, decay_rate: 200 })).toBe(false);
  });

  it("a formatted date and a currency's code: the question's value in the key's form, alone", () => {
    const uv = {
      location: { type: "string" },
      date: { type: "string", description: "The date, in the format mm-dd-yyyy." },
    };
    const q = "Give me the UV index for Tokyo for tomorrow, June01 2023.";
    expect(takes(uv, q, { location: "Tokyo", date: "06-01-2023" })).toBe(true);
    expect(takes(uv, q, { location: "Tokyo", date: "June01 2023" })).toBe(false);
    const convert = {
      amount: { type: "number" },
      from_currency: { type: "string" },
      to_currency: { type: "string" },
    } as const;
    const c = "Convert 150 Euros to Canadian dollars.";
    expect(takes(convert, c, { amount: 150, from_currency: "EUR", to_currency: "CAD" })).toBe(true);
    expect(takes(convert, c, { amount: 150, from_currency: "Euros", to_currency: "CAD" })).toBe(false);
    expect(takes(convert, c, { amount: 150, from_currency: "CAD", to_currency: "EUR" })).toBe(false);
    // a currency the schema writes (its default) is none the question asks for
    const worth = { name: { type: "string" }, currency: { type: "string", description: "Default is 'USD'." } };
    const w = "What's the total worth in euro of Messi according to latest data?";
    expect(takes(worth, w, { name: "Messi", currency: "EUR" })).toBe(true);
    expect(takes(worth, w, { name: "Messi", currency: "USD" })).toBe(false);
  });

  it("a number key takes the numeral before the unit its description names", () => {
    const search = {
      radius: { type: "integer", description: "Search radius (in kilometers)." },
      max_distance: { type: "integer", description: "Maximum distance (in miles) to search within. Default is 5." },
    } as const;
    const q = "Find restaurants within 10 miles of a 3 km long park in Seattle.";
    expect(takes(search, q, { radius: 3, max_distance: 10 })).toBe(true);
    expect(takes(search, q, { radius: 10, max_distance: 3 })).toBe(false);
  });

  it("a number written as a word before the key's word, an identifier after its word, a route's sides", () => {
    const booking = { hotel_name: { type: "string" }, nights: { type: "integer" } } as const;
    const b = "Book a single room for two nights at the Hilton Hotel in Chicago, starting from 10th December 2022.";
    expect(takes(booking, b, { hotel_name: "Hilton Hotel", nights: 2 })).toBe(true);
    expect(takes(booking, b, { hotel_name: "Hilton Hotel", nights: 10 })).toBe(false);
    const building = { building_id: { type: "string" } } as const;
    const s = "What is the structural analysis of the building with building Id B1004 for 2nd, 3rd and 4th floors?";
    expect(takes(building, s, { building_id: "B1004" })).toBe(true);
    expect(takes(building, s, { building_id: "2nd" })).toBe(false);
    const route = { start_location: { type: "string" }, end_location: { type: "string" } } as const;
    const t = "How much traffic should I expect from Las Vegas to Los Angeles this weekend?";
    expect(takes(route, t, { start_location: "Las Vegas", end_location: "Los Angeles" })).toBe(true);
    expect(takes(route, t, { start_location: "Los Angeles", end_location: "Las Vegas" })).toBe(false);
  });

  it("a value the description offers, begun by a word of the question; a word another key holds names neither", () => {
    const stock = {
      company_name: { type: "string" },
      detail_level: { type: "string", description: "Level of detail. Can be 'summary' or 'detailed'." },
    } as const;
    // (a server's grounded schema offers the question's spans, not the description's words: read as the steer does)
    const reading = readingOf(action(stock), "Give me detail information about stocks of Apple Inc.");
    reading.text = '{"skill_name":"find","arguments":{"company_name":"Apple Inc.","detail_level":"';
    const anchored = reading.anchors("detail_level").starts.map((p) => reading.source.following(p, 8));
    expect(anchored).toEqual(["detailed"]);
    const light = {
      distance_in_light_years: { type: "integer" },
      speed_of_light: { type: "integer", description: "The speed of light in m/s. Default value is 299792458 m/s." },
    } as const;
    const l = "How much time will it take for the light to reach earth from a star 4 light years away?";
    expect(takes(light, l, { distance_in_light_years: 4 }, ["distance_in_light_years"])).toBe(true);
    expect(takes(light, l, { distance_in_light_years: 4, speed_of_light: 4 }, ["distance_in_light_years"])).toBe(false);
  });

  it("an amount with a magnitude letter after a currency sign is also read scaled; a letter elsewhere is not", () => {
    expect(numeralsOf("revenues of $1M in 2019 and $1.2M in 2020")).toEqual(
      expect.arrayContaining(["1", "1000000", "1.2", "1200000", "2019", "2020"]),
    );
    expect(numeralsOf("a 10m run with a 2B pencil")).toEqual(["10", "2"]);
    const args = { revenue: { type: "integer" } } as const;
    expect(takes(args, "The revenue of $1.2M last year", { revenue: 1200000 })).toBe(true);
  });

  it("an item's enum value the question writes in its own letter case is anchored where the schema writes it too", () => {
    const shop = {
      services: {
        type: "array",
        items: { type: "string", enum: ["Guitar Lessons", "Violin Lessons", "Piano Lessons"] },
      },
    } as const;
    const reading = readingOf(action(shop), "Find a local guitar shop that also offers violin lessons in Nashville.");
    reading.text = '{"skill_name":"find","arguments":{"services":["';
    const anchored = reading.anchors("services").starts.map((p) => reading.source.following(p, 14));
    expect(anchored).toContain("Violin Lessons");
    expect(anchored).toContain("violin lessons");
    expect(anchored).not.toContain("Piano Lessons");
  });

  it("an optional key whose anchored value another argument holds already is not asked for", () => {
    const schedule = {
      team_name: { type: "string" },
      num_of_games: { type: "integer" },
      league: { type: "string" },
      location: { type: "string", description: "The city or venue. Default to ''." },
    } as const;
    const reading = readingOf(
      action(schedule, ["team_name", "num_of_games"]),
      "Give me the schedule of Manchester United for the next 6 games in Premier League.",
    );
    reading.text = '{"skill_name":"find","arguments":{"team_name":"Manchester United","num_of_games":6';
    const optional = new OptionalKeys(reading);
    expect(optional.asked("location", [])).toBe(true); // "in Premier League": a place's anchor
    reading.text += ',"league":"Premier League"';
    expect(optional.asked("location", [])).toBe(false);
    expect(optional.onlyUnaskedToCome()).toBe(true);
  });

  it("numbered keys of two stems take the numerals grouped by the word after them, in the stems' order", () => {
    const gas = {
      quantity1: { type: "integer" },
      temperature1: { type: "integer" },
      quantity2: { type: "integer" },
      temperature2: { type: "integer" },
    } as const;
    const q =
      "Calculate the final temperature when 2 moles of gas at 300 K are mixed with 3 moles of the same gas at 400 K.";
    expect(takes(gas, q, { quantity1: 2, temperature1: 300, quantity2: 3, temperature2: 400 })).toBe(true);
    expect(takes(gas, q, { quantity1: 2, temperature1: 300, quantity2: 300, temperature2: 400 })).toBe(false);
  });

  it("a list joined by 'and also' or 'as well as' is one list, the item after it its last", () => {
    const args = { products: { type: "array", items: { type: "string" } } } as const;
    const also = readingOf(action(args), "Near Berkeley, find a store selling tomatoes and also pet food.");
    expect(also.listAfter(["tomatoes"])).toEqual({ next: "pet food" });
    expect(also.listAfter(["tomatoes", "pet food"])).toEqual({ end: true });
    const well = readingOf(action(args), "Find a store selling milk, bread as well as eggs.");
    expect(well.listAfter(["milk", "bread"])).toEqual({ next: "eggs" });
  });

  it("ordinals are a list of numbers, and the first numeral that begins a list is a number array's first item", () => {
    const args = { building_id: { type: "string" }, floors: { type: "array", items: { type: "integer" } } } as const;
    const q =
      "What is the structural dynamic analysis of the building with building Id B1004 for 2nd, 3rd and 4th floors?";
    const floors = readingOf(action(args), q);
    expect(floors.numberListStart()).toBe("2");
    expect(floors.listAfter(["2"])).toEqual({ next: "3" });
    expect(floors.listAfter(["2", "3", "4"])).toEqual({ end: true });
    expect(readingOf(action(args), "Analyze building B1004, floor 4.").numberListStart()).toBeUndefined();
  });

  it("a polynomial's coefficients, signed, go to the keys described as them; other numerals make no polynomial", () => {
    const args = {
      a: { type: "integer", description: "Coefficient of x^2." },
      b: { type: "integer", description: "Coefficient of x." },
      c: { type: "integer", description: "Constant term." },
    } as const;
    const q = "The second equation is 5x^2 - 7x + 3 = 0, where 'a' is the coefficient of x^2.";
    expect(takes(args, q, { a: 5, b: -7, c: 3 })).toBe(true);
    expect(takes(args, q, { a: 3, b: 5, c: 7 })).toBe(false);
    // a coefficient not written is 1, and a constant after "-" is negative
    expect(takes(args, "Solve x^2 - 1 = 0.", { a: 1, b: 0, c: -1 })).toBe(true);
    expect(takes(args, "Solve x^2 - 1 = 0.", { a: -1, b: 0, c: 1 })).toBe(false);
    expect(polynomialsOf("'2x**2+3x-1' between -1 and 3").map((p) => [p.variable, [...p.coefficients]])).toEqual([
      [
        "x",
        [
          [2, "2"],
          [1, "3"],
          [0, "-1"],
        ],
      ],
    ]);
    expect(polynomialsOf("3 + 4, a 2x2 table, 5 - 2")).toEqual([]);
    expect(coefficientPower("Coefficient of x.")).toBe(1);
    expect(coefficientPower("The coefficient of friction.")).toBeUndefined();
  });

  it("a unit argument whose default is another unit is asked for by a unit of its kind the question writes", () => {
    const args = {
      base: { type: "integer" },
      height: { type: "integer" },
      unit: { type: "string", description: "The unit of measure used. Defaults to cm." },
    } as const;
    const q = "The triangle has a base of 12 meters and a height of 15 meters.";
    expect(takes(args, q, { base: 12, height: 15 }, ["base", "height"])).toBe(false);
    expect(takes(args, q, { base: 12, height: 15, unit: "meters" }, ["base", "height"])).toBe(true);
    // its default unit, or none, asks for nothing
    const cm = "The triangle has a base of 12 cm and a height of 15 cm.";
    expect(takes(args, cm, { base: 12, height: 15 }, ["base", "height"])).toBe(true);
    expect(askingValues(args.unit, "unit")).toContain("feet");
    expect(askingValues(args.unit, "unit")).not.toContain("centimeters");
    expect(askingValues(args.unit, "base")).toEqual([]);
  });
});
