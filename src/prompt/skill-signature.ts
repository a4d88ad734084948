import { isPlainObject } from "../is-plain-object.js";
import type { JsonSchema } from "../json-schema.js";

/** A JSON Schema as a short type: `string`, `number`, `"a"|"b"`, `string[]`, `object`; `any` when it says nothing. */
export function schemaTypeText(schema: unknown): string {
  if (!isPlainObject(schema)) return "any";
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join("|");
  if (Object.hasOwn(schema, "const")) return JSON.stringify(schema.const);
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return union.map(schemaTypeText).join("|");
  const type = schema.type;
  if (Array.isArray(type)) return type.join("|");
  if (type === "array") return `${schemaTypeText(schema.items)}[]`;
  return typeof type === "string" ? type : "any";
}

/**
 * A skill's arguments as one line: `name(expression: string, unit?: "C"|"F")`, `?` marking the optional ones. The
 * compact prompt documents skills this way instead of the full JSON Schema: a third of the tokens for a small model.
 */
export function skillSignature(name: string, schema: JsonSchema): string {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const args = Object.entries(properties).map(
    ([key, value]) => `${key}${required.has(key) ? "" : "?"}: ${schemaTypeText(value)}`,
  );
  return `${name}(${args.join(", ")})`;
}
