/**
 * Counterexamples of the differential fuzzer (issue 42, test/reliability/matcher-fuzz.test.ts), shrunk: a `$ref` that
 * comes back to itself before any object or array opens compiled to a rule that starts with itself
 * (`s-ref-a ::= s-ref-a`), which llama.cpp's parser refuses as left recursion ("Failed to parse grammar") while our
 * matcher took it. The compiler now refuses such a schema with a JsonSchemaGrammarError; recursion through an object or
 * an array (which reads `{` or `[` first) still compiles. Pure: no llama.cpp here.
 */
import { describe, expect, it } from "vitest";
import { GbnfMatcher } from "../../src/model/gbnf/gbnf-matcher.js";
import { parseGbnf } from "../../src/model/gbnf/gbnf-parse.js";
import { jsonSchemaToGbnf } from "../../src/model/gbnf/json-schema-to-gbnf.js";
import type { JsonSchema } from "../../src/json-schema.js";

function complete(schema: JsonSchema, text: string): boolean {
  const matcher = new GbnfMatcher(parseGbnf(jsonSchemaToGbnf(schema)));
  return matcher.accept(text) && matcher.complete;
}

describe("jsonSchemaToGbnf and $ref cycles", () => {
  it("refuses a $ref cycle that reads no character, as the fuzzer shrank them", () => {
    const cycles: JsonSchema[] = [
      { $ref: "#" },
      { $ref: "#/$defs/a", $defs: { a: { $ref: "#/$defs/a" } } },
      { anyOf: [{ $ref: "#/$defs/a" }], $defs: { a: { $ref: "#/$defs/a" } } },
      { $ref: "#/$defs/a", $defs: { a: { anyOf: [{ $ref: "#/$defs/a" }] } } },
      { $ref: "#/definitions/b", definitions: { b: { $ref: "#" } } },
      // inside an object, but the definition itself starts with itself
      { type: "object", properties: { "": { $ref: "#/$defs/a" } }, $defs: { a: { $ref: "#/$defs/a" } } },
      // through two definitions and a nullable type array
      {
        $ref: "#/$defs/a",
        $defs: { a: { anyOf: [{ type: "null" }, { $ref: "#/$defs/b" }] }, b: { oneOf: [{ $ref: "#/$defs/a" }] } },
      },
    ];
    for (const schema of cycles)
      expect(() => jsonSchemaToGbnf(schema), JSON.stringify(schema)).toThrow(
        expect.objectContaining({ code: "malformed", message: expect.stringMatching(/refers back to itself/) }),
      );
  });

  it("still compiles recursion through an array or an object, and a $ref used twice side by side", () => {
    const tree = { $ref: "#/$defs/a", $defs: { a: { type: "array", items: { $ref: "#/$defs/a" } } } };
    expect(complete(tree, "[[],[[]]]")).toBe(true);
    expect(complete(tree, "[[],[[]]")).toBe(false);
    const linked = {
      type: "object",
      properties: { v: { type: "integer" }, next: { anyOf: [{ type: "null" }, { $ref: "#" }] } },
      required: ["v", "next"],
    };
    expect(complete(linked, '{"v":1,"next":{"v":2,"next":null}}')).toBe(true);
    expect(complete(linked, '{"v":1,"next":{"v":2}}')).toBe(false);
    const twice = { anyOf: [{ $ref: "#/$defs/a" }, { $ref: "#/$defs/a" }], $defs: { a: { type: "boolean" } } };
    expect(complete(twice, "true")).toBe(true);
    const mutual = {
      $ref: "#/$defs/a",
      $defs: {
        a: { type: "object", properties: { b: { $ref: "#/$defs/b" } } },
        b: { type: "array", items: { $ref: "#/$defs/a" } },
      },
    };
    expect(complete(mutual, '{"b":[{},{"b":[]}]}')).toBe(true);
  });
});
