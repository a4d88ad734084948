import { isPlainObject } from "../../is-plain-object.js";
import type { JsonSchema } from "../../json-schema.js";

/** BFCL's Python-flavoured type names and the JSON Schema types they mean. `any` has no type: any value. */
const PYTHON_TYPES: Readonly<Record<string, string | null>> = Object.freeze({
  dict: "object",
  float: "number",
  tuple: "array",
  any: null,
});

/** Keywords BFCL adds that are not JSON Schema (`optional: true` duplicates what `required` already says). */
const NON_SCHEMA_KEYS = new Set(["optional"]);

/** Keywords whose value is one subschema, or a map/list of subschemas, to convert recursively. */
const SUBSCHEMA_KEYS = new Set(["items", "additionalProperties", "not", "contains", "propertyNames"]);
const SUBSCHEMA_MAP_KEYS = new Set(["properties", "$defs", "definitions", "patternProperties"]);
const SUBSCHEMA_LIST_KEYS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);

function mapType(type: unknown): unknown {
  if (typeof type === "string") return Object.hasOwn(PYTHON_TYPES, type) ? PYTHON_TYPES[type] : type;
  if (Array.isArray(type)) {
    const mapped = type.map(mapType);
    return mapped.includes(null) ? null : [...new Set(mapped)];
  }
  return type;
}

function convert(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (NON_SCHEMA_KEYS.has(key)) continue;
    if (key === "type") {
      const type = mapType(value);
      if (type !== null) out.type = type;
    } else if (SUBSCHEMA_KEYS.has(key)) out[key] = convert(value);
    else if (SUBSCHEMA_MAP_KEYS.has(key) && typeof value === "object" && value !== null) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, convert(sub)]));
    } else if (SUBSCHEMA_LIST_KEYS.has(key) && Array.isArray(value)) out[key] = value.map(convert);
    else out[key] = value;
  }
  return out;
}

/**
 * Turn a BFCL function's `parameters` (JSON-Schema-like, Python-flavoured) into JSON Schema: `dict` → `object`,
 * `float` → `number`, `tuple` → `array`, `any` → no type (any value), at every depth; BFCL's non-standard `optional`
 * flag is dropped (`required` already says it). Everything else is kept as is. Pure: the input is not modified.
 */
export function bfclToJsonSchema(parameters: unknown): JsonSchema {
  const converted = convert(parameters);
  return isPlainObject(converted) ? converted : {};
}
