import { z } from "zod";
import { testRegexOnAll } from "../bounded-regex.js";
import { USER_REGEX_TIMEOUT_MS } from "../defaults.js";
import type { JsonSchema } from "../json-schema.js";
import { isPlainObject } from "../is-plain-object.js";
import { renderPrompt } from "../prompt-texts.js";
import type { RefusedReply } from "./action.js";
import { extractJsonObject } from "./extract-json.js";

/** The validator name of every structured-output failure (a workflow's `ctx.ask` with a schema). */
export const STRUCTURED_OUTPUT = "structured_output";

/** What a structured model call must return: a zod schema, or a JSON Schema document. */
export type OutputSchema = z.ZodType | JsonSchema;

/** An output schema made ready for the grammar, the prompt and validation (see {@link resolveOutputSchema}). */
export interface ResolvedOutputSchema {
  /** What the grammar constrains and the prompt shows: always an object schema. */
  jsonSchema: JsonSchema;
  /** Checks the object read from the reply. */
  validator: z.ZodType;
  /** A schema that is not an object is asked for as `{"value": ...}` (a reply is always one JSON object). */
  wrapped: boolean;
}

/** A zod schema, from this copy of zod or another (duck-typed: `_zod` and `safeParse`). */
function isZodSchema(schema: unknown): schema is z.ZodType {
  return (
    typeof schema === "object" &&
    schema !== null &&
    typeof (schema as { safeParse?: unknown }).safeParse === "function" &&
    typeof (schema as { _zod?: unknown })._zod === "object"
  );
}

function toJsonSchema(schema: z.ZodType): JsonSchema {
  let json: JsonSchema;
  try {
    json = z.toJSONSchema(schema, { io: "input" }) as JsonSchema;
  } catch (error) {
    throw new TypeError(`output schema: ${(error as Error).message} (use JSON-representable types)`);
  }
  delete json.$schema;
  return json;
}

function fromJsonSchema(schema: JsonSchema): z.ZodType {
  try {
    return z.fromJSONSchema(schema);
  } catch (error) {
    throw new TypeError(`output schema: not a usable JSON Schema: ${(error as Error).message}`);
  }
}

/** The regular expressions of a JSON Schema that zod's converted validator will run, walked without recursion. */
function schemaPatterns(schema: JsonSchema): string[] {
  const found = new Set<string>();
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) stack.push(...value);
    else if (isPlainObject(value)) {
      if (typeof value.pattern === "string") found.add(value.pattern);
      if (isPlainObject(value.patternProperties))
        for (const key of Object.keys(value.patternProperties)) found.add(key);
      for (const [key, inner] of Object.entries(value)) if (key !== "const" && key !== "enum") stack.push(inner);
    }
  }
  return [...found];
}

/** Every string of a value: string values and object keys, walked without recursion. */
function stringsOf(value: unknown): string[] {
  const texts: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === "string") texts.push(item);
    else if (Array.isArray(item)) stack.push(...item);
    else if (isPlainObject(item))
      for (const [key, inner] of Object.entries(item)) {
        texts.push(key);
        stack.push(inner);
      }
  }
  return texts;
}

/**
 * The first of the schema's patterns that does not finish on the reply's strings within USER_REGEX_TIMEOUT_MS (for
 * them all), tested in a worker before zod runs the same patterns on this thread: a catastrophic `pattern` costs a
 * refused reply, not a hung run.
 */
function slowPattern(patterns: readonly string[], value: unknown): string | undefined {
  const texts = stringsOf(value);
  const deadline = Date.now() + USER_REGEX_TIMEOUT_MS;
  return patterns.find(
    (pattern) => testRegexOnAll(pattern, "", texts, Math.max(1, deadline - Date.now())) === "timeout",
  );
}

/**
 * A JSON Schema's validator whose patterns are first tried in a worker (see slowPattern): a value on which one runs
 * past the bound is a validation issue, and zod's own check (which would run the pattern on this thread) never starts.
 */
function boundedPatterns(validator: z.ZodType, patterns: readonly string[]): z.ZodType {
  if (patterns.length === 0) return validator;
  return z
    .unknown()
    .superRefine((value, ctx) => {
      const slow = slowPattern(patterns, value);
      if (slow !== undefined)
        ctx.addIssue({
          code: "custom",
          message: `checking the strings against the pattern ${JSON.stringify(slow)} took over ${USER_REGEX_TIMEOUT_MS} ms`,
        });
    })
    .pipe(validator);
}

const resolved = new WeakMap<object, ResolvedOutputSchema>();

/**
 * The grammar's JSON Schema and the validator of an output schema, computed once per schema object. A zod schema is
 * converted to JSON Schema (its refinements still run at validation); a JSON Schema is converted to zod for
 * validation. A schema whose top level is not an object (an enum, a string, an array) is asked for wrapped as
 * `{"value": ...}` and unwrapped by {@link parseStructured}. Throws TypeError for a schema that is neither (a caller bug).
 */
export function resolveOutputSchema(schema: OutputSchema): ResolvedOutputSchema {
  const cached = resolved.get(schema);
  if (cached) return cached;
  const zod = isZodSchema(schema);
  if (!zod && !isPlainObject(schema)) throw new TypeError("output schema: give a zod schema or a JSON Schema object");
  const json = zod ? toJsonSchema(schema) : structuredClone(schema);
  const wrapped = json.type !== "object";
  const jsonSchema: JsonSchema = wrapped
    ? { type: "object", properties: { value: json }, required: ["value"], additionalProperties: false }
    : json;
  let validator: z.ZodType;
  if (zod) validator = wrapped ? z.object({ value: schema }) : schema;
  else validator = boundedPatterns(fromJsonSchema(jsonSchema), schemaPatterns(jsonSchema));
  const result = { jsonSchema, validator, wrapped };
  resolved.set(schema, result);
  return result;
}

/** What a structured reply came to: its value, or the refusal whose feedback tells the model what to fix. */
export type StructuredReply = { ok: true; value: unknown; repaired: boolean } | { ok: false; refused: RefusedReply };

function refuse(raw: string, errorType: RefusedReply["errorType"], feedback: string): StructuredReply {
  return {
    ok: false,
    refused: { type: "validation-error", validatorName: STRUCTURED_OUTPUT, errorType, feedback, raw },
  };
}

/**
 * Read a structured reply through the same pipeline as actions: the one JSON object (fences and prose dropped, size and
 * depth guarded, jsonrepair), then the schema's zod check. Pure and total: never throws; a failure is a refusal with
 * feedback (`json_syntax` or `schema_mismatch`).
 */
export function parseStructured(raw: string, schema: ResolvedOutputSchema): StructuredReply {
  const text = typeof raw === "string" ? raw : String(raw);
  const extracted = extractJsonObject(text);
  if (!extracted.ok)
    return refuse(text, "json_syntax", renderPrompt("feedback/json-syntax", { detail: extracted.detail }));
  const checked = schema.validator.safeParse(extracted.value);
  if (!checked.success) {
    const feedback = renderPrompt("feedback/schema-mismatch", {
      detail: z.prettifyError(checked.error),
      schema: JSON.stringify(schema.jsonSchema),
    });
    return refuse(text, "schema_mismatch", feedback);
  }
  const value = schema.wrapped ? (checked.data as { value: unknown }).value : checked.data;
  return { ok: true, value, repaired: extracted.repaired };
}
