import { describe, expect, it } from "vitest";
import { derivedKeys } from "../../src/decision/derived-keys.js";
import { fitScore, questionValues, skillFit, type SkillProfile } from "../../src/decision/skill-fit.js";
import { contentStems, nameStems, nameWords } from "../../src/decision/words.js";

const skill = (
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required = Object.keys(properties),
): SkillProfile => ({ name, description, parameters: { type: "object", properties, required } });

const capital = skill("country_info.capital", "Fetch the capital city of a specified country.", {
  country: { type: "string", description: "The country." },
});
const largestCity = skill("country_info.largest_city", "Fetch the largest city of a specified country.", {
  country: { type: "string", description: "The country." },
});
const sum = skill("math.sum", "Compute the sum of all numbers in a list.", {
  numbers: { type: "array", items: { type: "number" } },
});
const hcf = skill("math.hcf", "Calculate the highest common factor of two numbers.", {
  number1: { type: "integer" },
  number2: { type: "integer" },
});

describe("words", () => {
  it("splits names on dots, underscores, case and digits", () => {
    expect(nameWords("math.triangle_area_heron")).toEqual(["math", "triangle", "area", "heron"]);
    expect(nameWords("getWeatherData2")).toEqual(["get", "Weather", "Data", "2"]);
  });

  it("stems content words and leaves out stop words", () => {
    expect(contentStems("Calculate the areas of the triangles")).toEqual(["area", "triangl"]);
    expect(nameStems("country_info.capital")).toEqual(["countri", "capit"]);
  });
});

describe("skillFit", () => {
  it("counts the question's words the name holds apart from the description's", () => {
    const values = questionValues("What is the capital of Brazil?");
    expect(skillFit(capital, values)).toMatchObject({ nameWords: 1, descriptionWords: 0, required: 1, grounded: 1 });
    expect(skillFit(largestCity, values)).toMatchObject({ nameWords: 0, descriptionWords: 0 });
  });

  it("reads a name's initials and abbreviations", () => {
    expect(skillFit(hcf, questionValues("Find the highest common factor of 36 and 24.")).nameWords).toBe(1);
    const hypot = skill("math.hypot", "The Euclidean norm.", { x: { type: "number" } });
    expect(skillFit(hypot, questionValues("the hypotenuse of sides 4 and 5")).nameWords).toBe(1);
    // stems that part after eight shared letters ("pythagora", "pythagorean"); fewer do not ("transport", "transfer")
    const pythagoras = skill("math.pythagoras", "The hypotenuse of a right triangle.", { a: { type: "integer" } });
    const theorem = skillFit(
      pythagoras,
      questionValues("Compute the Pythagorean Theorem of two side lengths: 3 and 4."),
    );
    expect(theorem).toMatchObject({ nameWords: 1, nameCoverage: 0.5 });
    const transport = skill("transport.book", "Book a ride.", { city: { type: "string" } });
    expect(skillFit(transport, questionValues("a money transfer")).nameWords).toBe(0);
  });

  it("grounds a number argument only where the question writes a numeral, an enum only on one of its values", () => {
    expect(skillFit(hcf, questionValues("Find the highest common factor")).grounded).toBe(0);
    const unit = skill("convert", "Convert a temperature.", { scale: { type: "string", enum: ["celsius", "kelvin"] } });
    expect(skillFit(unit, questionValues("What is it in Kelvin?")).grounded).toBe(1);
    expect(skillFit(unit, questionValues("What is it in Fahrenheit?")).grounded).toBe(0);
  });

  it("grounds an expression only with numbers: a question without any gives the calculator nothing", () => {
    const calculator = skill("calculator", "Evaluate arithmetic.", { expression: { type: "string" } });
    expect(skillFit(calculator, questionValues("What is the capital of Italy?")).grounded).toBe(0);
    expect(skillFit(calculator, questionValues("What is 17 times 23?")).grounded).toBe(1);
  });

  it("scores a skill that fits above one that does not, and a question no skill fits low", () => {
    const brazil = questionValues("What is the capital of Brazil?");
    expect(fitScore(skillFit(capital, brazil))).toBeGreaterThan(fitScore(skillFit(largestCity, brazil)));
    const quadratic = questionValues("Solve the quadratic equation with coefficients a = 1, b = 2, and c = 3.");
    expect(fitScore(skillFit(sum, quadratic))).toBeLessThan(fitScore(skillFit(capital, brazil)));
  });
});

describe("derivedKeys", () => {
  it("reads a currency the question writes (a code, a name, a sign) as a currency argument's own kind", () => {
    const currency = skill("currency_conversion", "Convert an amount.", {
      amount: { type: "number" },
      from_currency: { type: "string" },
      to_currency: { type: "string" },
    });
    const units = skill("unit_conversion", "Convert a value.", {
      value: { type: "number" },
      from_unit: { type: "string" },
      to_unit: { type: "string" },
    });
    const question = questionValues("I have 100 euro. How much is it in USD?");
    expect(skillFit(currency, question).exact).toBe(2);
    expect(skillFit(units, question).exact).toBe(0);
    expect(fitScore(skillFit(currency, question))).toBeGreaterThan(fitScore(skillFit(units, question)));
    expect(skillFit(currency, questionValues("Convert 150 Euros to Canadian dollars.")).exact).toBe(2);
    expect(skillFit(currency, questionValues("What is 5 € in pounds?")).exact).toBe(2);
    // a currency's name that is an everyday word, or "ALL" in capitals, is none
    expect(skillFit(currency, questionValues("Who won the real game? ALL of them.")).exact).toBe(0);
  });

  it("finds a required argument the question describes instead of giving", () => {
    const countryCapital = skill("country_capital", "The capital city of a country.", { country: { type: "string" } });
    expect(derivedKeys("What is the capital of the country where Mount Fuji is?", countryCapital)).toEqual(["country"]);
    expect(derivedKeys("What is the capital of Kenya?", countryCapital)).toEqual([]);
  });
});
