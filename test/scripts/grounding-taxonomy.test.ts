/** scripts/lib/grounding-taxonomy.ts on crafted runs and questions: each class, the order of the tests, the counts. */
import { describe, expect, it } from "vitest";
import {
  classifyAnswer,
  classifyRun,
  parseValueFailure,
  taxonomy,
  taxonomyTable,
  type AnswerRun,
  type TaxonomyQuestion,
  type TaxonomyRun,
} from "../../scripts/lib/grounding-taxonomy.js";

const QUESTION: TaxonomyQuestion = {
  text: "Find the weather in New York, NY for the next 7 days, with a height of 150 meters.",
  functions: [
    {
      name: "weather.forecast",
      description: "Forecast the weather of a location.",
      parameters: {
        type: "dict",
        properties: {
          location: { type: "string", description: "The city, you should format it as City, State." },
          days: { type: "integer", description: "Number of days ahead." },
          unit: { type: "string", enum: ["celsius", "fahrenheit"], description: "Temperature unit." },
        },
        required: ["location"],
      },
    },
  ],
};

function run(failure: string, errorType = "value_error:string", success = false): TaxonomyRun {
  return { model: "m", taskId: "q", budget: 4, success, failures: success ? [] : [failure], errorType };
}

const cls = (failure: string, errorType?: string) => classifyRun(run(failure, errorType), QUESTION);

describe("grounding taxonomy", () => {
  it("takes the checker's value and type failures apart", () => {
    expect(parseValueFailure('location: "a: b" is not among ["x"]')).toEqual({ param: "location", value: "a: b" });
    expect(parseValueFailure("days: expected type integer, got 1.5")).toEqual({ param: "days", value: 1.5 });
    expect(parseValueFailure("expected 1 call(s), got 0")).toBeUndefined();
  });

  it("classes numbers: degenerate, from the question, other", () => {
    expect(cls("days: 5000000000000000 is not among [7]")).toBe("degenerate_number");
    expect(cls("days: -9007199254740991 is not among [7]")).toBe("degenerate_number");
    expect(cls("days: 1000000000000 is not among [7]")).toBe("degenerate_number");
    expect(cls("days: 150 is not among [7]")).toBe("question_number");
    expect(cls("days: 98 is not among [7]")).toBe("other_number");
  });

  it("classes strings: runaway, key name, schema text, question span, other", () => {
    const runaway = "New York, NY, you should format it as City, State".repeat(3);
    expect(cls(`location: ${JSON.stringify(runaway)} is not among ["New York, NY"]`)).toBe("runaway_string");
    expect(cls('location: "Location" is not among ["New York, NY"]')).toBe("key_name");
    expect(cls('location: "City, State" is not among ["New York, NY"]')).toBe("schema_text");
    expect(cls('location: "New York" is not among ["New York, NY"]')).toBe("question_span");
    expect(cls('location: "Boston" is not among ["New York, NY"]')).toBe("other_string");
    // an enum value is the schema's offer, not copied text
    expect(cls('unit: "celsius" is not among ["fahrenheit"]')).toBe("other_string");
  });

  it("classes types, empty lists, missing calls and parameters", () => {
    expect(cls("days: [] is not among [[1]]", "value_error:list")).toBe("empty_list");
    expect(cls("days: true is not among [7]", "value_error:boolean")).toBe("wrong_type");
    expect(cls("expected 1 call(s), got 0", "simple_function_checker:wrong_count")).toBe("no_call");
    expect(cls("expected 1 call(s), got 2", "simple_function_checker:wrong_count")).toBe("extra_call");
    expect(cls("missing required parameter location", "simple_function_checker:missing_required")).toBe(
      "missing_param",
    );
    expect(
      cls("no final answer within 4 iteration(s): the turn never ended, so its calls are not scored", undefined),
    ).toBe("no_answer");
    expect(cls("expected weather.forecast, got x", "simple_function_checker:wrong_func_name")).toBe("other");
  });

  it("counts per model and budget, successes apart", () => {
    const runs = [
      run("", undefined, true),
      run('location: "New York" is not among ["New York, NY"]'),
      run("days: 5000000000000000 is not among [7]", "value_error:number"),
      { ...run("", undefined, true), budget: 2 },
    ];
    const rows = taxonomy(runs, new Map([["q", QUESTION]]));
    expect(rows.map((r) => [r.budget, r.runs, r.successes])).toEqual([
      [4, 3, 1],
      [2, 1, 1],
    ]);
    expect(rows[0].counts.question_span).toBe(1);
    expect(rows[0].counts.degenerate_number).toBe(1);
    const table = taxonomyTable(rows, (r) => `budget ${r.budget}`);
    expect(table).toContain("| budget 4 | 33.3% (1/3) | 1 | 1 |");
    expect(table.split("\n")[0]).toContain("another span of the question");
  });
});

describe("answer classes of a suite run", () => {
  const prompts = "To answer: <your answer, in full sentences>\nExample: 15/100*80";
  const answer = (text: string | undefined, success = false): AnswerRun => ({
    ...run("", undefined, success),
    answer: text,
  });
  it("tells no answer, the prompt's text, the question's text and other answers apart", () => {
    expect(classifyAnswer(answer("12", true), "What is 15% of 80?", prompts)).toBeUndefined();
    expect(classifyAnswer(answer(undefined), "What is 15% of 80?", prompts)).toBe("no_answer");
    expect(classifyAnswer(answer("your answer, in full sentences"), "q", prompts)).toBe("prompt_text");
    expect(classifyAnswer(answer("15/100*80"), "What is 15% of 80?", prompts)).toBe("prompt_text");
    expect(classifyAnswer(answer("15% of 80"), "What is 15% of 80?", prompts)).toBe("question_text");
    expect(classifyAnswer(answer("13"), "What is 15% of 80?", prompts)).toBe("other_answer");
  });
});
