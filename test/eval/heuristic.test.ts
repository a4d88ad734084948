import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { findConversion, findExpression, HeuristicModel } from "../../src/eval/models/heuristic-model.js";
import { parseSuite } from "../../src/eval/suite/load-suite.js";
import { suiteTasks } from "../../src/eval/suite/suite-tasks.js";

describe("heuristic planner", () => {
  it("reads arithmetic and conversions out of questions", () => {
    expect(findExpression("What is 17 times 23 plus 4?")).toBe("17*23+4");
    expect(findExpression("What is 15% of 80?")).toBe("15/100*80");
    expect(findExpression("the square root of 1764")).toBe("sqrt(1764)");
    expect(findExpression("What is 2 to the power of 10, minus 24?")).toBe("2^10-24");
    expect(findExpression("the average of 12, 18, 27 and 43")).toBe("(12+18+27+43)/4");
    expect(findExpression("What is the capital of France?")).toBeUndefined();
    expect(findConversion("Convert 26.2 miles to kilometers.")).toEqual({
      value: 26.2,
      from: "miles",
      to: "kilometers",
    });
    expect(findConversion("How many grams is 12 ounces?")).toEqual({ value: 12, from: "ounces", to: "grams" });
    expect(findConversion("What is 98.6 °F in Celsius?")).toEqual({ value: 98.6, from: "°F", to: "Celsius" });
  });

  it("chains lookups through results it reads back from the prompt, then answers", async () => {
    const suite = parseSuite({
      name: "chain",
      skills: [
        {
          type: "lookup",
          name: "landmark_country",
          description: "country of a landmark",
          parameter: "landmark",
          table: { "Mount Fuji": "Japan" },
        },
        {
          type: "lookup",
          name: "country_capital",
          description: "capital of a country",
          parameter: "country",
          table: { Japan: "Tokyo" },
        },
      ],
      tasks: [
        {
          id: "t",
          query: "What is the capital of the country where Mount Fuji is?",
          skills: ["landmark_country", "country_capital"],
          expected: { includes: "Tokyo" },
        },
      ],
    });
    const [task] = suiteTasks(suite);
    const model = new HeuristicModel({ query: task.query, skillNames: task.registry.names(), lookups: task.lookups });
    const state = await new Agent({ model, registry: task.registry }).run(task.query);
    expect(state.stream.ofType("call-skill").map((e) => [e.skillName, e.arguments])).toEqual([
      ["landmark_country", { landmark: "Mount Fuji" }],
      ["country_capital", { country: "Japan" }],
    ]);
    expect(state.answer).toBe("Tokyo");
  });

  it("sums looked-up numbers when asked for a total, and rounds long results", async () => {
    const suite = parseSuite({
      name: "sum",
      skills: [
        {
          type: "lookup",
          name: "pop",
          description: "population",
          parameter: "city",
          table: { Berlin: 3755251, Cairo: 10025657 },
        },
      ],
      tasks: [
        {
          id: "t",
          query: "What is the combined population of Berlin and Cairo?",
          skills: ["pop", "calculator"],
          expected: { includes: "13780908" },
        },
        { id: "u", query: "Convert 5 gal to L", skills: ["convert_units"], expected: { includes: "18.93" } },
      ],
    });
    for (const task of suiteTasks(suite)) {
      const model = new HeuristicModel({ query: task.query, skillNames: task.registry.names(), lookups: task.lookups });
      const state = await new Agent({ model, registry: task.registry }).run(task.query);
      expect(task.judge({ answer: state.answer, calls: [], state }), `${task.id}: ${state.answer}`).toMatchObject({
        success: true,
      });
    }
  });

  it("answers without a tool only when told what to say", async () => {
    const say = new HeuristicModel({ query: 'Reply with the word "ready" and nothing else.', skillNames: [] });
    expect(JSON.parse(await say.generate("p")).final_answer).toBe("ready");
    const unknown = new HeuristicModel({ query: "What is the capital of Italy?", skillNames: ["calculator"] });
    expect(JSON.parse(await unknown.generate("p")).final_answer).toBe("I don't know.");
  });
});
