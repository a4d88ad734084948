/**
 * Strict grounding as a request's own schema (model/grounding/grounded-schema.ts): what a model server is given in
 * place of the per-token bias it cannot take. Pure: the schema, and the language our GBNF compiler makes of it.
 */
import { describe, expect, it } from "vitest";
import { groundedSchema, textSpans } from "../../src/model/grounding/grounded-schema.js";
import { GROUNDED_SCHEMA_MAX_BYTES, GROUNDED_SCHEMA_MAX_VALUES } from "../../src/model/grounding/defaults.js";
import { GbnfMatcher } from "../../src/model/gbnf/gbnf-matcher.js";
import { parseGbnf } from "../../src/model/gbnf/gbnf-parse.js";
import { jsonSchemaToGbnf } from "../../src/model/gbnf/json-schema-to-gbnf.js";
import type { JsonSchema } from "../../src/json-schema.js";
import { findAction } from "../helpers/action-schema.js";

const action = findAction;

/** Whether the grammar our compiler makes of `schema` takes `text` whole. */
function takes(schema: JsonSchema, text: string): boolean {
  const matcher = new GbnfMatcher(parseGbnf(jsonSchemaToGbnf(schema)));
  return matcher.accept(text) && matcher.complete;
}

const QUESTION = "Find a hotel in New York, NY for 3 nights, with 2.5 stars or more, near 'Central Park'.";

describe("textSpans", () => {
  it("offers the question's word-bounded spans, none beginning with an article, none crossing a quote", () => {
    const spans = textSpans(QUESTION, 12, 120);
    expect(spans).toEqual(expect.arrayContaining(["New York", "New York, NY", "hotel", "3", "'Central Park'"]));
    expect(spans).toContain("Central Park");
    expect(spans.some((s) => /^(?:a|the) /i.test(s))).toBe(false);
    expect(spans.filter((s) => s.includes("'")).every((s) => s === "'Central Park'")).toBe(true);
    // a span ends where a word ends, not inside one
    expect(spans).not.toContain("Yor");
    expect(spans.some((s) => s.endsWith(" "))).toBe(false);
  });

  it("an apostrophe inside a word is no quote; a quoted sentence keeps its own stop", () => {
    const spans = textSpans("Rate 'I love it. It's fresh.' now", 12, 120);
    expect(spans).toContain("It's fresh.");
    expect(spans).toContain("'I love it. It's fresh.'");
    expect(spans.some((s) => s.startsWith("'s"))).toBe(false);
    expect(spans).not.toContain("fresh.' now");
  });

  it("keeps to the word and character bounds", () => {
    const spans = textSpans("one two three four five six", 3, 120);
    expect(spans).toContain("one two three");
    expect(spans).not.toContain("one two three four");
    expect(textSpans("alpha beta gamma", 12, 10)).not.toContain("alpha beta gamma");
  });
});

describe("groundedSchema", () => {
  const schema = action(
    {
      city: { type: "string", description: "The city." },
      nights: { type: "integer" },
      stars: { type: "number" },
      rooms: { type: "string", enum: ["single", "double"] },
      date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" },
    },
    ["city", "nights", "stars", "rooms", "date"],
  );

  it("limits strings to the question's spans and numbers to its numerals; an integer to whole ones", () => {
    const grounded = groundedSchema(schema, { mode: "strict", source: [QUESTION] })!;
    expect(grounded.capped).toBe(false);
    const defs = grounded.schema.$defs as Record<string, { enum: unknown[] }>;
    const spans = Object.values(defs).find((d) => typeof d.enum[0] === "string")!.enum;
    expect(spans).toContain("New York, NY");
    expect(grounded.strings).toBe(spans.length);
    const prefix = '{"skill_name":"find","arguments":{"city":';
    const rest = ',"nights":3,"stars":2.5,"rooms":"single","date":"2026-01-01"}}';
    expect(takes(grounded.schema, `${prefix}"New York"${rest}`)).toBe(true);
    expect(takes(grounded.schema, `${prefix}"Paris"${rest}`)).toBe(false);
    expect(takes(schema, `${prefix}"Paris"${rest}`)).toBe(true); // the action schema itself takes any string
    // an integer takes 3 and 2 (the question's whole numerals) but not 2.5 nor a number it does not write
    expect(takes(grounded.schema, `${prefix}"hotel"${rest.replace('"nights":3', '"nights":2.5')}`)).toBe(false);
    expect(takes(grounded.schema, `${prefix}"hotel"${rest.replace('"nights":3', '"nights":30')}`)).toBe(false);
    expect(takes(grounded.schema, `${prefix}"hotel"${rest.replace('"stars":2.5', '"stars":25')}`)).toBe(false);
    // the numeral the question puts beside a key's word is that key's ("2.5 stars": anchors in process)
    expect(takes(grounded.schema, `${prefix}"hotel"${rest.replace('"stars":2.5', '"stars":3')}`)).toBe(false);
    const unanchored = groundedSchema(schema, { mode: "strict", source: ["A hotel in New York: 3, and 2.5 or more"] })!;
    expect(takes(unanchored.schema, `${prefix}"New York"${rest.replace('"stars":2.5', '"stars":3')}`)).toBe(true);
  });

  it("a numeral the question writes only as a percentage is its fraction, unless the key asks for a percentage", () => {
    // (one-letter keys: no key word for the question to put a value beside; see the anchors below)
    const rate = action(
      {
        p: { type: "number" },
        r: { type: "number", description: "The annual interest rate." },
        s: { type: "number", description: "The share, as a percentage." },
        n: { type: "integer" },
      },
      ["p", "r", "s", "n"],
    );
    const question = "Compound interest on $5000 at an annual rate of 8% for 5 years, with 5% set aside.";
    const grounded = groundedSchema(rate, { mode: "strict", source: [question] })!;
    const call = (r: number, s: number, n = 5) =>
      `{"skill_name":"find","arguments":{"p":5000,"r":${r},"s":${s},"n":${n}}}`;
    expect(takes(grounded.schema, call(0.08, 5))).toBe(true);
    expect(takes(grounded.schema, call(8, 5))).toBe(false);
    expect(takes(grounded.schema, call(0.08, 8))).toBe(true); // "as a percentage": 8 as written
    // 5 is written bare too ("5 years"): it stays 5 for a rate; an integer takes the whole numerals only
    expect(takes(grounded.schema, call(5, 8))).toBe(true);
    expect(takes(grounded.schema, call(0.08, 5, 8))).toBe(true);
    expect(takes(grounded.schema, call(0.08, 5, 0.08))).toBe(false);
    // the question without a percentage: the numerals as written
    const plain = groundedSchema(rate, { mode: "strict", source: ["$5000 at a rate of 8 for 5 years"] })!;
    expect(takes(plain.schema, call(8, 5))).toBe(true);
    expect(takes(plain.schema, call(0.08, 5))).toBe(false);
  });

  it("a value the question puts beside a key's word is that key's, and not another's (anchors)", () => {
    const art = action(
      { title: { type: "string" }, artist: { type: "string" }, year: { type: "integer" }, copies: { type: "integer" } },
      ["title", "artist", "year", "copies"],
    );
    const source = ["Find the sculpture with the title 'David' by Michelangelo, made in the year 1504, 3 copies."];
    const grounded = groundedSchema(art, { mode: "strict", source })!;
    const call = (title: string, artist: string, year: number, copies: number) =>
      `{"skill_name":"find","arguments":${JSON.stringify({ title, artist, year, copies })}}`;
    expect(takes(grounded.schema, call("David", "Michelangelo", 1504, 3))).toBe(true);
    // the small model's mix-ups: the title into the artist, the year's numeral into the count
    expect(takes(grounded.schema, call("David", "David", 1504, 3))).toBe(false);
    expect(takes(grounded.schema, call("Michelangelo", "Michelangelo", 1504, 3))).toBe(false);
    expect(takes(grounded.schema, call("David", "Michelangelo", 1504, 1504))).toBe(false);
    expect(takes(grounded.schema, call("David", "Michelangelo", 3, 3))).toBe(false);
    // the plain action schema takes them all
    expect(takes(art, call("David", "David", 3, 1504))).toBe(true);
  });

  it("leaves an enum, a pattern, the final answer and a number the question gives none for as they are", () => {
    const grounded = groundedSchema(schema, { mode: "strict", source: ["Find a hotel in Paris"] })!;
    const args = (grounded.schema.anyOf as JsonSchema[])[0].properties as Record<string, JsonSchema>;
    const props = args.arguments.properties as Record<string, JsonSchema>;
    expect(props.rooms).toEqual({ type: "string", enum: ["single", "double"] });
    expect(props.date).toEqual({ type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" });
    expect(props.nights).toEqual({ type: "integer" });
    expect((grounded.schema.anyOf as JsonSchema[])[1]).toEqual((schema.anyOf as JsonSchema[])[1]);
    expect(takes(grounded.schema, '{"final_answer":"Anything at all, Paris or not."}')).toBe(true);
  });

  it("is undefined where grounding is off or the source is empty: the schema goes as it is", () => {
    expect(groundedSchema(schema, { mode: "off", source: [QUESTION] })).toBeUndefined();
    expect(groundedSchema(schema, undefined)).toBeUndefined();
    expect(groundedSchema(schema, { mode: "strict", source: ["  "] })).toBeUndefined();
  });

  it("leaves out an optional argument the question does not ask for, requires one it asks for; a flag it names is true", () => {
    const optional = action(
      {
        current: { type: "integer" },
        permeability: { type: "number", description: "The magnetic permeability. Default is 12.57e10." },
        unit: { type: "string", description: "The unit, e.g. 'tesla' or 'gauss'. Default is 'tesla'." },
        equal_variance: { type: "boolean" },
      },
      ["current"],
    );
    const source = ["Find the field of a loop with a current of 5 Ampere in gauss, assuming equal variance"];
    const grounded = groundedSchema(optional, { mode: "strict", source })!;
    const args = ((grounded.schema.anyOf as JsonSchema[])[0].properties as Record<string, JsonSchema>).arguments;
    expect(Object.keys(args.properties as object)).toEqual(["current", "unit", "equal_variance"]);
    // asked by a value ("gauss" for `unit`) and by name ("equal variance"): both required, as in process the reply
    // goes on to them
    expect(args.required).toEqual(["current", "unit", "equal_variance"]);
    const start = '{"skill_name":"find","arguments":{"current":5';
    expect(takes(grounded.schema, `${start},"permeability":5,"unit":"gauss","equal_variance":true}}`)).toBe(false);
    expect(takes(grounded.schema, `${start},"unit":"gauss"}}`)).toBe(false);
    expect(takes(grounded.schema, `${start},"unit":"gauss","equal_variance":true}}`)).toBe(true);
    // the flag the question names is true ("flag-true" in process)
    expect(takes(grounded.schema, `${start},"unit":"gauss","equal_variance":false}}`)).toBe(false);
  });

  it("a long question stays under the caps, its shorter spans and the question's first", () => {
    const words = Array.from({ length: 5000 }, (_, i) => `w${i}`).join(" ");
    const grounded = groundedSchema(action({ name: { type: "string" } }, ["name"]), {
      mode: "strict",
      source: [`Find Alice. ${words}`, "a result that comes later"],
    })!;
    expect(grounded.capped).toBe(true);
    const spans = Object.values(grounded.schema.$defs as Record<string, { enum: string[] }>)[0].enum;
    expect(spans.length).toBeLessThanOrEqual(GROUNDED_SCHEMA_MAX_VALUES);
    expect(JSON.stringify(spans).length).toBeLessThanOrEqual(GROUNDED_SCHEMA_MAX_BYTES + spans.length + 2);
    expect(spans).toContain("Alice");
    expect(spans).not.toContain("result");
    expect(spans.slice(0, 20).every((s) => !s.includes(" "))).toBe(true);
    // tighter limits are kept too
    const small = groundedSchema(
      action({ name: { type: "string" } }, ["name"]),
      {
        mode: "strict",
        source: [words],
      },
      { maxValues: 10 },
    )!;
    expect(small.strings).toBe(10);
  });

  it("grounds the items of an array and the values of a `calls` list's references-or-values", () => {
    const list = action({ cities: { type: "array", items: { type: "string" } } }, ["cities"]);
    const grounded = groundedSchema(list, { mode: "strict", source: ["Weather in Boston and Paris"] })!;
    const start = '{"skill_name":"find","arguments":{"cities":';
    expect(takes(grounded.schema, `${start}["Boston","Paris"]}}`)).toBe(true);
    expect(takes(grounded.schema, `${start}["Boston","Rome"]}}`)).toBe(false);
    const withRef = action(
      {
        city: {
          anyOf: [
            { type: "string" },
            { type: "object", properties: { $ref: { type: "string", pattern: "^call_1$" } }, required: ["$ref"] },
          ],
        },
      },
      ["city"],
    );
    const both = groundedSchema(withRef, { mode: "strict", source: ["Weather in Boston"] })!;
    expect(takes(both.schema, '{"skill_name":"find","arguments":{"city":"Boston"}}')).toBe(true);
    expect(takes(both.schema, '{"skill_name":"find","arguments":{"city":"Rome"}}')).toBe(false);
    expect(takes(both.schema, '{"skill_name":"find","arguments":{"city":{"$ref":"call_1"}}}')).toBe(true);
  });

  it("each lever crosses alone: copy the spans (and optional keys), numbers the numerals, strings a length bound", () => {
    const source = [QUESTION];
    const props = (levers: ("copy" | "numbers" | "strings" | "answers")[]) => {
      const grounded = groundedSchema(schema, { mode: "strict", source, levers });
      if (!grounded) return undefined;
      const branch = (grounded.schema.anyOf as JsonSchema[])[0].properties as Record<string, JsonSchema>;
      return branch.arguments.properties as Record<string, JsonSchema>;
    };
    expect(props(["numbers"])!.city).toEqual({ type: "string", description: "The city." });
    expect(props(["numbers"])!.nights).toHaveProperty("$ref");
    // (the numeral beside "stars" alone: anchors)
    expect(props(["numbers"])!.stars).toEqual({ type: "number", enum: [2.5] });
    expect(props(["copy"])!.nights).toEqual({ type: "integer" });
    expect(props(["copy"])!.city).not.toEqual({ type: "string", description: "The city." });
    expect(props(["copy"])!.city).not.toHaveProperty("maxLength");
    // strings alone: the longest source text bounds a free string (as in process), and the pattern is kept
    expect(props(["strings"])!.city).toEqual({ type: "string", description: "The city.", maxLength: QUESTION.length });
    expect(props(["strings"])!.date).toEqual({ type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" });
    // answers: nothing of it crosses a schema (a final answer is prose): the schema goes as it is
    expect(props(["answers"])).toBeUndefined();
  });
});
