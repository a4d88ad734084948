import { callReferencePattern, MAX_REFERENCEABLE_CALLS } from "../call-reference-pattern.js";
import type { JsonSchema } from "../model/model-handle.js";
import type { Registry } from "../skills/registry.js";

/** A string with at least one non-blank character: an empty final answer cannot be written under the grammar. */
const NON_BLANK_STRING: JsonSchema = { type: "string", minLength: 1, pattern: "\\S" };
const THOUGHT: JsonSchema = { type: "string" };

/**
 * `{"$ref": "calls[N].result..."}`: an argument taken from an earlier call's result (parallel calls only), N one of
 * the `earlierCalls` calls before this one, so a constrained model cannot write a forward, self or malformed reference.
 */
function reference(earlierCalls: number): JsonSchema {
  return {
    type: "object",
    properties: { $ref: { type: "string", pattern: callReferencePattern(earlierCalls) } },
    required: ["$ref"],
    additionalProperties: false,
  };
}

/** The skill's argument schema with each top-level argument also allowed to be a reference to an earlier call. */
function withReferences(schema: JsonSchema, earlierCalls: number): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (!properties || earlierCalls === 0) return schema;
  const ref = reference(earlierCalls);
  return { ...schema, properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, { anyOf: [v, ref] }])) };
}

/** A call's schema: with a thought (a one-call action), or as the `earlierCalls`-th item of a `calls` list. */
function callBranch(registry: Registry, name: string, position: { withThought: true } | { earlierCalls: number }): JsonSchema {
  const args = registry.jsonSchema(name);
  const withThought = "withThought" in position;
  return {
    type: "object",
    properties: { ...(withThought && { thought: THOUGHT }), skill_name: { const: name }, arguments: withThought ? args : withReferences(args, position.earlierCalls) },
    required: ["skill_name", "arguments"],
    additionalProperties: false,
  };
}

/**
 * The `calls` list: item k may reference calls 0..k-1 (the first none); items past MAX_REFERENCEABLE_CALLS may
 * reference the first MAX_REFERENCEABLE_CALLS.
 */
function callsList(registry: Registry, names: readonly string[]): JsonSchema {
  const item = (earlierCalls: number) => ({ anyOf: names.map((name) => callBranch(registry, name, { earlierCalls })) });
  return {
    type: "array",
    minItems: 1,
    prefixItems: Array.from({ length: MAX_REFERENCEABLE_CALLS + 1 }, (_, k) => item(k)),
    items: item(MAX_REFERENCEABLE_CALLS),
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
  const branches: JsonSchema[] = names.map((name) => callBranch(registry, name, { withThought: true }));
  if (options.parallelCalls && names.length > 0) {
    branches.push({
      type: "object",
      properties: {
        thought: THOUGHT,
        calls: callsList(registry, names),
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
