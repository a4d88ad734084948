import type { z } from "zod";
import { formatIssuePath } from "../issue-path.js";

/** Edit distance between two short strings (for "did you mean"). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}

/** The closest of `known` to `name`, when it is close enough to be a typo of it. */
function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = distance(name.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return bestDistance <= Math.max(1, Math.floor(name.length / 3)) ? best : undefined;
}

/** A zod schema's object keys at `path` (through optionals and arrays), for naming the keys an object may have. */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: unknown = schema;
  for (const segment of path) {
    current = unwrap(current);
    const shape = (current as { shape?: Record<string, unknown> }).shape;
    const element = (current as { element?: unknown }).element;
    current = typeof segment === "number" ? element : shape?.[String(segment)];
  }
  const shape = (unwrap(current) as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

function unwrap(schema: unknown): unknown {
  let current = schema as { unwrap?: () => unknown } | undefined;
  while (current && typeof current.unwrap === "function") current = current.unwrap() as typeof current;
  return current;
}

/**
 * One zod issue as `field: message`: an unknown key is named with its own path (`loop_policy.max_iteration: unknown
 * key; did you mean max_iterations? (known: ...)`), so that a typo is never silently ignored nor vaguely reported.
 */
export function describeIssue(issue: z.core.$ZodIssue, schema: z.ZodType): { field: string; message: string } {
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0];
    const known = keysAt(schema, issue.path);
    const guess = closest(key, known);
    const more = issue.keys.length > 1 ? ` (and ${issue.keys.slice(1).join(", ")})` : "";
    return {
      field: formatIssuePath([...issue.path, key]),
      message: `unknown key${more}${guess ? `; did you mean ${guess}?` : ""} (known: ${known.join(", ")})`,
    };
  }
  return { field: formatIssuePath(issue.path), message: issue.message };
}

/**
 * Every zod issue as `field: message`, an unknown key each on its own (`tool: unknown key; did you mean tools?` and
 * `loop_polcy: unknown key; did you mean loop_policy?` are two problems), so a file's mistakes are all shown at once.
 */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  schema: z.ZodType,
): { field: string; message: string }[] {
  return issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => describeIssue({ ...issue, keys: [key] }, schema))
      : [describeIssue(issue, schema)],
  );
}
