import type { JsonSchema } from "../../src/json-schema.js";

/**
 * An action schema with one skill, `find` (its arguments as given, `required` of them required), and the final
 * answer, as buildActionJsonSchema writes it: what the grounding tests ground.
 */
export function findAction(args: Record<string, unknown>, required: string[] = Object.keys(args)): JsonSchema {
  return {
    anyOf: [
      {
        type: "object",
        properties: {
          skill_name: { const: "find" },
          arguments: { type: "object", properties: args, required, additionalProperties: false },
        },
        required: ["skill_name", "arguments"],
        additionalProperties: false,
      },
      {
        type: "object",
        properties: { final_answer: { type: "string", minLength: 1 } },
        required: ["final_answer"],
        additionalProperties: false,
      },
    ],
  };
}
