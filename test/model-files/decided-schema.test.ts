/**
 * The decision as a request's own schema (model/grounding/decided-schema.ts): what a model server is given in place
 * of the per-token offsets it cannot take. Pure: the schema, and the language our GBNF compiler makes of it.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { decidedSchema } from "../../src/model/grounding/decided-schema.js";
import { DECISION_SCHEMA_MARGIN } from "../../src/model/grounding/defaults.js";
import { buildActionJsonSchema } from "../../src/actions/action-json-schema.js";
import { Registry } from "../../src/skills/registry.js";
import { defineSkill } from "../../src/skills/skill.js";
import { GbnfMatcher } from "../../src/model/gbnf/gbnf-matcher.js";
import { parseGbnf } from "../../src/model/gbnf/gbnf-parse.js";
import { jsonSchemaToGbnf } from "../../src/model/gbnf/json-schema-to-gbnf.js";
import type { JsonSchema } from "../../src/json-schema.js";

const registry = new Registry([
  defineSkill({
    name: "triangle_area",
    description: "Area of a triangle.",
    parameters: z.object({ base: z.number(), height: z.number() }),
    run: () => 0,
  }),
  defineSkill({
    name: "capital_of",
    description: "The capital city of a country.",
    parameters: z.object({ country: z.string() }),
    run: () => "",
  }),
]);

/** Whether the grammar our compiler makes of `schema` takes `text` whole. */
function takes(schema: JsonSchema, text: string): boolean {
  const matcher = new GbnfMatcher(parseGbnf(jsonSchemaToGbnf(schema)));
  return matcher.accept(text) && matcher.complete;
}

const ANSWER = '{"final_answer":"Paris"}';
const AREA = '{"skill_name":"triangle_area","arguments":{"base":3,"height":4}}';
const CAPITAL = '{"skill_name":"capital_of","arguments":{"country":"France"}}';

describe("decidedSchema", () => {
  const schema = buildActionJsonSchema(registry, { thought: "none" });

  it("answers where the decision ranks the answer far above every skill: the calls leave the grammar", () => {
    const decided = decidedSchema(schema, { answer: 40, skills: { triangle_area: 0, capital_of: 2 } })!;
    expect(decided).toBeDefined();
    expect(takes(decided, ANSWER)).toBe(true);
    expect(takes(decided, AREA)).toBe(false);
    expect(takes(decided, CAPITAL)).toBe(false);
    // the full schema takes all three
    for (const text of [ANSWER, AREA, CAPITAL]) expect(takes(schema, text)).toBe(true);
  });

  it("calls the skill that fits: the answer and a skill a point of fit behind or more leave", () => {
    const decided = decidedSchema(schema, { answer: -30, skills: { triangle_area: 20, capital_of: 20 - 8 * 2 } })!;
    expect(takes(decided, AREA)).toBe(true);
    expect(takes(decided, CAPITAL)).toBe(false);
    expect(takes(decided, ANSWER)).toBe(false);
  });

  it("keeps the near-ties for the model, and cuts nothing where all are within the margin", () => {
    const near = decidedSchema(schema, {
      answer: -40,
      skills: { triangle_area: 10, capital_of: 10 - DECISION_SCHEMA_MARGIN / 2 },
    })!;
    expect(takes(near, AREA) && takes(near, CAPITAL)).toBe(true);
    expect(takes(near, ANSWER)).toBe(false);
    expect(decidedSchema(schema, { answer: 1, skills: { triangle_area: 0, capital_of: 0 } })).toBeUndefined();
    expect(decidedSchema(schema, undefined)).toBeUndefined();
    // a skill the decision names no offset for counts 0
    const unnamed = decidedSchema(schema, { answer: 30, skills: {} })!;
    expect(takes(unnamed, AREA)).toBe(false);
  });

  it("holds a calls list to the planned number of calls, each call's skills cut by its item's offsets", () => {
    const parallel = buildActionJsonSchema(registry, { thought: "none", parallelCalls: true });
    const two = (a: string, b: string) => `{"calls":[${a},${b}]}`;
    const decided = decidedSchema(parallel, {
      answer: -30,
      calls: 30,
      skills: { triangle_area: 20, capital_of: 20 },
      plannedCalls: 2,
      listOffset: 10,
      itemSkills: [
        { triangle_area: 20, capital_of: 0 },
        { triangle_area: 0, capital_of: 20 },
      ],
    })!;
    expect(takes(decided, two(AREA, CAPITAL))).toBe(true);
    expect(takes(decided, two(CAPITAL, AREA))).toBe(false);
    expect(takes(decided, `{"calls":[${AREA}]}`)).toBe(false);
    expect(takes(decided, `{"calls":[${AREA},${CAPITAL},${CAPITAL}]}`)).toBe(false);
    expect(takes(decided, AREA)).toBe(false);
    // the full schema takes any of them
    expect(takes(parallel, `{"calls":[${CAPITAL},${AREA},${AREA}]}`)).toBe(true);
  });
});
