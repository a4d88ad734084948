/**
 * A skill's JSON Schema (what `registry.jsonSchema(name)` gives: zod's `toJSONSchema` of the skill's parameters) as
 * node-llama-cpp's `GbnfJsonSchema`, the subset its function calling compiles to a grammar.
 *
 * What node-llama-cpp reads: `type` (one, or a list of the scalar types), `properties`, `additionalProperties`,
 * `minProperties` / `maxProperties`, `items`, `prefixItems`, `minItems` / `maxItems`, `minLength` / `maxLength`,
 * `format` (date-time, time, date only), `enum` and `const` (scalars), `oneOf`, `$ref` / `$defs`, `description`.
 * Everything else is dropped here and reported (`pattern`, `minimum` / `maximum`, `default`, other formats...): the
 * grammar is then looser than the schema, and the handler's zod validation refuses what the grammar let through.
 *
 * Two differences the conversion cannot remove, both node-llama-cpp's own behaviour:
 * - every property listed in `properties` is written: its grammar makes them all required (`required` is ignored),
 *   so optional parameters are always filled in;
 * - a schema with no type ("any", `{}`) would be compiled to `null` only: it becomes a `oneOf` of every JSON type.
 */
import type { GbnfJsonSchema } from "node-llama-cpp";

type Json = Record<string, unknown>;

const SCALARS = new Set(["string", "number", "integer", "boolean", "null"]);
const FORMATS = new Set(["date-time", "time", "date"]);
/** Keywords that carry no constraint node-llama-cpp could use, dropped without a note. */
const SILENT = new Set(["$schema", "title", "examples", "$id", "$comment", "readOnly", "writeOnly", "deprecated"]);

/** Any JSON value, in the subset: scalars, any array, any object. */
export const ANY_JSON: GbnfJsonSchema = {
  oneOf: [
    { type: ["string", "number", "boolean", "null"] },
    { type: "array" },
    { type: "object", additionalProperties: true },
  ],
};

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isScalar = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);

/** The conversion, and the JSON Schema keywords it dropped (for the report's limits). */
export interface PeerSchema {
  schema: GbnfJsonSchema;
  dropped: string[];
}

/** Convert one skill's argument schema; never throws (what cannot be carried becomes looser, and is reported). */
export function toGbnfJsonSchema(input: unknown): PeerSchema {
  const dropped = new Set<string>();
  const schema = convert(input, dropped);
  return { schema, dropped: [...dropped].sort() };
}

function withDescription(schema: GbnfJsonSchema, source: Json): GbnfJsonSchema {
  return typeof source.description === "string" && source.description !== ""
    ? ({ ...schema, description: source.description } as GbnfJsonSchema)
    : schema;
}

function noteDropped(source: Json, used: readonly string[], dropped: Set<string>): void {
  for (const key of Object.keys(source))
    if (!used.includes(key) && !SILENT.has(key) && key !== "description") dropped.add(key);
}

function convert(input: unknown, dropped: Set<string>): GbnfJsonSchema {
  if (input === true || !isObject(input)) return ANY_JSON;
  const s = input;
  if (typeof s.$ref === "string") {
    noteDropped(s, ["$ref", "$defs"], dropped);
    if (!s.$ref.startsWith("#/$defs/")) {
      dropped.add(`$ref ${s.$ref}`);
      return withDescription(ANY_JSON, s);
    }
    return withDescription(
      { $ref: s.$ref, ...(isObject(s.$defs) && { $defs: convertDefs(s.$defs, dropped) }) } as unknown as GbnfJsonSchema,
      s,
    );
  }
  const alternatives = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined;
  if (alternatives) {
    noteDropped(s, ["anyOf", "oneOf", "$defs"], dropped);
    return withDescription(
      {
        oneOf: alternatives.map((a) => convert(a, dropped)),
        ...(isObject(s.$defs) && { $defs: convertDefs(s.$defs, dropped) }),
      } as GbnfJsonSchema,
      s,
    );
  }
  if (Array.isArray(s.allOf)) {
    if (s.allOf.length === 1) return convert({ ...s, allOf: undefined, ...(s.allOf[0] as Json) }, dropped);
    dropped.add("allOf");
    return withDescription(ANY_JSON, s);
  }
  if ("const" in s) {
    noteDropped(s, ["const", "type"], dropped);
    if (isScalar(s.const)) return withDescription({ const: s.const as string | number | boolean | null }, s);
    dropped.add("const (not a scalar)");
    return withDescription(ANY_JSON, s);
  }
  if (Array.isArray(s.enum)) {
    noteDropped(s, ["enum", "type"], dropped);
    if (s.enum.every(isScalar)) return withDescription({ enum: s.enum as (string | number | boolean | null)[] }, s);
    dropped.add("enum (not scalars)");
    return withDescription(ANY_JSON, s);
  }
  let type = s.type;
  if (type === undefined)
    type =
      isObject(s.properties) || s.additionalProperties !== undefined
        ? "object"
        : s.items !== undefined || s.prefixItems !== undefined
          ? "array"
          : undefined;
  if (type === undefined) {
    noteDropped(s, [], dropped);
    return withDescription(ANY_JSON, s);
  }
  if (Array.isArray(type)) {
    if (type.every((t) => typeof t === "string" && SCALARS.has(t)) && !type.includes("string")) {
      noteDropped(s, ["type"], dropped);
      return withDescription({ type: type as ("number" | "integer" | "boolean" | "null")[] }, s);
    }
    return withDescription({ oneOf: type.map((t) => convert({ ...s, type: t, description: undefined }, dropped)) }, s);
  }
  switch (type) {
    case "object": {
      noteDropped(
        s,
        ["type", "properties", "required", "additionalProperties", "minProperties", "maxProperties"],
        dropped,
      );
      const properties = isObject(s.properties)
        ? Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, convert(v, dropped)]))
        : undefined;
      const additional = s.additionalProperties;
      const extra =
        additional === true || (isObject(additional) && Object.keys(additional).length === 0)
          ? true
          : isObject(additional)
            ? convert(additional, dropped)
            : undefined;
      // Only what a property list says is required: node-llama-cpp writes every listed property anyway.
      const required = Array.isArray(s.required)
        ? s.required.filter((k): k is string => typeof k === "string" && properties !== undefined && k in properties)
        : undefined;
      return withDescription(
        {
          type: "object",
          ...(properties && { properties }),
          ...(required && required.length > 0 && { required }),
          ...(extra !== undefined && { additionalProperties: extra }),
          ...(typeof s.minProperties === "number" && { minProperties: s.minProperties }),
          ...(typeof s.maxProperties === "number" && { maxProperties: s.maxProperties }),
          ...(properties === undefined && extra === undefined && { additionalProperties: true }),
        } as GbnfJsonSchema,
        s,
      );
    }
    case "array": {
      noteDropped(s, ["type", "items", "prefixItems", "minItems", "maxItems"], dropped);
      return withDescription(
        {
          type: "array",
          ...(s.items !== undefined && s.items !== true && { items: convert(s.items, dropped) }),
          ...(Array.isArray(s.prefixItems) && { prefixItems: s.prefixItems.map((i) => convert(i, dropped)) }),
          ...(typeof s.minItems === "number" && { minItems: s.minItems }),
          ...(typeof s.maxItems === "number" && { maxItems: s.maxItems }),
        } as GbnfJsonSchema,
        s,
      );
    }
    case "string": {
      if (typeof s.format === "string" && FORMATS.has(s.format)) {
        noteDropped(s, ["type", "format"], dropped);
        return withDescription({ type: "string", format: s.format as "date-time" | "time" | "date" }, s);
      }
      noteDropped(s, ["type", "minLength", "maxLength"], dropped);
      return withDescription(
        {
          type: "string",
          ...(typeof s.minLength === "number" && { minLength: s.minLength }),
          ...(typeof s.maxLength === "number" && { maxLength: s.maxLength }),
        },
        s,
      );
    }
    case "number":
    case "integer":
    case "boolean":
    case "null":
      noteDropped(s, ["type"], dropped);
      return withDescription({ type: type as "number" | "integer" | "boolean" | "null" }, s);
    default:
      dropped.add(`type ${String(type)}`);
      return withDescription(ANY_JSON, s);
  }
}

function convertDefs(defs: Json, dropped: Set<string>): Record<string, GbnfJsonSchema> {
  return Object.fromEntries(Object.entries(defs).map(([k, v]) => [k, convert(v, dropped)]));
}
