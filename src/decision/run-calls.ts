import { questionValues, type QuestionValues } from "./skill-fit.js";

/** A call the run made before a step, as the decision reads it: the skill, its arguments, and its result's text. */
export interface EarlierCall {
  skill: string;
  arguments: Readonly<Record<string, unknown>>;
  /** The result the model was shown; absent when the call failed. */
  result?: string;
}

/** The leaf values (strings, numbers) of a JSON value, or of a text that is not JSON: the text itself. */
function leaves(text: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [text];
  }
  const found: string[] = [];
  const walk = (node: unknown, depth: number): void => {
    if (depth > 16 || found.length > 256) return;
    if (typeof node === "string" || typeof node === "number") found.push(String(node));
    else if (Array.isArray(node)) node.forEach((item) => walk(item, depth + 1));
    else if (node && typeof node === "object") Object.values(node).forEach((item) => walk(item, depth + 1));
  };
  walk(value, 0);
  return found;
}

/**
 * A result's leaf values that no call of the run wrote as an argument: what the result brings (a conversion's
 * `"result":6.21`, not its echo of the call's `"value":10`).
 */
export function freshLeaves(result: string, calls: readonly EarlierCall[]): string[] {
  const used = new Set<string>();
  for (const call of calls)
    for (const value of Object.values(call.arguments))
      if (typeof value === "string" || typeof value === "number") used.add(String(value).toLowerCase());
  return leaves(result).filter((leaf) => !used.has(leaf.toLowerCase()));
}

/**
 * The values a result offers a next call (see QuestionValues): its leaf values (a JSON result's strings and numbers,
 * else its text) less those an earlier call of the run wrote as an argument (a result that repeats its call's
 * arguments offers nothing new).
 */
export function resultValues(result: string, calls: readonly EarlierCall[]): QuestionValues {
  const fresh = freshLeaves(result, calls);
  const values = questionValues(fresh.join(" ; "));
  // a leaf that is a plain word ("Japan", "Nairobi") is a name here, wherever it stands
  const names = new Set(values.names);
  for (const leaf of fresh) if (/^\p{L}[\p{L} .'-]{0,60}$/u.test(leaf)) names.add(leaf);
  return { ...values, names: [...names] };
}
