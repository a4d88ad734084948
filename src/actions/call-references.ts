import { renderPrompt } from "../prompt-texts.js";
import type { SkillCall } from "./action.js";

/** A parsed `{"$ref": "calls[N].result..."}`: the call it points at and the path inside that call's result. */
export interface CallReference {
  index: number;
  path: (string | number)[];
}

const REF_SYNTAX = /^calls\[(\d+)\]\.result((?:\.[A-Za-z_$][\w$-]*|\[\d+\])*)$/;

function isRefObject(value: unknown): value is { $ref: unknown } {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.hasOwn(value, "$ref") &&
    Object.keys(value).length === 1
  );
}

/** Parse `calls[N].result`, `calls[N].result.a.b`, `calls[N].result[0]`; undefined when it does not match. */
export function parseReference(ref: string): CallReference | undefined {
  const match = REF_SYNTAX.exec(ref);
  if (!match) return undefined;
  const path: (string | number)[] = [];
  for (const part of match[2].match(/\.[^.[]+|\[\d+\]/g) ?? []) {
    path.push(part.startsWith("[") ? Number(part.slice(1, -1)) : part.slice(1));
  }
  return { index: Number(match[1]), path };
}

/** Every `$ref` string found in a value (depth-first). */
function collectRefs(value: unknown, out: unknown[] = []): unknown[] {
  if (isRefObject(value)) out.push(value.$ref);
  else if (Array.isArray(value)) for (const item of value) collectRefs(item, out);
  else if (typeof value === "object" && value !== null) for (const item of Object.values(value)) collectRefs(item, out);
  return out;
}

/** Does this value hold a `{"$ref": ...}` anywhere? */
export function hasReference(value: unknown): boolean {
  return collectRefs(value).length > 0;
}

/** The indexes of the calls each call depends on; throws a readable message for a malformed reference. */
export function callDependencies(calls: readonly SkillCall[]): number[][] {
  return calls.map((call, i) =>
    collectRefs(call.arguments).map((ref) => {
      const parsed = typeof ref === "string" ? parseReference(ref) : undefined;
      if (!parsed)
        throw new Error(renderPrompt("references/malformed-in-call", { index: i, ref: JSON.stringify(ref) }));
      if (parsed.index >= calls.length)
        throw new Error(renderPrompt("references/missing-call", { index: i, target: parsed.index }));
      return parsed.index;
    }),
  );
}

function reaches(deps: number[][], from: number, to: number, seen = new Set<number>()): boolean {
  if (from === to) return true;
  if (seen.has(from)) return false;
  seen.add(from);
  return deps[from].some((next) => reaches(deps, next, to, seen));
}

/**
 * Check the references between the calls of one action before anything runs: each must be well formed and point
 * at an earlier call. Returns the model-facing feedback, or undefined when all is well.
 */
export function checkCallReferences(calls: readonly SkillCall[]): string | undefined {
  let deps: number[][];
  try {
    deps = callDependencies(calls);
  } catch (error) {
    return renderPrompt("feedback/invalid-reference", { detail: (error as Error).message });
  }
  for (let i = 0; i < deps.length; i++) {
    for (const j of deps[i]) {
      if (j < i) continue;
      const detail =
        j === i
          ? renderPrompt("references/refers-to-itself", { index: i })
          : renderPrompt(reaches(deps, j, i) ? "references/cycle" : "references/later-call", { index: i, target: j });
      return renderPrompt("feedback/invalid-reference", { detail });
    }
  }
  return undefined;
}

/** Follow a path into a value with own-property lookups; throws a readable message when the path is not there. */
function followPath(value: unknown, ref: CallReference): unknown {
  let current = value;
  for (const key of ref.path) {
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, key)) {
      const path = typeof key === "number" ? `[${key}]` : `.${key}`;
      throw new Error(renderPrompt("references/missing-path", { index: ref.index, path }));
    }
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/** Replace every `{"$ref": ...}` in `args` with the referenced value from `results` (by call index). */
export function resolveReferences(args: unknown, results: readonly unknown[]): unknown {
  if (isRefObject(args)) {
    const ref = parseReference(String(args.$ref));
    if (!ref) throw new Error(renderPrompt("references/malformed", { ref: JSON.stringify(args.$ref) }));
    return followPath(results[ref.index], ref);
  }
  if (Array.isArray(args)) return args.map((item) => resolveReferences(item, results));
  if (typeof args === "object" && args !== null) {
    return Object.fromEntries(Object.entries(args).map(([key, item]) => [key, resolveReferences(item, results)]));
  }
  return args;
}
