import { describe, expect, it } from "vitest";
import { resultValues } from "../../src/decision/run-calls.js";
import type { SkillProfile } from "../../src/decision/skill-fit.js";
import { stepDecision } from "../../src/decision/step-decision.js";

const skill = (name: string, description: string, properties: Record<string, unknown>): SkillProfile => ({
  name,
  description,
  parameters: { type: "object", properties, required: Object.keys(properties) },
});

const triangle = skill("calculate_triangle_area", "Calculate the area of a triangle given its base and height.", {
  base: { type: "integer", description: "The base of the triangle." },
  height: { type: "integer", description: "The height of the triangle." },
});
const capital = skill("country_info.capital", "Fetch the capital city of a specified country.", {
  country: { type: "string" },
});
const largestCity = skill("country_info.largest_city", "Fetch the largest city of a specified country.", {
  country: { type: "string" },
});
const landmark = skill("landmark_country", "The country a famous landmark is in.", { landmark: { type: "string" } });
const countryCapital = skill("country_capital", "The capital city of a country.", { country: { type: "string" } });
const play = skill("spotify.play", "Play songs of an artist.", {
  artist: { type: "string" },
  duration: { type: "integer" },
});

const best = (offsets: Readonly<Record<string, number>> = {}) =>
  Object.entries(offsets).sort((a, b) => b[1] - a[1])[0]?.[0];

describe("stepDecision", () => {
  it("calls a skill that fits, answers where none does", () => {
    const fits = stepDecision({
      question: "What is the area of a triangle with base 10 and height 5?",
      skills: [triangle],
    });
    expect(fits.offsets.skills!.calculate_triangle_area).toBeGreaterThan(fits.offsets.answer!);
    const none = stepDecision({
      question: "Can you recommend a good Chinese restaurant in New York?",
      skills: [triangle],
    });
    expect(none.offsets.answer).toBeGreaterThan(none.offsets.skills!.calculate_triangle_area);
  });

  it("favours the skill whose name the question uses", () => {
    const { offsets } = stepDecision({ question: "What is the capital of Brazil?", skills: [largestCity, capital] });
    expect(best(offsets.skills)).toBe("country_info.capital");
  });

  it("answers after the one call a question asks for, and calls no more", () => {
    const { offsets, answer } = stepDecision({
      question: "What is the area of a triangle with base 10 and height 5?",
      skills: [triangle],
      calls: [{ skill: "calculate_triangle_area", arguments: { base: 10, height: 5 }, result: "25" }],
    });
    expect(answer).toBe(true);
    expect(offsets.answer).toBeGreaterThan(offsets.skills!.calculate_triangle_area);
  });

  it("leaves every offset at 0 with no lever: the model's own choice", () => {
    const { offsets } = stepDecision({ question: "What is the capital of Brazil?", skills: [capital], levers: [] });
    expect(offsets).toEqual({ answer: 0, skills: {} });
  });

  it("calls the skill a result lets run (a chain), then answers", () => {
    const question = "What is the capital of the country where Mount Fuji is?";
    const first = stepDecision({ question, skills: [landmark, countryCapital] });
    expect(best(first.offsets.skills)).toBe("landmark_country");
    const second = stepDecision({
      question,
      skills: [landmark, countryCapital],
      calls: [{ skill: "landmark_country", arguments: { landmark: "Mount Fuji" }, result: "Japan" }],
    });
    expect(second.chain).toBe(true);
    expect(best(second.offsets.skills)).toBe("country_capital");
    expect(second.offsets.skills!.country_capital).toBeGreaterThan(second.offsets.answer!);
  });

  it("calls a skill again for each hop a question links by 'of', and not for a name word written twice", () => {
    const manager = skill("employee_manager", "The manager of an employee.", { employee: { type: "string" } });
    const question = "Who is the manager of the manager of Alice's manager?";
    const hop = (calls: number) =>
      stepDecision({
        question,
        skills: [manager],
        calls: ["Alice", "Bob", "Carol"].slice(0, calls).map((employee, i) => ({
          skill: "employee_manager",
          arguments: { employee },
          result: ["Bob", "Carol", "Dana"][i],
        })),
      });
    expect(hop(1).answer).toBe(false);
    expect(hop(2).offsets.skills!.employee_manager).toBeGreaterThan(hop(2).offsets.answer!);
    expect(hop(3).answer).toBe(true);
    // two items, two calls in one reply: done, whatever the placeholder result offers
    const forest = skill("forest_growth_forecast", "Predict forest growth.", {
      location: { type: "string" },
      years: { type: "integer" },
    });
    const recorded = '{"status":"recorded","note":"The call was recorded. Answer the user now."}';
    const done = stepDecision({
      question:
        "What would be the predicted forest growth in the Amazon Rainforest and the Boreal Forests of Canada over the next 10 years and 20 years, respectively?",
      skills: [forest],
      parallelCalls: true,
      calls: [
        { skill: "forest_growth_forecast", arguments: { location: "Amazon Rainforest", years: 10 }, result: recorded },
        {
          skill: "forest_growth_forecast",
          arguments: { location: "Boreal Forests of Canada", years: 20 },
          result: recorded,
        },
      ],
    });
    expect(done.answer).toBe(true);
    expect(done.offsets.answer).toBeGreaterThan(done.offsets.skills!.forest_growth_forecast);
  });

  it("plans a calls list as long as the question's items, and keeps calling while items are left", () => {
    const question = "Play songs from Taylor Swift and Maroon 5, for 20 minutes and 15 minutes respectively.";
    const list = stepDecision({ question, skills: [play], parallelCalls: true });
    expect(list.offsets.plannedCalls).toBe(2);
    expect(list.offsets.calls).toBeGreaterThan(list.offsets.skills!["spotify.play"]);
    const stepwise = stepDecision({
      question,
      skills: [play],
      calls: [{ skill: "spotify.play", arguments: { artist: "Taylor Swift", duration: 20 }, result: "ok" }],
    });
    expect(stepwise.items.map((item) => item.text)).toEqual(["Play songs from Maroon 5, for 15 minutes respectively."]);
    expect(stepwise.offsets.skills!["spotify.play"]).toBeGreaterThan(stepwise.offsets.answer!);
  });
});

describe("resultValues", () => {
  it("offers a result's values less those a call wrote as arguments", () => {
    const values = resultValues('{"country":"Japan","landmark":"Mount Fuji"}', [
      { skill: "landmark_country", arguments: { landmark: "Mount Fuji" } },
    ]);
    expect(values.names).toContain("Japan");
    expect(values.names).not.toContain("Mount Fuji");
  });
});
