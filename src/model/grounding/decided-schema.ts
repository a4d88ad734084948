/**
 * The decision as a request's own schema, for a model that samples where no per-token offset reaches (a model server):
 * the action schema's branches (answer, call one skill, the `calls` list) cut to those whose offset (DecisionOptions,
 * the step's scored decision) is within DECISION_SCHEMA_MARGIN of the best, and a `calls` list held to the number of
 * calls the question's items ask for. In process, the reply takes the option of largest log-probability plus offset;
 * the model's own log-probability at these branches tells little (docs/results/decision.md), so what crosses is the
 * offsets' ranking with the near-ties left to the model.
 */
import type { JsonSchema } from "../../json-schema.js";
import type { DecisionOptions } from "../model-handle.js";
import { DECISION_SCHEMA_MARGIN } from "./defaults.js";

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => value !== null && typeof value === "object" && !Array.isArray(value);

/** What a branch of the action schema does: answer, call a skill (its name), or a list of calls. */
type BranchKind = { kind: "answer" } | { kind: "skill"; name: string } | { kind: "calls" } | undefined;

function branchKind(branch: unknown): BranchKind {
  if (!isNode(branch) || !isNode(branch.properties)) return undefined;
  const properties = branch.properties;
  if (Object.hasOwn(properties, "final_answer")) return { kind: "answer" };
  if (Object.hasOwn(properties, "calls")) return { kind: "calls" };
  const name = isNode(properties.skill_name) ? properties.skill_name.const : undefined;
  return typeof name === "string" ? { kind: "skill", name } : undefined;
}

/** A skill's offset (0 where the decision names none), as DecisionSteer reads it. */
const skillOffset = (skills: Readonly<Record<string, number>> | undefined, name: string) =>
  skills && Object.hasOwn(skills, name) && Number.isFinite(skills[name]) ? skills[name] : 0;

/** The items of `anyOf` whose offset is within `margin` of the best; the list unchanged when it keeps them all. */
function within<T>(items: readonly T[], offset: (item: T) => number | undefined, margin: number): readonly T[] {
  const offsets = items.map(offset);
  const known = offsets.filter((value): value is number => value !== undefined);
  if (known.length < 2) return items;
  const best = Math.max(...known);
  const kept = items.filter((_, i) => {
    const own = offsets[i];
    return own === undefined || own >= best - margin;
  });
  return kept.length === items.length ? items : kept;
}

/** A `calls` list: `planned` calls, each item's skills cut by that call's own offsets (DecisionOptions.itemSkills). */
function callsList(list: Node, decision: DecisionOptions, margin: number): Node | undefined {
  const { plannedCalls, listOffset = 0, itemSkills } = decision;
  const item = (schema: unknown, k: number): unknown => {
    if (!isNode(schema) || !Array.isArray(schema.anyOf)) return schema;
    const skills = itemSkills?.[k] ?? decision.skills;
    const anyOf = within(
      schema.anyOf,
      (call) => {
        const kind = branchKind(call);
        return kind?.kind === "skill" ? skillOffset(skills, kind.name) : undefined;
      },
      margin,
    );
    return anyOf === schema.anyOf ? schema : { ...schema, anyOf };
  };
  const prefix = Array.isArray(list.prefixItems) ? list.prefixItems : [];
  const planned = plannedCalls !== undefined && listOffset > 0 && plannedCalls >= 1 ? Math.floor(plannedCalls) : 0;
  const length = Math.max(prefix.length, planned);
  let cut = false;
  const prefixItems = Array.from({ length }, (_, k) => {
    const before = k < prefix.length ? prefix[k] : list.items;
    const after = item(before, k);
    cut ||= after !== before;
    return after;
  });
  const max = typeof list.maxItems === "number" ? list.maxItems : Infinity;
  if (!cut && (planned === 0 || planned > max)) return undefined;
  return {
    ...list,
    prefixItems,
    ...(planned > 0 && planned <= max && { minItems: planned, maxItems: planned }),
  };
}

/**
 * `schema` (an action schema: an `anyOf` of branches, as buildActionJsonSchema writes it) with the branches the
 * decision ranks more than `margin` logits below its best left out: answer against call, one skill against another
 * (a skill the decision names no offset for counts 0). A `calls` branch kept holds as many calls as the question's
 * items (`plannedCalls`, where `listOffset` asks for it), each call's skills cut by its own item's offsets. Undefined
 * when the decision cuts nothing (no decision, one branch, a schema of another shape).
 */
export function decidedSchema(
  schema: JsonSchema,
  decision: DecisionOptions | undefined,
  margin: number = DECISION_SCHEMA_MARGIN,
): JsonSchema | undefined {
  if (!decision || !Array.isArray(schema.anyOf)) return undefined;
  const branches = schema.anyOf as unknown[];
  const kept = within(
    branches,
    (branch) => {
      const kind = branchKind(branch);
      if (kind?.kind === "answer") return decision.answer ?? 0;
      if (kind?.kind === "calls") return decision.calls ?? 0;
      return kind?.kind === "skill" ? skillOffset(decision.skills, kind.name) : undefined;
    },
    margin,
  );
  let changed = kept !== branches;
  const anyOf = kept.map((branch) => {
    if (branchKind(branch)?.kind !== "calls") return branch;
    const node = branch as Node;
    const properties = node.properties as Node;
    if (!isNode(properties.calls)) return branch;
    const calls = callsList(properties.calls, decision, margin);
    if (!calls) return branch;
    changed = true;
    return { ...node, properties: { ...properties, calls } };
  });
  return changed ? { ...schema, anyOf } : undefined;
}
