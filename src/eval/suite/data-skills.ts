import { z } from "zod";
import { defineSkill, type Skill } from "../../skills/skill.js";
import type { DataSkillDefinition } from "./suite-schema.js";

/** How a lookup key is compared: case and surrounding spaces do not matter. */
function normalizeLookupKey(key: string): string {
  return key.trim().replace(/\s+/g, " ").toLowerCase();
}

function lookupSkill(def: Extract<DataSkillDefinition, { type: "lookup" }>): Skill {
  const entries = new Map(Object.entries(def.table).map(([key, value]) => [normalizeLookupKey(key), value]));
  const keys = Object.keys(def.table);
  return defineSkill({
    name: def.name,
    description: def.description,
    parameters: z.object({
      [def.parameter]: z.string().describe(def.parameterDescription ?? `The ${def.parameter} to look up`),
    }),
    run(args) {
      const key = String(args[def.parameter]);
      const normalized = normalizeLookupKey(key);
      if (!entries.has(normalized)) throw new Error(`no entry for ${JSON.stringify(key)}; known: ${keys.join(", ")}`);
      return entries.get(normalized);
    },
  });
}

const FIXED_TYPES = {
  string: () => z.string(),
  number: () => z.number(),
  integer: () => z.int(),
  boolean: () => z.boolean(),
} as const;

function fixedSkill(def: Extract<DataSkillDefinition, { type: "fixed" }>): Skill {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, p] of Object.entries(def.parameters)) {
    let type: z.ZodType = FIXED_TYPES[p.type]();
    if (p.description) type = type.describe(p.description);
    shape[name] = p.required ? type : type.optional();
  }
  const result = def.result;
  return defineSkill({
    name: def.name,
    description: def.description,
    parameters: z.object(shape),
    run: () => structuredClone(result),
  });
}

/**
 * Turn a suite's data definition into a real skill: a `lookup` takes one string argument and returns the table's
 * entry (an unknown key is a tool error listing the known keys); a `fixed` skill validates its declared arguments and
 * always returns the same result.
 */
export function dataSkill(def: DataSkillDefinition): Skill {
  return def.type === "lookup" ? lookupSkill(def) : fixedSkill(def);
}
