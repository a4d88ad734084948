import { z } from "zod";
import { CodedError } from "../../coded-error.js";
import { bfclToJsonSchema } from "./bfcl-json-schema.js";
import { defineSkill, type Skill } from "../../skills/skill.js";
import { Registry } from "../../skills/registry.js";
import type { BfclFunction } from "./bfcl-files.js";

/** What every BFCL skill returns: the harness scores calls, it does not execute them. */
const BFCL_SKILL_RESULT = { status: "recorded", note: "The call was recorded. Answer the user now." } as const;

/**
 * Why a BFCL function is not a skill: `bad_schema` (its parameters do not convert to a zod schema), `not_object`
 * (they are not an object schema), `bad_skill` (the skill itself is refused, as a name the grammar cannot carry),
 * `duplicate` (a question declares the function twice). Stable: callers switch on it.
 */
export type BfclConversionCode = "bad_schema" | "not_object" | "bad_skill" | "duplicate";

/** A BFCL function that could not become a skill (a name the grammar cannot carry, a schema zod cannot read). */
export class BfclConversionError extends CodedError<BfclConversionCode> {
  override readonly name = "BfclConversionError";
  constructor(
    code: BfclConversionCode,
    readonly functionName: string,
    message: string,
  ) {
    super(code, message);
  }
}

/**
 * The JSON Schema of a BFCL function's arguments: `bfclToJsonSchema` of its parameters, with unknown arguments
 * refused at the top level (BFCL's checker fails a call with an unexpected parameter) and a stray object-level
 * `default` dropped (a few irrelevance functions carry one; it is not a value for the arguments).
 */
function bfclParametersSchema(fn: BfclFunction): Record<string, unknown> {
  const schema = { ...bfclToJsonSchema(fn.parameters) };
  delete schema.default;
  if (schema.type === undefined) schema.type = "object";
  if (schema.additionalProperties === undefined) schema.additionalProperties = false;
  if (schema.properties === undefined) schema.properties = {};
  return schema;
}

/** A BFCL function as a skill: its name and description, arguments validated with zod built from its JSON Schema. */
export function bfclSkill(fn: BfclFunction): Skill {
  let parameters: z.ZodType;
  try {
    parameters = z.fromJSONSchema(bfclParametersSchema(fn));
  } catch (error) {
    throw new BfclConversionError(
      "bad_schema",
      fn.name,
      `function ${fn.name}: its parameters do not convert to a schema (${(error as Error).message.split("\n")[0]})`,
    );
  }
  if (!(parameters instanceof z.ZodObject))
    throw new BfclConversionError(
      "not_object",
      fn.name,
      `function ${fn.name}: its parameters are not an object schema`,
    );
  try {
    return defineSkill({
      name: fn.name,
      description: fn.description || fn.name,
      parameters,
      run: () => BFCL_SKILL_RESULT,
    });
  } catch (error) {
    throw new BfclConversionError("bad_skill", fn.name, (error as Error).message);
  }
}

/** The registry of one question's functions; throws BfclConversionError for a function that does not convert. */
export function bfclRegistry(functions: readonly BfclFunction[]): Registry {
  const registry = new Registry();
  for (const fn of functions) {
    const skill = bfclSkill(fn);
    if (registry.has(skill.name))
      throw new BfclConversionError("duplicate", fn.name, `function ${fn.name} is declared twice`);
    registry.register(skill);
  }
  return registry;
}
