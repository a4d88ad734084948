import { resolve } from "node:path";
import { z } from "zod";
import { MAX_DEFINITION_FILE_BYTES } from "../defaults.js";
import { isPlainObject } from "../is-plain-object.js";
import type { JsonSchema } from "../json-schema.js";
import { readRegularText } from "../regular-file.js";
import { AgentDefinitionError } from "./definition-error.js";
import { outputSchemaProblem } from "./output-schema-checks.js";

/** A JSON Schema that zod can check answers against (z.fromJSONSchema), or why not. */
function checkSchema(schema: JsonSchema): string | undefined {
  const problem = outputSchemaProblem(schema);
  if (problem !== undefined) return problem;
  try {
    z.fromJSONSchema(schema);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * A definition's `output_schema`: `{ file: PATH }` (a JSON file, relative to the definition) or an inline JSON Schema.
 * Either must be a JSON Schema the answer can be checked against; errors name the definition, the field and the file.
 */
export function readOutputSchema(
  value: Record<string, unknown>,
  where: { path: string; display: string; dir: string },
): { schema: JsonSchema; file?: string } {
  const keys = Object.keys(value);
  let schema: unknown = value;
  let file: string | undefined;
  if (keys.length === 1 && keys[0] === "file") {
    if (typeof value.file !== "string" || value.file === "")
      throw new AgentDefinitionError(
        "invalid",
        `${where.display}: output_schema.file: expected a path`,
        where.path,
        "output_schema.file",
      );
    file = resolve(where.dir, value.file);
    try {
      schema = JSON.parse(readRegularText(file, MAX_DEFINITION_FILE_BYTES, "an output schema"));
    } catch (error) {
      throw new AgentDefinitionError(
        "output_schema",
        `${where.display}: output_schema.file: cannot read a JSON Schema from ${value.file} (${(error as Error).message})`,
        where.path,
        "output_schema.file",
      );
    }
  }
  const field = file ? "output_schema.file" : "output_schema";
  const problem = isPlainObject(schema) ? checkSchema(schema) : "not a JSON object";
  if (problem !== undefined)
    throw new AgentDefinitionError(
      "output_schema",
      `${where.display}: ${field}: not a usable JSON Schema (${problem})`,
      where.path,
      field,
    );
  return { schema: schema as JsonSchema, file };
}
