import { MAX_OUTPUT_SCHEMA_DEPTH } from "../defaults.js";
import { isPlainObject } from "../is-plain-object.js";

/** A subschema and where it sits (a JSON Pointer fragment, `#/properties/x`). */
interface Node {
  pointer: string;
  value: Record<string, unknown>;
}

const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

/** Keywords whose values are data, not subschemas (a `const` object holding `$ref` is no reference). */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);

/** Every object in the schema with its pointer, walked without recursion; or the depth problem. */
function objectsOf(schema: Record<string, unknown>): Map<string, Record<string, unknown>> | string {
  const nodes = new Map<string, Record<string, unknown>>();
  const stack: { pointer: string; value: unknown; depth: number }[] = [{ pointer: "#", value: schema, depth: 0 }];
  while (stack.length > 0) {
    const { pointer, value, depth } = stack.pop()!;
    if (depth > MAX_OUTPUT_SCHEMA_DEPTH) return `nested deeper than ${MAX_OUTPUT_SCHEMA_DEPTH} levels at ${pointer}`;
    if (Array.isArray(value))
      value.forEach((v, i) => stack.push({ pointer: `${pointer}/${i}`, value: v, depth: depth + 1 }));
    else if (isPlainObject(value)) {
      nodes.set(pointer, value);
      for (const [key, v] of Object.entries(value))
        if (!DATA_KEYWORDS.has(key)) stack.push({ pointer: `${pointer}/${escape(key)}`, value: v, depth: depth + 1 });
    }
  }
  return nodes;
}

/** The subschemas a value of `node` must also match (so a loop among them leaves no finite value, or none at all). */
function mustMatch(node: Node): string[] {
  const { pointer, value } = node;
  const next: string[] = [];
  if (typeof value.$ref === "string") next.push(value.$ref === "#" ? "#" : value.$ref);
  if (Array.isArray(value.allOf)) value.allOf.forEach((_, i) => next.push(`${pointer}/allOf/${i}`));
  const properties = isPlainObject(value.properties) ? value.properties : {};
  if (Array.isArray(value.required))
    for (const name of value.required)
      if (typeof name === "string" && Object.hasOwn(properties, name))
        next.push(`${pointer}/properties/${escape(name)}`);
  const minItems = typeof value.minItems === "number" ? value.minItems : 0;
  if (minItems >= 1 && isPlainObject(value.items)) next.push(`${pointer}/items`);
  if (Array.isArray(value.prefixItems))
    value.prefixItems.slice(0, minItems).forEach((_, i) => next.push(`${pointer}/prefixItems/${i}`));
  return next;
}

/** A loop among subschemas that must each match (`$ref`, `allOf`, required properties, required items), as a chain. */
function mustLoop(nodes: Map<string, Record<string, unknown>>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  for (const start of nodes.keys()) {
    if (state.has(start)) continue;
    const path: { pointer: string; next: string[] }[] = [];
    const enter = (pointer: string) => {
      state.set(pointer, "open");
      path.push({ pointer, next: mustMatch({ pointer, value: nodes.get(pointer)! }) });
    };
    enter(start);
    while (path.length > 0) {
      const top = path[path.length - 1];
      const target = top.next.pop();
      if (target === undefined) {
        state.set(top.pointer, "done");
        path.pop();
      } else if (state.get(target) === "open") {
        const from = path.findIndex((p) => p.pointer === target);
        return [...path.slice(from).map((p) => p.pointer), target];
      } else if (!state.has(target) && nodes.has(target)) enter(target);
    }
  }
  return undefined;
}

/** The regular expressions of the schema (`pattern` values, `patternProperties` keys): each must compile. */
function badPattern(nodes: Map<string, Record<string, unknown>>): string | undefined {
  for (const [pointer, value] of nodes) {
    const sources: [string, string][] = [];
    if (typeof value.pattern === "string") sources.push([`${pointer}/pattern`, value.pattern]);
    if (isPlainObject(value.patternProperties))
      for (const key of Object.keys(value.patternProperties)) sources.push([`${pointer}/patternProperties`, key]);
    for (const [at, source] of sources) {
      try {
        new RegExp(source);
      } catch (error) {
        return `${at}: not a valid regular expression (${(error as Error).message.replace(/^Invalid regular expression: /, "")})`;
      }
    }
  }
  return undefined;
}

/**
 * What makes an output schema unusable before zod or the grammar sees it, or undefined: nesting past
 * MAX_OUTPUT_SCHEMA_DEPTH, a `pattern` that does not compile, and a loop of subschemas a value must all match
 * (`{"$ref": "#"}`, `$defs` a → b → a, a required property that is the schema again): zod's own check then overflows
 * its stack, and no answer could ever be accepted.
 */
export function outputSchemaProblem(schema: Record<string, unknown>): string | undefined {
  const nodes = objectsOf(schema);
  if (typeof nodes === "string") return nodes;
  const pattern = badPattern(nodes);
  if (pattern) return pattern;
  const loop = mustLoop(nodes);
  if (loop) return `a loop no finite value can match: ${loop.join(" → ")}`;
  return undefined;
}
