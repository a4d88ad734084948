import { describe, expect, it } from "vitest";
import { questionItems } from "../../src/decision/question-items.js";
import { bestFit, type SkillProfile } from "../../src/decision/skill-fit.js";
import { valuesWrittenOf } from "../../src/decision/value-kinds.js";

// A clause's subject cut from it, a list item that inherits the clause before, a closing option every item shares, and
// a value of a kind that speaks for one argument (issue 40). The questions are written for these tests, not BFCL's.

const skill = (
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required = Object.keys(properties),
): SkillProfile => ({ name, description, parameters: { type: "object", properties, required } });
const texts = (question: string, skills: SkillProfile[]) => questionItems(question, skills).map((item) => item.text);

const park = skill("park_info", "Facts about a national park.", { park_name: { type: "string" } });
const stock = skill("stock_quote", "The latest quote of a stock.", { ticker: { type: "string" } });
const field = skill("field_strength", "The electric field strength of a point charge.", {
  charge: { type: "number", description: "The charge in coulombs." },
  distance: { type: "number", description: "The distance from the charge in meters." },
});
const circumference = skill(
  "circle.circumference",
  "The circumference of a circle.",
  {
    radius: { type: "integer", description: "The radius of the circle." },
    units: { type: "string", description: "Units of the output. Default is 'cm'." },
  },
  ["radius"],
);
const route = skill(
  "route_info",
  "Traffic on a route.",
  {
    start: { type: "string" },
    end: { type: "string" },
    mode: { type: "string", enum: ["driving", "walking", "transit"] },
  },
  ["start", "end"],
);

describe("questionItems: leads, inherited lists and closing options", () => {
  it("joins a few words cut before 'also' to the clause they begin, not to every item", () => {
    const weather = skill("city_weather", "The weather of a city.", { city: { type: "string" } });
    const found = texts("What is the weather in 'Oslo' today, and what if we also look at the weather in 'Bergen'?", [
      weather,
    ]);
    expect(found).toHaveLength(2);
    expect(found[0]).not.toMatch(/what if/);
    expect(found[1]).toMatch(/^what if we also look/);
  });

  it("keeps a sentence's subject with its clause where the cut is at 'also'", () => {
    const profile = skill("create_player", "Create a player profile.", {
      player_name: { type: "string" },
      class_type: { type: "string" },
    });
    const concert = skill("concert_find", "Find a concert nearby.", {
      location: { type: "string" },
      genre: { type: "string" },
    });
    const found = texts(
      "Create a player named 'Nova' in the class 'Mage'. You also want to find a 'Jazz' concert near 'Austin, TX'.",
      [profile, concert],
    );
    expect(found).toHaveLength(2);
    expect(found[0]).not.toMatch(/You$/);
    expect(found[1]).toMatch(/^You also want to find/);
  });

  it("joins a lead of several words cut before 'also' after a sentence's opener", () => {
    const found = texts(
      "Please tell me the opening hours of Glacier National Park. Lastly, I would also like the latest quote for the 'ACME' stock.",
      [park, stock],
    );
    expect(found).toHaveLength(2);
    expect(found[0]).not.toMatch(/I would/);
    expect(found[1]).toMatch(/^I would also like the latest quote/);
  });

  it("puts each list item's own value into the clause it inherits", () => {
    const found = texts(
      "Find the field strength at a distance of 0.5 meters from a charge of 3 coulombs at a temperature of 20 degrees. Then find the strength at a distance of 2 meters and 4 meters from the same charge.",
      [field],
    );
    expect(found).toHaveLength(3);
    // the inherited clause is the first one with the item's distance in place of 0.5
    expect(found[1]).toMatch(/distance of 2 meters from the same charge.*distance of 2 meters from a charge of 3/);
    expect(found[2]).toMatch(/distance of 4 meters from the same charge.*distance of 4 meters from a charge of 3/);
    expect(found[2]).not.toMatch(/2 meters/);
  });

  it("gives every item a closing option that writes a value of an optional argument", () => {
    const found = texts(
      "What is the circumference of three circles, where the first circle has a radius of 2m, the second circle has a radius of 4m, and the third circle has a radius of 6m, and I want the output in inches?",
      [circumference],
    );
    expect(found).toHaveLength(3);
    for (const text of found) expect(text).toMatch(/in inches/);
  });

  it("keeps a closing option with its own item where each item writes its own", () => {
    const found = texts(
      "What is the traffic from Oakland to Berkeley using driving, then from Berkeley to Richmond using walking, and finally from Richmond to Oakland using transit?",
      [route],
    );
    expect(found).toHaveLength(3);
    expect(found[0]).not.toMatch(/transit/);
    expect(found[1]).not.toMatch(/transit/);
    expect(found[2]).toMatch(/transit/);
  });

  it("begins another call at a sentence that opens with 'Furthermore'", () => {
    const found = texts(
      "Tell me about Zion National Park. Furthermore, I want facts about Arches National Park for my trip.",
      [park],
    );
    expect(found).toHaveLength(2);
    expect(found[1]).toMatch(/^I want facts about Arches/);
  });
});

describe("questionItems: numbered things and a request after its values", () => {
  const mixture = skill("mixture_temperature", "The final temperature of a mixture of two samples.", {
    quantity1: { type: "number" },
    temperature1: { type: "number" },
    quantity2: { type: "number" },
    temperature2: { type: "number" },
  });
  const mass = skill("sample_mass", "The mass of a sample from its quantity and molar mass.", {
    quantity: { type: "number" },
    molar_mass: { type: "number" },
  });

  it("keeps 'the second sample has a quantity of 3' with the first where the skill numbers quantities", () => {
    const found = texts(
      "You hold two beakers. The first sample has a quantity of 2 moles at a temperature of 280 Kelvin. The second sample has a quantity of 3 moles at a temperature of 350 Kelvin. What is the final temperature of the mixture?",
      [mixture, mass],
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/2 moles.*3 moles/);
  });

  it("joins a request without values to the clause before it that fits the same skill", () => {
    const found = texts(
      "The first sample has a quantity of 2 moles at a temperature of 280 Kelvin. The second sample has a quantity of 3 moles at a temperature of 350 Kelvin. What would be the final temperature of the mixture?\n\nLater, you get another sample with a quantity of 6 moles and a molar mass of 32 g/mol. What is the mass of that sample?",
      [mixture, mass],
    );
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/350 Kelvin\. What would be the final temperature of the mixture\?/);
    expect(found[1]).toMatch(/6 moles/);
    expect(found[1]).not.toMatch(/final temperature/);
  });
});

describe("questionItems: hyphenated numerals", () => {
  it("reads a date or a season written with hyphens as one item of a list", () => {
    const price = skill("stock_price", "A stock's closing price on a date.", {
      company: { type: "string" },
      date: { type: "string" },
    });
    const found = texts("What were the closing prices of Contoso on 2021-03-01 and 2021-04-01?", [price]);
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/on 2021-03-01\?/);
    expect(found[1]).toMatch(/on 2021-04-01\?/);
  });

  it("gives a text array the whole list of hyphenated numerals", () => {
    const compare = skill("compare_seasons", "Compare a team's points over seasons.", {
      team: { type: "string" },
      seasons: { type: "array", items: { type: "string" } },
    });
    const found = texts("Compare the points of the Rockets in the 2015-2016 and 2016-2017 seasons.", [compare]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/2015-2016 and 2016-2017/);
  });
});

describe("skill fit: one written value for one argument of its kind", () => {
  const deposit = skill("bank_deposit", "Make a deposit to a bank account.", {
    account_id: { type: "string", description: "The account to deposit to." },
    amount: { type: "number", description: "Amount to deposit." },
  });
  const conversion = skill("currency_conversion", "Convert an amount from one currency to another.", {
    amount: { type: "number" },
    from_currency: { type: "string", description: "The source currency." },
    to_currency: { type: "string", description: "The target currency." },
  });

  it("counts the values of a kind a text writes", () => {
    expect(valuesWrittenOf("currency", "a 10 dollar deposit")).toBe(1);
    expect(valuesWrittenOf("currency", "convert 10 dollars to euros")).toBe(2);
    expect(valuesWrittenOf("currency", "$10 and then $20")).toBe(1);
  });

  it("does not let one currency speak for both sides of a conversion", () => {
    expect(bestFit("make a 10 dollar deposit in my account 55-1234", [conversion, deposit])?.name).toBe("bank_deposit");
    expect(bestFit("convert 10 dollars to euros", [conversion, deposit])?.name).toBe("currency_conversion");
  });
});
