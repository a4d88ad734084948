import { z } from "zod";
import type { SkillCall } from "../../actions/action.js";
import type { Registry } from "../../skills/registry.js";
import { isPlainObject } from "../../is-plain-object.js";
import type { BfclFunction, BfclGroundTruth } from "./bfcl-files.js";

/** Calls built from a ground truth, or why the ground truth does not fit its own schema. */
export type GroundTruthCalls = { ok: true; calls: SkillCall[] } | { ok: false; reason: string };

function typeOf(schema: unknown): string | undefined {
  const type = isPlainObject(schema) ? schema.type : undefined;
  return typeof type === "string" ? type : undefined;
}

/**
 * An allowed value as a concrete argument. BFCL writes the allowed value of a `dict` parameter as a dict of allowed
 * values per key (`{"min": [300000], "max": [400000]}`), and a list of dicts as a list of such dicts: those become
 * `{min: 300000, max: 400000}`, each key's first allowed value (left out when only `""` is allowed).
 */
function materialize(candidate: unknown, schema: unknown): unknown {
  const type = typeOf(schema);
  if ((type === "dict" || type === "object") && isPlainObject(candidate)) {
    const properties = isPlainObject(schema) && isPlainObject(schema.properties) ? schema.properties : {};
    const out: Record<string, unknown> = {};
    for (const [key, allowed] of Object.entries(candidate)) {
      if (!Array.isArray(allowed)) return candidate;
      const first = allowed.find((v) => v !== "");
      if (first !== undefined) out[key] = materialize(first, properties[key]);
    }
    return out;
  }
  if ((type === "array" || type === "tuple") && Array.isArray(candidate) && isPlainObject(schema)) {
    const itemType = typeOf(schema.items);
    if (itemType === "dict" || itemType === "object") return candidate.map((item) => materialize(item, schema.items));
  }
  return candidate;
}

/**
 * Build, from a question's ground truth, calls that pass the skills' argument schemas: for each parameter the first
 * allowed value the parameter's schema accepts (left out when `""` is allowed and nothing else fits). When no allowed
 * value fits a parameter, the ground truth contradicts its own function schema: the question is a dataset
 * inconsistency, reported by id and kept out of the score. Validation is never loosened to make it pass.
 */
export function groundTruthCalls(
  groundTruth: BfclGroundTruth,
  registry: Registry,
  functions: readonly BfclFunction[],
): GroundTruthCalls {
  const calls: SkillCall[] = [];
  for (const [i, entry] of groundTruth.entries()) {
    const [name] = Object.keys(entry);
    const skill = registry.get(name);
    if (!skill) return { ok: false, reason: `ground_truth[${i}] calls ${name}, which the question does not declare` };
    const shape = (skill.parameters as z.ZodObject).shape as Record<string, z.ZodType>;
    const declared = functions.find((f) => f.name === name)?.parameters.properties;
    const paramSchemas = isPlainObject(declared) ? declared : {};
    const args: Record<string, unknown> = {};
    for (const [param, allowed] of Object.entries(entry[name])) {
      if (!Object.hasOwn(shape, param))
        return { ok: false, reason: `ground_truth[${i}] ${name}: parameter ${param} is not declared` };
      const candidates = allowed
        .filter((value) => value !== "")
        .map((value) => materialize(value, paramSchemas[param]));
      const fit = candidates.find((value) => shape[param].safeParse(value).success);
      if (fit !== undefined) args[param] = fit;
      else if (!allowed.includes("")) {
        const result = shape[param].safeParse(candidates[0]);
        const why = result.success ? "" : `: ${z.prettifyError(result.error).replace(/\s+/g, " ")}`;
        return {
          ok: false,
          reason: `ground_truth[${i}] ${name}.${param}: no allowed value fits the schema (${JSON.stringify(allowed)})${why}`,
        };
      }
    }
    const whole = skill.parameters.safeParse(args);
    if (!whole.success)
      return { ok: false, reason: `ground_truth[${i}] ${name}: ${z.prettifyError(whole.error).replace(/\s+/g, " ")}` };
    calls.push({ skillName: name, arguments: args });
  }
  return { ok: true, calls };
}
