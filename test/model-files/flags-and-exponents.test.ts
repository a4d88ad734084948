/**
 * A flag the question negates ("do not include the impact of human activities") is false, not true. A numeral the
 * question writes only as an exponent of a unit or a variable ("m/s^2", "cm^3", "x^2") is no number
 * argument's value: SmolLM2 wrote `"acceleration":2` for "accelerates at a rate of 3.5 m/s^2".
 */
import { describe, expect, it } from "vitest";
import { exponentOnlyNumerals } from "../../src/model/grounding/grounding-words.js";
import { QuestionReading } from "../../src/model/grounding/question-reading.js";
import { GroundingIndex } from "../../src/model/grounding/grounding-index.js";
import { RuleGate } from "../../src/model/grounding/rules.js";
import { steerSource } from "../../src/model/grounding/grounding-setup.js";
import { findAction } from "../helpers/action-schema.js";
import { groundedSchema } from "../../src/model/grounding/grounded-schema.js";

const CAR = "A car starts with an initial velocity of 15 m/s and accelerates at a rate of 3.5 m/s^2 for 7 seconds.";

describe("a negated flag", () => {
  const schema = findAction({
    location: { type: "string" },
    years: { type: "integer" },
    include_human_impact: { type: "boolean" },
  });
  const flag = (question: string) => {
    const source = steerSource({ mode: "soft", source: [question] }, schema);
    const r = new QuestionReading(source, new GroundingIndex(source.source), new RuleGate([]));
    r.text = '{"skill_name":"find","arguments":{"location":"Amazon","years":10,"include_human_impact":';
    return r.flagValue("include_human_impact");
  };

  it("is false where a negation comes within three words before its word, true where none does", () => {
    expect(flag("Forest growth in the Amazon over 10 years if we do not include the impact of human activities")).toBe(
      "false",
    );
    expect(flag("Forest growth in the Amazon over 10 years without human impact")).toBe("false");
    expect(flag("Forest growth in the Amazon over 10 years including the impact of human activities")).toBe("true");
    expect(flag("Forest growth in the Amazon over 10 years")).toBeUndefined();
    // "No" before a number is no negation, and a negation does not reach past a comma
    expect(flag("Forest growth of Case No 28473, its human impact")).toBe("true");
    expect(flag("Not the Amazon, but the human impact on forests over 10 years")).toBe("true");
  });

  it("is the one value a server's grounded schema allows the flag", () => {
    const allowed = (question: string) => {
      const grounded = groundedSchema(schema, { mode: "strict", source: [question] })!.schema as {
        anyOf: { properties: { arguments?: { properties: Record<string, { enum?: unknown[] }> } } }[];
      };
      return grounded.anyOf[0].properties.arguments!.properties.include_human_impact.enum;
    };
    expect(allowed("Growth in the Amazon over 10 years if we do not include the impact of human activities")).toEqual([
      false,
    ]);
    expect(allowed("Growth in the Amazon over 10 years including the impact of human activities")).toEqual([true]);
  });
});

describe("exponent numerals", () => {
  it("are those written only after a letter and a caret", () => {
    expect([...exponentOnlyNumerals(CAR)]).toEqual(["2"]);
    expect([...exponentOnlyNumerals("a density of 7.8 g/cm^3 and a volume of 3 cm^3")]).toEqual([]);
    expect([...exponentOnlyNumerals("the roots of 3x^2 + 2x - 1")]).toEqual([]);
    expect([...exponentOnlyNumerals("What is 2^10?")]).toEqual([]);
  });

  it("fit no number argument, unless the rule is off", () => {
    const schema = findAction({
      initial_velocity: { type: "number" },
      acceleration: { type: "number" },
      time: { type: "number" },
    });
    const reading = (off: string[]) => {
      const source = steerSource({ mode: "soft", source: [CAR] }, schema);
      const r = new QuestionReading(source, new GroundingIndex(source.source), new RuleGate(off));
      r.text = '{"skill_name":"find","arguments":{"initial_velocity":15,"acceleration":';
      return r;
    };
    expect(reading([]).fits("acceleration", "2")).toBe(false);
    expect(reading([]).fits("acceleration", "3.5")).toBe(true);
    expect(reading(["number-fits"]).fits("acceleration", "2")).toBe(true);
  });
});
