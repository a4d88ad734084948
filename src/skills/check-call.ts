import { z } from "zod";
import { renderPrompt } from "../prompt-texts.js";
import type { Registry } from "./registry.js";
import type { SkillCall } from "./skill-call.js";
import type { Skill } from "./skill.js";

/** Arguments that passed the skill's schema: the schema's parsed values (defaults filled in), what the skill gets. */
export type ValidArguments = { ok: true; validated: Record<string, unknown> };
/** Arguments the skill's schema refused; `detail` is zod's readable list of what is wrong. */
export type InvalidArguments = { ok: false; problem: "invalid_arguments"; detail: string };
/** The registry (or the scoped view of it) holds no skill of that name. */
export type UnknownSkill = { ok: false; problem: "unknown_skill" };

/**
 * What the check before a call says: the skill and its validated arguments, or why the call cannot run. Every layer
 * asks it (parsing a reply, dispatching an action, running a skill directly) and words the refusal its own way.
 */
export type CallCheck = ({ skill: Skill } & ValidArguments) | UnknownSkill | InvalidArguments;

/** The skill of that name, looked up with `Object.hasOwn` semantics (see {@link Registry.get}). */
export function checkSkillName(registry: Registry, skillName: string): { ok: true; skill: Skill } | UnknownSkill {
  const skill = registry.get(skillName);
  return skill ? { ok: true, skill } : { ok: false, problem: "unknown_skill" };
}

/** Check arguments against the skill's zod schema. */
export function checkArguments(skill: Skill, args: unknown): ValidArguments | InvalidArguments {
  const parsed = skill.parameters.safeParse(args);
  if (parsed.success) return { ok: true, validated: parsed.data as Record<string, unknown> };
  return { ok: false, problem: "invalid_arguments", detail: z.prettifyError(parsed.error) };
}

/** The check before a call runs: the skill must be in the registry and the arguments must pass its schema. */
export function checkCall(registry: Registry, call: SkillCall): CallCheck {
  const named = checkSkillName(registry, call.skillName);
  if (!named.ok) return named;
  const args = checkArguments(named.skill, call.arguments);
  return args.ok ? { ...args, skill: named.skill } : args;
}

/**
 * A refused call as a tool error: the guard that refused it (`scope` for an unknown skill, `arguments` for invalid
 * ones) and the message the model reads (prompts/tool-errors/).
 */
export function callRefusal(
  call: SkillCall,
  check: UnknownSkill | InvalidArguments,
): { guard: "scope" | "arguments"; message: string } {
  return check.problem === "unknown_skill"
    ? { guard: "scope", message: renderPrompt("tool-errors/unknown-skill", { skill_name: call.skillName }) }
    : { guard: "arguments", message: renderPrompt("tool-errors/invalid-arguments", { detail: check.detail }) };
}
