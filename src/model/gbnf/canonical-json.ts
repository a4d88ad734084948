/** Keywords whose value is a map where key order means something (a grammar writes properties in declared order). */
const ORDERED_MAPS = new Set(["properties", "patternProperties"]);

function canonical(value: unknown, keepOrder: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => canonical(item, false));
  if (typeof value !== "object" || value === null) return value;
  const keys = Object.keys(value);
  if (!keepOrder) keys.sort();
  const out: Record<string, unknown> = {};
  for (const key of keys)
    out[key] = canonical((value as Record<string, unknown>)[key], !keepOrder && ORDERED_MAPS.has(key));
  return out;
}

/**
 * A cache key for a JSON Schema: JSON with schema keywords in sorted order, so `{type, properties}` and
 * `{properties, type}` share a key, while the order of `properties` is kept, since it decides the order in which a
 * grammar writes them.
 */
export function canonicalSchemaKey(schema: unknown): string {
  return JSON.stringify(canonical(schema, false)) ?? "undefined";
}
