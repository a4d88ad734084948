import fc from "fast-check";
import type { Llama, LlamaGrammar } from "node-llama-cpp";
import { z } from "zod";
import { beforeAll, describe, expect, it } from "vitest";
import { buildActionJsonSchema } from "../../src/actions/action-json-schema.js";
import { canonicalSchemaKey } from "../../src/model/gbnf/canonical-json.js";
import { GbnfMatcher } from "../../src/model/gbnf/gbnf-matcher.js";
import { parseGbnf } from "../../src/model/gbnf/gbnf-parse.js";
import { jsonSchemaToGbnf, JsonSchemaGrammarError } from "../../src/model/gbnf/json-schema-to-gbnf.js";
import { getLlamaRuntime } from "../../src/model/llama/llama-runtime.js";
import type { JsonSchema } from "../../src/model/model-handle.js";
import { grammarTestRegistries } from "./grammar-registries.js";

let llama: Llama;
beforeAll(async () => {
  llama = (await getLlamaRuntime(false)).llama;
});

/** A grammar compiled by llama.cpp's own parser, and a matcher: does llama.cpp accept exactly this text? */
async function compile(schema: JsonSchema | boolean): Promise<(text: string) => boolean> {
  const grammar: LlamaGrammar = await llama.createGrammar({ grammar: jsonSchemaToGbnf(schema) });
  return (text) => (grammar as unknown as { _testText(text: string): boolean })._testText(text);
}

describe("jsonSchemaToGbnf (checked with llama.cpp's grammar parser)", () => {
  it("lets a parallel call reference only an earlier call, in the shape the parser accepts", async () => {
    const schema = buildActionJsonSchema(grammarTestRegistries.calculator, { parallelCalls: true });
    const accepts = await compile(schema);
    const add = (a: unknown, b: unknown = 1) => ({ skill_name: "add", arguments: { a, b } });
    const calls = (...list: unknown[]) => JSON.stringify({ calls: list });
    const ref = (path: string) => ({ $ref: path });
    expect(accepts(calls(add(1)))).toBe(true);
    expect(accepts(calls(add(1), add(ref("calls[0].result"))))).toBe(true);
    expect(accepts(calls(add(1), add(2), add(ref("calls[1].result.total[0]"), ref("calls[0].result"))))).toBe(true);
    // eleven calls: the last ones may still name any of the first ten
    expect(
      accepts(
        calls(
          ...Array.from({ length: 11 }, (_, i) => (i === 0 ? add(0) : add(ref(`calls[${Math.min(i - 1, 9)}].result`)))),
        ),
      ),
    ).toBe(true);
    for (const bad of [
      calls(add(ref("calls[0].result"))), // the first call references itself
      calls(add(1), add(ref("calls[1].result"))), // self reference
      calls(add(1), add(ref("calls[2].result"))), // forward reference
      calls(add(1), add(ref(""))), // malformed (what Gemma 3 270M wrote on BFCL before this)
      calls(add(1), add(ref("calls[0]"))), // no .result
      calls(add(1), add(ref("calls[0].result..x"))),
      calls(), // no call
    ])
      expect(accepts(bad), bad).toBe(false);
  });

  it("treats prefixItems past minItems as optional, as JSON Schema does", async () => {
    const accepts = await compile({
      type: "array",
      minItems: 1,
      prefixItems: [{ type: "integer" }, { type: "string" }],
      items: false,
    });
    expect(accepts("[1]")).toBe(true);
    expect(accepts('[1,"a"]')).toBe(true);
    expect(accepts("[]")).toBe(false);
    expect(accepts('[1,"a",2]')).toBe(false);
    expect(accepts('["a"]')).toBe(false);
  });

  it("accepts the agent's action JSON, compact, and rejects pretty-printed, unknown skills and bad arguments", async () => {
    const schema = buildActionJsonSchema(grammarTestRegistries.calculator, { thought: "first" });
    const accepts = await compile(schema);
    const ok = [
      { thought: "add them", skill_name: "add", arguments: { a: 1, b: -2.5 } },
      { skill_name: "sqrt", arguments: { x: 0 } },
      { skill_name: "round", arguments: { x: 3.14159, digits: 2 } },
      { skill_name: "round", arguments: { x: 3 } },
      { final_answer: "It is 4." },
      { thought: "", final_answer: 'a\nb "quoted" ✓' },
    ];
    for (const action of ok) expect(accepts(JSON.stringify(action)), JSON.stringify(action)).toBe(true);
    const bad = [
      JSON.stringify(ok[0], null, 2), // pretty
      `${JSON.stringify(ok[1])}\n`, // trailing newline
      JSON.stringify({ skill_name: "mul", arguments: { a: 1, b: 2 } }), // unknown skill
      JSON.stringify({ skill_name: "add", arguments: { a: 1 } }), // missing argument
      JSON.stringify({ skill_name: "add", arguments: { a: "1", b: 2 } }), // wrong type
      JSON.stringify({ skill_name: "sqrt", arguments: { x: -1 } }), // below minimum
      JSON.stringify({ skill_name: "round", arguments: { x: 1, digits: 11 } }), // above maximum
      JSON.stringify({ skill_name: "round", arguments: { x: 1, digits: 1.5 } }), // not an integer
      JSON.stringify({ skill_name: "add", arguments: { b: 2, a: 1 } }), // out of declared order
      JSON.stringify({ skill_name: "add", arguments: { a: 1, b: 2, c: 3 } }), // undeclared key
      JSON.stringify({ final_answer: "" }), // empty answer
      JSON.stringify({ final_answer: "   " }), // blank answer
      JSON.stringify({ final_answer: "x", skill_name: "add" }), // mixed branches
      JSON.stringify({ thought: "only thinking" }),
    ];
    for (const text of bad) expect(accepts(text), text).toBe(false);
  });

  it("compiles the action schema of every test registry", async () => {
    for (const registry of Object.values(grammarTestRegistries)) {
      expect(typeof (await compile(buildActionJsonSchema(registry)))).toBe("function");
      expect(typeof (await compile(buildActionJsonSchema(registry, { parallelCalls: true })))).toBe("function");
    }
  });

  it("handles the zod output subset: enums, nullable, unions, literals, records, tuples, arrays, any", async () => {
    const params = z.object({
      unit: z.enum(["c", "f"]),
      note: z.string().nullable(),
      id: z.union([z.string(), z.int()]),
      level: z.literal(3),
      scores: z.record(z.string(), z.number()),
      pair: z.tuple([z.string(), z.boolean()]),
      tags: z.array(z.string().min(1).max(3)).min(1).max(2),
      extra: z.any(),
      nested: z.object({ deep: z.object({ on: z.boolean() }) }).optional(),
      empty: z.object({}),
    });
    const accepts = await compile(z.toJSONSchema(params, { io: "input" }) as JsonSchema);
    const base = {
      unit: "c",
      note: null,
      id: "x",
      level: 3,
      scores: {},
      pair: ["a", true],
      tags: ["ab"],
      extra: [1, { k: null }],
      empty: {},
    };
    expect(accepts(JSON.stringify(base))).toBe(true);
    const full = {
      unit: "f",
      note: "n",
      id: -7,
      level: 3,
      scores: { a: 1, b: 2e3 },
      pair: ["", false],
      tags: ["a", "bcd"],
      extra: "s",
      nested: { deep: { on: false } },
      empty: {},
    };
    expect(accepts(JSON.stringify(full))).toBe(true);
    for (const change of [
      { unit: "k" },
      { level: 4 },
      { pair: ["a"] },
      { tags: [] },
      { tags: ["a", "b", "c"] },
      { tags: ["abcd"] },
      { tags: [""] },
      { empty: { a: 1 } },
      { id: 1.5 },
    ]) {
      const text = JSON.stringify({ ...base, ...change });
      expect(accepts(text), text).toBe(false);
    }
  });

  it("integer bounds are exact (property: accepted iff within [min, max])", async () => {
    const cases = fc.sample(
      fc.tuple(fc.integer({ min: -100_000, max: 100_000 }), fc.integer({ min: 0, max: 200_000 })),
      { numRuns: 25, seed: 42 },
    );
    for (const [lo, width] of cases) {
      const hi = lo + width;
      const accepts = await compile({ type: "integer", minimum: lo, maximum: hi });
      const probes = fc.sample(fc.integer({ min: lo - 1000, max: hi + 1000 }), { numRuns: 40, seed: lo });
      for (const x of [...probes, lo, hi, lo - 1, hi + 1, 0, -1, 1])
        expect(accepts(String(x)), `${x} in [${lo}, ${hi}]`).toBe(x >= lo && x <= hi);
    }
    const safe = await compile({ type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 });
    for (const x of ["9007199254740991", "-9007199254740991", "0", "12", "-3"]) expect(safe(x), x).toBe(true);
    for (const x of ["9007199254740992", "-9007199254740992", "01", "-0.5", "1e3", "99999999999999999"])
      expect(safe(x), x).toBe(false);
  });

  it("an integer with an open side is never one zod's z.int() refuses (no unsafe 16-digit integer)", async () => {
    const schemas: JsonSchema[] = [
      { type: "integer" },
      { type: "integer", minimum: 0 },
      { type: "integer", maximum: 5 },
    ];
    // 9454963541311231: what Gemma 3 270M wrote at temperature 1 for an unbounded integer, above 2^53 - 1
    const probes = [
      "8999999999999999",
      "-8999999999999999",
      "9454963541311231",
      "9007199254740992",
      "9000000000000000",
    ];
    for (const schema of schemas) {
      const accepts = await compile(schema);
      const validator = z.fromJSONSchema(schema);
      for (const x of probes) {
        const validates = validator.safeParse(JSON.parse(x)).success;
        if (accepts(x)) expect(validates, `${JSON.stringify(schema)} accepts ${x}, which zod refuses`).toBe(true);
      }
      expect(accepts("1234567890123456"), JSON.stringify(schema)).toBe(schema.maximum === undefined);
    }
    expect(await compile({ type: "integer" }).then((accepts) => accepts("9454963541311231"))).toBe(false);
    // a number has no such limit in zod, but the same integer part: the grammar's cap is one rule
    const number = await compile({ type: "number" });
    expect(number("8999999999999999.5")).toBe(true);
    expect(number("9454963541311231")).toBe(false);
  });

  it("bounded numbers accept only values within bounds; exclusive bounds exclude the bound", async () => {
    const unit = await compile({ type: "number", minimum: 0, maximum: 1 });
    for (const x of ["0", "1", "0.5", "0.125"]) expect(unit(x), x).toBe(true);
    for (const x of ["-0.5", "1.5", "2", "-1", "1e0"]) expect(unit(x), x).toBe(false);
    const positive = await compile({ type: "number", exclusiveMinimum: 0, exclusiveMaximum: 10 });
    for (const x of ["1", "9", "3.5"]) expect(positive(x), x).toBe(true);
    for (const x of ["0", "10", "-2", "10.5"]) expect(positive(x), x).toBe(false);
    const negative = await compile({ type: "number", minimum: -5, maximum: -2 });
    for (const x of ["-5", "-2", "-4.5", "-2.0"]) expect(negative(x), x).toBe(true);
    for (const x of ["-1.5", "-5.5", "0", "-6"]) expect(negative(x), x).toBe(false);
  });

  it("string formats date, time, date-time and uuid: llama.cpp and our matcher accept exactly what zod validates", async () => {
    const pad = (n: number, width = 2) => String(n).padStart(width, "0");
    const { integer: int, constantFrom: oneOf } = fc;
    const date = fc
      .tuple(int({ min: 0, max: 9999 }), int({ min: 0, max: 13 }), int({ min: 0, max: 32 }))
      .map(([y, m, d]) => `${pad(y, 4)}-${pad(m)}-${pad(d)}`);
    const leapDays = int({ min: 1, max: 9999 }).map((y) => `${pad(y, 4)}-02-29`);
    const time = fc
      .tuple(int({ min: 0, max: 25 }), int({ min: 0, max: 61 }), int({ min: 0, max: 61 }), oneOf("", ".5", ".123"))
      .chain(([h, m, sec, fraction]) =>
        oneOf("Z", "+01:00", "-23:59", "+24:00", "", "z").map(
          (zone) => `${pad(h)}:${pad(m)}:${pad(sec)}${fraction}${zone}`,
        ),
      );
    const hex = (n: number) =>
      fc.string({ unit: oneOf(..."0123456789abcdefABCDEFg".split("")), minLength: n, maxLength: n });
    const uuid = fc
      .tuple(hex(8), hex(4), oneOf(..."0189".split("")), hex(3), oneOf(..."07aB".split("")), hex(3), hex(12))
      .map(([a, b, version, c, variant, d, e]) => `${a}-${b}-${version}${c}-${variant}${d}-${e}`);
    const probes: Record<string, string[]> = {
      date: [
        ...fc.sample(date, { numRuns: 300, seed: 1 }),
        ...fc.sample(leapDays, { numRuns: 60, seed: 2 }),
        "2021-01-01 14:00:00",
        "2021-1-1",
        "2000-02-29",
        "1900-02-29",
      ],
      time: [...fc.sample(time, { numRuns: 300, seed: 3 }), "14:00", "14:00:00"],
      "date-time": [
        ...fc.sample(fc.tuple(date, time), { numRuns: 300, seed: 4 }).map(([d, t]) => `${d}T${t}`),
        "2021-01-01T14:00:00Z",
        "2021-01-01 14:00:00Z",
      ],
      uuid: [
        ...fc.sample(uuid, { numRuns: 300, seed: 5 }),
        "123e4567-e89b-12d3-a456-426614174000",
        "00000000-0000-0000-0000-000000000000",
      ],
    };
    for (const [format, texts] of Object.entries(probes)) {
      const schema = { type: "string", format } as const;
      const llamaAccepts = await compile(schema);
      const ours = parseGbnf(jsonSchemaToGbnf(schema));
      const zod = z.fromJSONSchema(schema);
      let valid = 0;
      for (const text of texts) {
        const json = JSON.stringify(text);
        const expected = zod.safeParse(text).success;
        if (expected) valid++;
        expect(llamaAccepts(json), `${format}: ${json}`).toBe(expected);
        const matcher = new GbnfMatcher(ours);
        expect(matcher.accept(json) && matcher.complete, `${format} (our matcher): ${json}`).toBe(expected);
      }
      // both sides of the line were probed
      expect(valid, format).toBeGreaterThan(10);
      expect(texts.length - valid, format).toBeGreaterThan(10);
    }
  });

  it("free-form objects, recursion through $ref, and `true` (any JSON value)", async () => {
    const tree = await compile({
      $defs: {
        node: {
          type: "object",
          properties: { v: { type: "integer" }, kids: { type: "array", items: { $ref: "#/$defs/node" } } },
          required: ["v"],
        },
      },
      $ref: "#/$defs/node",
    });
    expect(tree('{"v":1,"kids":[{"v":2},{"v":3,"kids":[]}]}')).toBe(true);
    expect(tree('{"v":1,"kids":[{"w":2}]}')).toBe(false);
    const any = await compile(true);
    for (const text of ['{"a":[1,true,null,"x",{"b":-2.5e3}]}', "[]", '"s"', "0", "null"])
      expect(any(text), text).toBe(true);
    for (const text of ["{a:1}", "[1,]", "'x'", "01", " 1"]) expect(any(text), text).toBe(false);
  });

  it("refuses what no value satisfies, unknown types and unresolvable refs", () => {
    expect(() => jsonSchemaToGbnf(false)).toThrow(JsonSchemaGrammarError);
    expect(() => jsonSchemaToGbnf({ type: "dict" })).toThrow(/unknown type "dict".*bfclToJsonSchema/);
    expect(() => jsonSchemaToGbnf({ $ref: "#/$defs/missing" })).toThrow(/cannot resolve/);
    expect(() => jsonSchemaToGbnf({ type: "integer", minimum: 5, maximum: 4 })).toThrow(/no integer/);
    expect(() => jsonSchemaToGbnf({ type: "string", minLength: 3, maxLength: 2 })).toThrow(/length/);
  });

  it("cache keys ignore keyword order but keep property order", () => {
    expect(canonicalSchemaKey({ type: "object", required: ["a"], properties: { a: {} } })).toBe(
      canonicalSchemaKey({ properties: { a: {} }, required: ["a"], type: "object" }),
    );
    expect(canonicalSchemaKey({ properties: { a: {}, b: {} } })).not.toBe(
      canonicalSchemaKey({ properties: { b: {}, a: {} } }),
    );
  });
});
