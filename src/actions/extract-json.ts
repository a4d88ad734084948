import { jsonrepair } from "jsonrepair";
import { MAX_ACTION_CHARS, MAX_JSON_DEPTH } from "../defaults.js";

/** The outcome of reading a JSON object out of a model reply. */
export type ExtractResult =
  | { ok: true; value: Record<string, unknown>; repaired: boolean }
  | { ok: false; detail: string };

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

/** The deepest bracket nesting outside strings, stopping early once past `limit`. */
function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max && (max = depth) > limit) return max;
    } else if (c === 125 || c === 93) depth = Math.max(0, depth - 1);
  }
  return max;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Read the one JSON object in a model reply: size and depth guards, plain JSON.parse, then jsonrepair for the
 * near-misses small models write (single quotes, trailing commas, missing closing braces, Python literals).
 * Never throws; never treats text that holds no object as an answer.
 */
export function extractJsonObject(reply: string): ExtractResult {
  if (typeof reply !== "string") return { ok: false, detail: "the reply was not text" };
  if (reply.length > MAX_ACTION_CHARS) return { ok: false, detail: `the reply was too long (${reply.length} characters); keep it short` };
  const text = candidateText(reply);
  if (text === undefined) return { ok: false, detail: "no JSON object found" };
  if (nestingDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    return { ok: false, detail: `the JSON is nested more than ${MAX_JSON_DEPTH} levels deep` };
  }
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
  return { ok: true, value, repaired };
}
