import type { JsonSchema } from "../model/model-handle.js";
import type { Registry } from "../skills/registry.js";

/** A string with at least one non-blank character: an empty final answer cannot be written under the grammar. */
const NON_BLANK_STRING: JsonSchema = { type: "string", minLength: 1, pattern: "\\S" };
const THOUGHT: JsonSchema = { type: "string" };

/** `{"$ref": "calls[N].result..."}`: an argument taken from an earlier call's result (parallel calls only). */
const REFERENCE: JsonSchema = {
  type: "object",
  properties: { $ref: { type: "string" } },
  required: ["$ref"],
  additionalProperties: false,
};

/** The skill's argument schema with each top-level argument also allowed to be a reference. */
function withReferences(schema: JsonSchema): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties) return schema;
  return { ...schema, properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, { anyOf: [v, REFERENCE] }])) };
}

function callBranch(registry: Registry, name: string, withThought: boolean): JsonSchema {
  const args = registry.jsonSchema(name);
  return {
    type: "object",
    properties: { ...(withThought && { thought: THOUGHT }), skill_name: { const: name }, arguments: withThought ? args : withReferences(args) },
    required: ["skill_name", "arguments"],
    additionalProperties: false,
  };
}

/**
 * The JSON Schema of every action the model may write with this registry: one branch per skill (`skill_name` fixed
 * to that skill, `arguments` following its own schema), a final-answer branch (non-blank), and, with
 * `parallelCalls`, a `calls` branch. A loader compiles it to a grammar, so a constrained model cannot name an
 * unknown skill or write arguments of the wrong shape. `thought` comes first: the model reasons, then acts.
 */
export function buildActionJsonSchema(registry: Registry, options: { parallelCalls?: boolean } = {}): JsonSchema {
  const names = registry.names();
  const branches: JsonSchema[] = names.map((name) => callBranch(registry, name, true));
  if (options.parallelCalls && names.length > 0) {
    branches.push({
      type: "object",
      properties: {
        thought: THOUGHT,
        calls: { type: "array", minItems: 1, items: { anyOf: names.map((name) => callBranch(registry, name, false)) } },
      },
      required: ["calls"],
      additionalProperties: false,
    });
  }
  branches.push({
    type: "object",
    properties: { thought: THOUGHT, final_answer: NON_BLANK_STRING },
    required: ["final_answer"],
    additionalProperties: false,
  });
  return { anyOf: branches };
}
