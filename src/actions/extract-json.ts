import { jsonrepair } from "jsonrepair";
import { MAX_ACTION_CHARS, MAX_JSON_DEPTH } from "../defaults.js";
import { isPlainObject } from "../is-plain-object.js";

/** The outcome of reading a JSON object out of a model reply. */
export type ExtractResult =
  { ok: true; value: Record<string, unknown>; repaired: boolean } | { ok: false; detail: string };

/**
 * The candidate JSON text in a reply: from the first `{` to the last `}` after it (or to the end, when the reply was
 * cut off and jsonrepair must close it). Code fences and prose around the object fall away with this.
 */
function candidateText(reply: string): string | undefined {
  const start = reply.indexOf("{");
  if (start < 0) return undefined;
  const end = reply.lastIndexOf("}");
  return end > start ? reply.slice(start, end + 1) : reply.slice(start);
}

/**
 * The deepest bracket nesting, stopping early once past `limit`: outside strings, or (`strings: "count"`) counting
 * brackets inside strings too, which a reply with a stray quote cannot fool (`{"x":"a, "y": [[[[…` looks like one
 * long string to a string-aware scan, and jsonrepair then builds the nesting).
 */
function nestingDepth(text: string, limit: number, strings: "skip" | "count" = "skip"): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString && strings === "skip") {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max && (max = depth) > limit) return max;
    } else if (c === 125 || c === 93) depth = Math.max(0, depth - 1);
  }
  return max;
}

/** How deep a parsed value nests (objects and arrays), walked without recursion, stopping early once past `limit`. */
function valueDepth(value: unknown, limit: number): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== "object" || item === null) continue;
    if (depth > max && (max = depth) > limit) return max;
    for (const child of Array.isArray(item) ? item : Object.values(item))
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return max;
}

/**
 * Read the one JSON object in a model reply: size and depth guards, plain JSON.parse, then jsonrepair for the
 * near-misses small models write (single quotes, trailing commas, missing closing braces, Python literals).
 * Never throws; never treats text that holds no object as an answer.
 */
export function extractJsonObject(reply: string): ExtractResult {
  if (typeof reply !== "string") return { ok: false, detail: "the reply was not text" };
  if (reply.length > MAX_ACTION_CHARS)
    return { ok: false, detail: `the reply was too long (${reply.length} characters); keep it short` };
  const text = candidateText(reply);
  if (text === undefined) return { ok: false, detail: "no JSON object found" };
  const tooDeep = { ok: false as const, detail: `the JSON is nested more than ${MAX_JSON_DEPTH} levels deep` };
  // Brackets inside strings count here at 4x the limit: text that real answers hold passes, a reply that hides its
  // nesting behind a stray quote does not reach jsonrepair (recursive) or anything after it.
  if (
    nestingDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH ||
    nestingDepth(text, 4 * MAX_JSON_DEPTH, "count") > 4 * MAX_JSON_DEPTH
  )
    return tooDeep;
  let value: unknown;
  let repaired = false;
  try {
    value = JSON.parse(text);
  } catch {
    try {
      value = JSON.parse(jsonrepair(text));
      repaired = true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, detail: message.split("\n")[0].slice(0, 200) };
    }
  }
  if (!isPlainObject(value)) return { ok: false, detail: "expected a JSON object" };
  if (valueDepth(value, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) return tooDeep;
  return { ok: true, value, repaired };
}
