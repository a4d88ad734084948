import { z } from "zod";
import type { JsonSchema } from "../json-schema.js";

/** What a skill's `run` receives besides its arguments. */
export interface SkillContext {
  /** Aborts when the run is aborted or the skill's timeout passes; long skills must honour it. */
  signal: AbortSignal;
  /** The run's state, read-only (a skill must not steer the loop through it). */
  state: Readonly<SkillRunState>;
  /** Nesting depth of the calling agent: 0 at the top (see agentAsSkill); absent means 0. */
  depth?: number;
  /** Passes events of a nested run up to the calling agent's stream (set by the agent loop). */
  forward?: (event: { type: string; depth?: number }) => void;
}

/** The part of the run's state a skill may read. */
export interface SkillRunState {
  query: string;
  iterations: number;
}

/** A tool the model may call: a name, a description for the prompt, a zod schema for its arguments, and `run`. */
export interface Skill<Args extends Record<string, unknown> = any, Result = unknown> {
  readonly name: string;
  readonly description: string;
  readonly parameters: z.ZodType<Args>;
  run(args: Args, ctx: SkillContext): Result | Promise<Result>;
  /** Per-skill timeout in ms; default: the dispatcher's (30 s). */
  readonly timeoutMs?: number;
  /**
   * The same arguments may give a different result (a clock, a counter, a live feed): an exact repeat runs again.
   * Default false: an exact repeat of a call that succeeded is answered with the earlier result without running.
   */
  readonly repeatable?: boolean;
}

/** Names a model can write and a grammar can carry: letters, digits, `_`, `-`, `.` (BFCL uses dotted names). */
const SKILL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/**
 * Define a skill. `parameters` must be a zod object schema; the name must be 1-64 characters of letters, digits,
 * `_`, `-`, `.`, starting with a letter or `_`. Throws (a caller bug) otherwise.
 */
export function defineSkill<Shape extends z.ZodRawShape, Result>(definition: {
  name: string;
  description: string;
  parameters: z.ZodObject<Shape>;
  run(args: z.infer<z.ZodObject<Shape>>, ctx: SkillContext): Result | Promise<Result>;
  timeoutMs?: number;
  repeatable?: boolean;
}): Skill<z.infer<z.ZodObject<Shape>>, Result> {
  if (!SKILL_NAME.test(definition.name)) {
    throw new TypeError(
      `defineSkill: invalid skill name ${JSON.stringify(definition.name)} (letters, digits, _ - . ; 1-64 characters)`,
    );
  }
  if (!(definition.parameters instanceof z.ZodObject)) {
    throw new TypeError(`defineSkill(${definition.name}): parameters must be a zod object schema (z.object({...}))`);
  }
  if (typeof definition.run !== "function")
    throw new TypeError(`defineSkill(${definition.name}): run must be a function`);
  if (definition.timeoutMs !== undefined && !(definition.timeoutMs > 0)) {
    throw new TypeError(`defineSkill(${definition.name}): timeoutMs must be a positive number`);
  }
  return Object.freeze({ ...definition }) as Skill<z.infer<z.ZodObject<Shape>>, Result>;
}

/** A skill's arguments as JSON Schema (what the prompt documents and the grammar enforces). */
export function skillJsonSchema(skill: Skill): JsonSchema {
  const schema = z.toJSONSchema(skill.parameters, { unrepresentable: "any", io: "input" }) as JsonSchema;
  delete schema.$schema;
  return schema;
}
