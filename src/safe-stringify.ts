/** Most objects and arrays {@link safeStringify} writes out. */
const SAFE_STRINGIFY_MAX_OBJECTS = 100_000;

/**
 * JSON text of any value, however hostile: BigInt as its digits, cycles as "[Circular]" (an object that is its own
 * ancestor; one shared by two branches is written in both, up to 100,000 objects in all), functions as "[Function name]", Errors as {name,
 * message}, symbols as their description, Maps and Sets as objects and arrays, getters that throw as
 * "[Unreadable: ...]". Never throws.
 */
export function safeStringify(value: unknown, space?: number): string {
  // The objects from the root to the one being written: [what the value was, what was written for it].
  const ancestors: Array<[original: object, written: unknown]> = [];
  // Shared objects are written each time they appear, so a hostile DAG (each level referring twice to the next)
  // would double the text per level: past this many objects, the rest are elided.
  let objects = 0;
  function replace(this: unknown, _key: string, v: unknown): unknown {
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "function") return `[Function ${v.name || "anonymous"}]`;
    if (typeof v === "symbol") return v.toString();
    if (typeof v !== "object" || v === null) return v;
    while (ancestors.length && ancestors[ancestors.length - 1][1] !== this) ancestors.pop();
    if (ancestors.some(([original]) => original === v)) return "[Circular]";
    if (++objects > SAFE_STRINGIFY_MAX_OBJECTS) return "[…]";
    const written =
      v instanceof Error
        ? { name: v.name, message: v.message }
        : v instanceof Map
          ? Object.fromEntries([...v].map(([k, x]) => [String(k), x]))
          : v instanceof Set
            ? [...v]
            : v;
    ancestors.push([v, written]);
    return written;
  }
  try {
    return JSON.stringify(value, replace, space) ?? String(value);
  } catch (error) {
    return `[Unreadable: ${describeThrown(error)}]`;
  }
}

/** A thrown value's message, read safely (a hostile `message` getter or `toString` does not escape). */
export function describeThrown(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message || error.name);
    if (typeof error === "string") return error;
    return safeStringify(error);
  } catch {
    return "unreadable error";
  }
}
