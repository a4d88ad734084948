import { describe, expect, it } from "vitest";
import { bfclToJsonSchema } from "../../src/eval/bfcl/bfcl-json-schema.js";

describe("bfclToJsonSchema", () => {
  it("maps Python-flavoured types at every depth and drops BFCL's `optional` flag", () => {
    const input = {
      type: "dict",
      properties: {
        point: { type: "tuple", items: { type: "float" }, description: "(lat, lon)" },
        options: { type: "dict", properties: { verbose: { type: "boolean", optional: true, default: false } } },
        data: { type: "any", description: "anything" },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
        count: { type: "integer", maximum: 400 },
      },
      required: ["point"],
    };
    const copy = structuredClone(input);
    expect(bfclToJsonSchema(input)).toEqual({
      type: "object",
      properties: {
        point: { type: "array", items: { type: "number" }, description: "(lat, lon)" },
        options: { type: "object", properties: { verbose: { type: "boolean", default: false } } },
        data: { description: "anything" },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
        count: { type: "integer", maximum: 400 },
      },
      required: ["point"],
    });
    expect(input).toEqual(copy); // pure
  });

  it("maps type lists, and a list holding `any` means any value", () => {
    expect(bfclToJsonSchema({ type: ["float", "dict"] })).toEqual({ type: ["number", "object"] });
    expect(bfclToJsonSchema({ type: ["string", "any"] })).toEqual({});
  });

  it("converts subschemas under anyOf / additionalProperties and returns {} for a non-object", () => {
    expect(
      bfclToJsonSchema({ anyOf: [{ type: "float" }, { type: "dict", additionalProperties: { type: "tuple" } }] }),
    ).toEqual({
      anyOf: [{ type: "number" }, { type: "object", additionalProperties: { type: "array" } }],
    });
    expect(bfclToJsonSchema(null)).toEqual({});
    expect(bfclToJsonSchema("dict")).toEqual({});
  });
});
