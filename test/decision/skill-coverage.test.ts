import { describe, expect, it } from "vitest";
import { stepDecision } from "../../src/decision/step-decision.js";
import type { SkillProfile } from "../../src/decision/skill-fit.js";

const skill = (name: string, description: string, properties: Record<string, unknown>): SkillProfile => ({
  name,
  description,
  parameters: { type: "object", properties, required: Object.keys(properties) },
});

const battle = skill("euro_history.battle_details", "Details of a European battle.", {
  battle_name: { type: "string", description: "Name of the battle." },
});
const treaty = skill("euro_history.treaty_info", "Information about a European treaty.", {
  treaty_name: { type: "string", description: "Name of the treaty." },
});
const hours = skill("museum.get_hours", "Opening hours of a museum.", { museum_name: { type: "string" } });
const waiting = skill("museum.get_waiting_time", "Waiting time at a museum.", { museum_name: { type: "string" } });
const convert = skill("currency_conversion", "Convert an amount of money from one currency to another.", {
  amount: { type: "number" },
  from_currency: { type: "string" },
  to_currency: { type: "string" },
});
// (a name of one word and a description that says nothing: the clause's dollars fit the conversion better)
const deposit = skill("deposit", "A service.", { id: { type: "string" } });
const musical = skill("musical_ticket.buy", "Buy a ticket to a musical.", { show: { type: "string" } });
const concert = skill("concert_ticket.buy", "Buy a ticket to a concert.", { artist: { type: "string" } });

const plan = (question: string, skills: SkillProfile[]) => {
  const decision = stepDecision({ question, skills, parallelCalls: true });
  const offsets = decision.offsets.itemSkills ?? [decision.offsets.skills ?? {}];
  // each planned call's skill: the one its offsets favour
  const chosen = offsets.map((o) => Object.entries(o).sort((a, b) => b[1] - a[1])[0][0]);
  return { texts: decision.items.map((item) => item.text), chosen, planned: decision.offsets.plannedCalls };
};

describe("coverSkills (through stepDecision)", () => {
  it("splits a clause that asks for two skills between them, each its own call", () => {
    const { texts, chosen, planned } = plan(
      "Find overview about the Battle of Waterloo and the signing of the Treaty of Tordesillas.",
      [battle, treaty],
    );
    expect(planned).toBe(2);
    expect(chosen).toEqual(["euro_history.battle_details", "euro_history.treaty_info"]);
    expect(texts[0]).toContain("Waterloo");
    expect(texts[0]).not.toContain("Tordesillas");
    expect(texts[1]).toContain("Tordesillas");
  });

  it("adds a call for a skill whose own word shares a clause with another's", () => {
    const { chosen, texts } = plan("Find the operational hours for Louvre Museum and the waiting time.", [
      waiting,
      hours,
    ]);
    expect(chosen).toEqual(["museum.get_hours", "museum.get_waiting_time"]);
    expect(texts[0]).toContain("Louvre Museum");
  });

  it("gives an item that only shares words with the other skill to the skill its own words name", () => {
    const { chosen } = plan(
      "I need to convert 10 dollars to Euros and make a 10 dollar deposit in my bank account with account number 987654.",
      [deposit, convert],
    );
    expect(chosen).toEqual(["currency_conversion", "deposit"]);
  });

  it("covers no skill whose name's own words the question does not hold", () => {
    const { chosen, planned } = plan("Buy me a ticket to the Mamma Mia musical for next Friday.", [concert, musical]);
    expect(planned).toBeUndefined();
    expect(chosen).toEqual(["musical_ticket.buy"]);
  });

  it("leaves a skill that waits for another's result to the chain", () => {
    const landmark = skill("landmark_country", "The country a landmark is in.", { landmark: { type: "string" } });
    const capital = skill("country_capital", "The capital city of a country.", {
      country: { type: "string", description: "The country." },
    });
    const decision = stepDecision({
      question: "What is the capital of the country where Mount Fuji is?",
      skills: [landmark, capital],
    });
    expect(decision.items.filter((item) => item.covers)).toEqual([]);
  });
});
