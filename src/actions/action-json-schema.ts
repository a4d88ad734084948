import { callReferencePattern, MAX_REFERENCEABLE_CALLS } from "../call-reference-pattern.js";
import { DEFAULT_THOUGHT_PLACEMENT, MAX_CALLS_PER_ACTION } from "../defaults.js";
import type { JsonSchema } from "../json-schema.js";
import type { ThoughtPlacement } from "./action.js";
import type { Registry } from "../skills/registry.js";

/** How the action grammar is shaped; see {@link buildActionJsonSchema}. */
export interface ActionSchemaOptions {
  /** Add the `calls` branch (several calls in one reply). */
  parallelCalls?: boolean;
  /** Default "first". */
  thought?: ThoughtPlacement;
  /** Longest thought, in characters; undefined or 0: unbounded. */
  maxThoughtChars?: number;
  /** Longest final answer, in characters; undefined or 0: unbounded. */
  maxAnswerChars?: number;
  /** Only the final-answer branch: a final round, where the loop takes no more calls. */
  answerOnly?: boolean;
  /**
   * The JSON Schema `final_answer` must match (an agent's output schema): the answer is then that JSON value instead
   * of text (`maxAnswerChars` does not apply), so a constrained model cannot write an answer that does not conform.
   */
  answerSchema?: JsonSchema;
}

const bounded = (max: number | undefined): { maxLength?: number } => (max ? { maxLength: max } : {});

/** The object of one action: `thought` where the placement puts it (optional), then the action's own fields. */
function actionObject(
  fields: Record<string, JsonSchema>,
  required: string[],
  options: ActionSchemaOptions,
): JsonSchema {
  const placement = options.thought ?? DEFAULT_THOUGHT_PLACEMENT;
  const thought = { thought: { type: "string", ...bounded(options.maxThoughtChars) } };
  const properties =
    placement === "first" ? { ...thought, ...fields } : placement === "last" ? { ...fields, ...thought } : fields;
  return { type: "object", properties, required, additionalProperties: false };
}

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
  return {
    ...schema,
    properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, { anyOf: [v, ref] }])),
  };
}

/** A call's schema: a one-call action (with its thought), or the `earlierCalls`-th item of a `calls` list. */
function callBranch(
  registry: Registry,
  name: string,
  position: { action: ActionSchemaOptions } | { earlierCalls: number },
): JsonSchema {
  const args = registry.jsonSchema(name);
  if ("action" in position)
    return actionObject({ skill_name: { const: name }, arguments: args }, ["skill_name", "arguments"], position.action);
  return {
    type: "object",
    properties: { skill_name: { const: name }, arguments: withReferences(args, position.earlierCalls) },
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
    maxItems: MAX_CALLS_PER_ACTION,
    prefixItems: Array.from({ length: MAX_REFERENCEABLE_CALLS + 1 }, (_, k) => item(k)),
    items: item(MAX_REFERENCEABLE_CALLS),
  };
}

/**
 * The JSON Schema of every action the model may write with this registry: one branch per skill (`skill_name` fixed
 * to that skill, `arguments` following its own schema), a final-answer branch (non-blank), and, with
 * `parallelCalls`, a `calls` branch; `answerOnly` keeps only the final answer. A loader compiles it to a grammar, so
 * a constrained model cannot name an unknown skill or write arguments of the wrong shape (nor, with `answerSchema`, an
 * answer that does not match it). `thought` is placed and
 * bounded per the options (bounds keep a small model's repeating thought from eating the step's tokens).
 */
export function buildActionJsonSchema(registry: Registry, options: ActionSchemaOptions = {}): JsonSchema {
  const names = options.answerOnly ? [] : registry.names();
  const branches: JsonSchema[] = names.map((name) => callBranch(registry, name, { action: options }));
  if (options.parallelCalls && names.length > 0)
    branches.push(actionObject({ calls: callsList(registry, names) }, ["calls"], options));
  const answer: JsonSchema = options.answerSchema ?? {
    type: "string",
    minLength: 1,
    pattern: "\\S",
    ...bounded(options.maxAnswerChars),
  };
  branches.push(actionObject({ final_answer: answer }, ["final_answer"], options));
  return { anyOf: branches };
}
