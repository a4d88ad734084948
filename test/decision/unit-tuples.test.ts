import { describe, expect, it } from "vitest";
import { unitTuples } from "../../src/decision/unit-tuples.js";
import { questionItems } from "../../src/decision/question-items.js";
import type { SkillProfile } from "../../src/decision/skill-fit.js";

const skill = (name: string, properties: Record<string, unknown>): SkillProfile => ({
  name,
  description: "",
  parameters: { type: "object", properties, required: Object.keys(properties) },
});
const bmi = skill("calculate_BMI", {
  weight_kg: { type: "integer", description: "The weight of the person in kilograms." },
  height_m: { type: "float", description: "The height of the person in meters." },
});
const savings = skill("calculate_emission_savings", {
  energy_type: { type: "string", description: "Type of the renewable energy source." },
  usage_duration: { type: "integer", description: "Usage duration in months." },
  region: { type: "string", description: "The region where you use energy." },
});
const pressure = skill("calc_absolute_pressure", {
  atm_pressure: { type: "float", description: "The atmospheric pressure in atmospheres (atm)." },
  gauge_pressure: { type: "float", description: "The gauge pressure in atmospheres (atm)." },
});

const friends =
  "John, who weighs 85 kilograms and is 1.8 meters tall, and his friend Sarah, who weighs 60 kilograms and is 1.65 meters tall, are having a debate. Later, they meet their friend Mike, who weighs 75 kilograms and is 1.7 meters tall. Can you calculate their BMIs?";

describe("unitTuples", () => {
  it("reads one call per run of measured values, each text with its own run", () => {
    const texts = unitTuples(friends, bmi);
    expect(texts).toHaveLength(3);
    expect(texts.map((text) => text.match(/\d+ kilograms/)?.[0])).toEqual([
      "85 kilograms",
      "60 kilograms",
      "75 kilograms",
    ]);
    expect(texts[0]).not.toMatch(/60 kilograms|75 kilograms/);
    // the question's items are those runs where it writes no clause or list of its own
    expect(questionItems(friends, [bmi]).map((item) => item.text)).toEqual(texts);
  });

  it("gives what follows the last run to every call", () => {
    const texts = unitTuples(
      "What are the emission savings if I switch to solar energy for 12 months and wind energy for 8 months in the Midwest region?",
      savings,
    );
    expect(texts).toHaveLength(2);
    expect(texts[0]).toContain("12 months");
    expect(texts[0]).not.toContain("8 months");
    expect(texts.every((text) => text.includes("Midwest"))).toBe(true);
  });

  it("reads nothing from a unit two arguments share, or from one measured value", () => {
    expect(
      unitTuples("The gauge pressure is 2.5 atm; the atmospheric pressure is 1 atm here and 0.85 atm there.", pressure),
    ).toEqual([]);
    expect(unitTuples("John weighs 85 kilograms and is 1.8 meters tall.", bmi)).toEqual([]);
  });
});
