import { isPlainObject } from "../is-plain-object.js";
import type { JsonSchema } from "../json-schema.js";
import { renderPrompt } from "../prompt-texts.js";
import { schemaTypeText } from "./skill-signature.js";

/** The allowed values of a parameter, when its schema (or its items' schema) lists them. */
function allowedValues(schema: Record<string, unknown>): string | undefined {
  const source = Array.isArray(schema.enum)
    ? schema.enum
    : isPlainObject(schema.items) && Array.isArray(schema.items.enum)
      ? schema.items.enum
      : undefined;
  return source?.map((value) => JSON.stringify(value)).join(", ");
}

/** One parameter as a line: `- name (type, required): description Allowed values: ... Default: ...`. */
function parameterLine(name: string, schema: unknown, required: boolean): string {
  const s = isPlainObject(schema) ? schema : {};
  const allowed = allowedValues(s);
  // the type without its enum: the allowed values get a sentence of their own
  const items = isPlainObject(s.items) ? { ...s.items, enum: undefined } : s.items;
  const type = schemaTypeText({ ...s, enum: undefined, items });
  let description = typeof s.description === "string" ? s.description.trim() : "";
  if (description !== "" && !/[.!?]$/.test(description)) description += ".";
  return renderPrompt(required ? "param-required" : "param-optional", {
    name,
    type: type === "any" ? "any value" : type,
    description: description === "" ? "" : ` ${description}`,
    allowed: allowed === undefined ? "" : ` ${renderPrompt("param-allowed", { values: allowed })}`,
    default: Object.hasOwn(s, "default")
      ? ` ${renderPrompt("param-default", { value: JSON.stringify(s.default) })}`
      : "",
  });
}

/**
 * A skill's arguments as one line per parameter: its name, type, whether it is required, its description, its allowed
 * values (the schema's `enum`) and its default, the text of prompts/param-*.md. The per-parameter detail that took a
 * 0.5B model from 51.5% to 74.3% on BFCL simple_python with constrained decoding (issue 26, item 7); the JSON Schema
 * carries the same facts, but a small model reads a list more easily than nested JSON. An empty list for a skill
 * without parameters.
 */
export function parameterDetails(schema: JsonSchema): string[] {
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  return Object.entries(properties).map(([name, value]) => parameterLine(name, value, required.has(name)));
}
