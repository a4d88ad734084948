import { describe, expect, it } from "vitest";
import { questionItems } from "../../src/decision/question-items.js";
import type { SkillProfile } from "../../src/decision/skill-fit.js";

// How a question's scene, its conditions and its references to a thing already named stay with one call, and how a
// list's items and their own values go to calls (issue 40). The questions are written for these tests, not BFCL's.

const skill = (name: string, description: string, properties: Record<string, unknown>): SkillProfile => ({
  name,
  description,
  parameters: { type: "object", properties, required: Object.keys(properties) },
});
const items = (question: string, skills: SkillProfile[]) => questionItems(question, skills);
const texts = (question: string, skills: SkillProfile[]) => items(question, skills).map((item) => item.text);

const gcd = skill("math.gcd", "Greatest common divisor of two integers.", {
  num1: { type: "integer" },
  num2: { type: "integer" },
});

describe("questionItems: scenes, conditions and things already named", () => {
  it("asks no call of a first clause whose values are names the skill takes none of", () => {
    const found = texts(
      "Alice and Bob each pick two numbers for a puzzle and then find the greatest common divisor of their numbers. Alice picked 12 and 18, while Bob picked 20 and 30.",
      [gcd],
    );
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/12 and 18/);
    expect(found[1]).toMatch(/20 and 30/);
  });

  it("reads a list of names that each say the kind of place they are", () => {
    const population = skill("census.population", "The population of a place.", { place: { type: "string" } });
    const found = texts("Get the population of Texas state and Ohio state from the census.", [population]);
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/Texas state(?! and)/);
    expect(found[1]).toMatch(/Ohio state/);
    expect(found[1]).not.toMatch(/Texas/);
  });

  it("repeats every earlier call for each item of a clause that asks for the same again", () => {
    const translate = skill("translate", "Translate a text.", {
      text: { type: "string" },
      language: { type: "string", enum: ["French", "German", "Spanish"] },
    });
    const found = texts(
      "Translate 'good morning' and 'thank you' into the 'French' language, then repeat the same translation for the 'German' and 'Spanish' language.",
      [translate],
    );
    expect(found).toHaveLength(6);
    expect(
      found.map((text) => [/'(good morning|thank you)'/.exec(text)?.[1], /'(French|German|Spanish)'/.exec(text)?.[1]]),
    ).toEqual([
      ["good morning", "French"],
      ["thank you", "French"],
      ["good morning", "German"],
      ["thank you", "German"],
      ["good morning", "Spanish"],
      ["thank you", "Spanish"],
    ]);
  });

  it("reads values written after as many keys named before them as one call's", () => {
    const update = skill("update_account", "Update an account's details.", {
      account_id: { type: "integer" },
      database: { type: "string" },
      details: { type: "object", properties: { name: { type: "string" }, email: { type: "string" } } },
    });
    expect(texts('Update the name and email of account 42 to "Ann" and "ann@example.org".', [update])).toHaveLength(1);
  });

  it("reads a list that names its kind after each item as a call per item, each with its own later values", () => {
    const heater = skill("heater_cost", "The weekly running cost of a heater.", {
      heater_type: { type: "string", description: "The kind of heater: 'G' (gas), 'E' (electric) or 'O' (oil)." },
      hours: { type: "integer" },
      rate: { type: "number" },
    });
    const found = texts(
      "What is the weekly cost of a gas heater, an electric heater, and an oil heater if each runs 10 hours a day, using a rate of 0.3 for the gas heater, a rate of 0.15 for the electric heater, and a rate of 0.2 for the oil heater?",
      [heater],
    );
    expect(found).toHaveLength(3);
    expect(found.map((text) => /(gas|electric|oil) heater if/.exec(text)?.[1])).toEqual(["gas", "electric", "oil"]);
    expect(found.map((text) => text.match(/0\.\d+/g))).toEqual([["0.3"], ["0.15"], ["0.2"]]);
  });

  it("keeps a clause that goes on while doing something with the call it goes on", () => {
    const loan = skill("loan_payment", "The monthly payment of a loan.", {
      principal: { type: "number" },
      rate: { type: "number" },
    });
    const found = texts(
      "What is the monthly payment on a loan of $10,000 at 5%? Also, what if we borrow $15,000 while keeping the rate at 4%?",
      [loan],
    );
    expect(found).toHaveLength(2);
    expect(found[1]).toMatch(/\$15,000.*4%/);
  });

  it("reads no result taken up in 'the total ...' that names an argument, and still does in 'the total'", () => {
    const dividend = skill("dividend_per_share", "The quarterly dividend per share.", {
      total_payout: { type: "number" },
      outstanding_shares: { type: "number" },
    });
    const found = items(
      "What is the quarterly dividend per share for a payout of $5,000,000 and 2,000,000 shares? Also, what if we increase the shares to 2,500,000 while keeping the total payout at $6,000,000?",
      [dividend],
    );
    expect(found).toHaveLength(2);
    expect(found.some((item) => item.chain)).toBe(false);
    const chained = items("Add 3 and 4 with the calculator, then divide the total by 2.", [
      skill("calculator", "Evaluate arithmetic.", { expression: { type: "string" } }),
    ]);
    expect(chained.at(-1)?.chain).toBe(true);
  });

  it("keeps a clause about this thing with the call of the clause before it, and reads no result in 'this case'", () => {
    const dispute = skill("dispute_details", "Details of a customs dispute.", {
      case_number: { type: "string" },
      office: { type: "string" },
      with_ruling: { type: "boolean" },
    });
    const found = items(
      "Can you retrieve the details of two customs disputes? The first one has the case number '1001' at the 'Berlin' office. I would also like to know the ruling details for this dispute case. The second dispute has the case number '2002' at the 'Paris' office.",
      [dispute],
    );
    expect(found.map((item) => item.text.match(/'(\d{4})'/)?.[1])).toEqual(["1001", "2002"]);
    expect(found[0].text).toMatch(/the ruling details for this dispute case/);
    expect(found.some((item) => item.chain)).toBe(false);
  });

  it("names no skill of another thing than the one the clause speaks of", () => {
    const skills = [
      skill("circle.area", "The area of a circle.", { radius: { type: "number" } }),
      skill("square.perimeter", "The perimeter of a square.", { side: { type: "number" } }),
      skill("circle.circumference", "The circumference of a circle.", { diameter: { type: "number" } }),
    ];
    const found = items("Find the area and perimeter of a circle with a radius of 3.", skills);
    expect(found.map((item) => item.skill)).not.toContain("square.perimeter");
  });

  it("reads as many values as a thing's numbered keys, after the thing's name, as one call's", () => {
    const skills = [
      skill("triangle.props", "Properties of a triangle.", {
        side1: { type: "number" },
        side2: { type: "number" },
        side3: { type: "number" },
      }),
      skill("circle.props", "Properties of a circle.", { radius: { type: "number" } }),
    ];
    const found = texts(
      "For the triangle, the lengths of the sides are 3 cm, 4 cm, and 5 cm respectively. For the circle, the radius is 2 cm.",
      skills,
    );
    expect(found.filter((text) => /3 cm/.test(text) && /5 cm/.test(text))).toHaveLength(1);
    expect(found.filter((text) => /\b[345] cm/.test(text))).toHaveLength(1);
  });

  it("reads a scene or a condition before a request as part of that request, not one of its own", () => {
    const equipment = skill("game.update_equipment", "Change a player's equipment.", {
      attribute: { type: "string" },
      level: { type: "integer" },
    });
    const guide = skill("game.search_guide", "Find a game guide.", {
      game: { type: "string" },
      topic: { type: "string" },
    });
    const found = texts("In game Star Quest, change the shield level to 3 and find me a guide for the 'final boss'.", [
      equipment,
      guide,
    ]);
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/^In game Star Quest, change the shield level to 3/);
    const binomial = skill("prob.binomial", "Binomial probability.", {
      trials: { type: "integer" },
      successes: { type: "integer" },
      p: { type: "number" },
    });
    expect(
      texts(
        "If you run 12 independent trials with a success probability of 0.25, what is the probability of exactly 3 successes?",
        [binomial, guide],
      ),
    ).toHaveLength(1);
  });
});
