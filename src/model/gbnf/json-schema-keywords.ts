import { CodedError } from "../../coded-error.js";
import type { JsonSchema } from "../../json-schema.js";

/**
 * Why a schema has no grammar: `unsatisfiable` (no value matches it: `false`, contradictory bounds, an `allOf` of
 * parts that exclude each other), `malformed` (a keyword of the wrong shape, or a `$ref` cycle that reads no
 * character), `unknown_type` (a `type` JSON Schema does not have), `unresolved_ref` (a `$ref` outside "#",
 * "#/$defs/..." and "#/definitions/..."). Stable: callers switch on it.
 */
export type JsonSchemaGrammarErrorCode = "unsatisfiable" | "malformed" | "unknown_type" | "unresolved_ref";

/** A JSON Schema the grammar compiler cannot turn into GBNF (a caller bug: fix the schema). */
export class JsonSchemaGrammarError extends CodedError<JsonSchemaGrammarErrorCode> {
  override readonly name = "JsonSchemaGrammarError";
}

/** A schema as the compiler meets it: an object, or `true` (anything) / `false` (nothing). */
export type Schema = JsonSchema | boolean;

const KNOWN_TYPES = new Set(["string", "number", "integer", "boolean", "null", "object", "array"]);

/** Keywords that say nothing about which values are valid. */
export const ANNOTATIONS = new Set([
  "description",
  "title",
  "default",
  "examples",
  "$schema",
  "$id",
  "$comment",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$defs",
  "definitions",
]);

/** Whether `value` is a schema object (not an array, not null). */
export function isObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The schema's own keyword `key` (never one inherited through the prototype). */
export function own<T = unknown>(schema: JsonSchema, key: string): T | undefined {
  return Object.hasOwn(schema, key) ? (schema[key] as T) : undefined;
}

/** `value` when it is a finite number, else undefined. */
export function finiteNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** The type a schema without `type` implies from its keywords (`properties` → object, ...); undefined: any value. */
function impliedType(schema: JsonSchema): string | undefined {
  if (["properties", "required", "additionalProperties"].some((k) => Object.hasOwn(schema, k))) return "object";
  if (["items", "prefixItems", "minItems", "maxItems"].some((k) => Object.hasOwn(schema, k))) return "array";
  if (["minLength", "maxLength", "pattern"].some((k) => Object.hasOwn(schema, k))) return "string";
  if (["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"].some((k) => Object.hasOwn(schema, k)))
    return "number";
  return undefined;
}

/**
 * The distinct types a schema allows (`type`, a type array, or what its keywords imply; `nullable` adds "null");
 * undefined when it says nothing (any value). Throws JsonSchemaGrammarError for a malformed or unknown type.
 */
export function schemaTypes(schema: JsonSchema, hint: string): string[] | undefined {
  const declared = own(schema, "type");
  let types: string[] | undefined;
  if (typeof declared === "string") types = [declared];
  else if (Array.isArray(declared)) types = declared.map(String);
  else if (declared !== undefined)
    throw new JsonSchemaGrammarError(
      "malformed",
      `jsonSchemaToGbnf: "type" at "${hint}" must be a string or an array of strings`,
    );
  else {
    const implied = impliedType(schema);
    types = implied === undefined ? undefined : [implied];
  }
  if (types === undefined) return undefined;
  for (const type of types) {
    if (!KNOWN_TYPES.has(type))
      throw new JsonSchemaGrammarError(
        "unknown_type",
        `jsonSchemaToGbnf: unknown type "${type}" at "${hint}" (map Python-style types first, e.g. bfclToJsonSchema)`,
      );
  }
  if (schema.nullable === true && !types.includes("null")) types = [...types, "null"];
  return [...new Set(types)];
}

/** Shallow merge for `allOf`: properties merged, `required` united, other keywords from the later part win. */
export function mergeSchemas(a: JsonSchema, b: Schema, hint: string): JsonSchema {
  if (b === true) return a;
  if (b === false || !isObject(b))
    throw new JsonSchemaGrammarError(
      "unsatisfiable",
      `jsonSchemaToGbnf: "allOf" at "${hint}" holds a schema no value matches`,
    );
  const merged: JsonSchema = { ...a, ...b };
  const pa = own<JsonSchema>(a, "properties");
  const pb = own<JsonSchema>(b, "properties");
  if (pa || pb) merged.properties = { ...pa, ...pb };
  const ra = own<string[]>(a, "required") ?? [];
  const rb = own<string[]>(b, "required") ?? [];
  if (ra.length + rb.length > 0) merged.required = [...new Set([...ra, ...rb])];
  return merged;
}
