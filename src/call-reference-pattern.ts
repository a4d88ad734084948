/**
 * The shape of a call reference (`{"$ref": "calls[N].result.path"}`) as a JSON Schema `pattern`, in a form the action
 * schema writes and the grammar compiler recognises, so a constrained model can only write references the parser
 * accepts: well-formed, and naming an earlier call (the k-th call of a `calls` list may name calls 0..k-1 only).
 * A leaf shared by actions/ (which writes it) and model/llama/ (which compiles it).
 */

/** Most earlier calls a reference can name by index under the grammar (one digit). */
export const MAX_REFERENCEABLE_CALLS = 10;
/** Most path segments after `.result` under the grammar, and the longest key. */
export const MAX_REFERENCE_PATH_SEGMENTS = 4;
export const MAX_REFERENCE_KEY_LENGTH = 32;

const PATH = String.raw`(?:\.[A-Za-z_$][\w$-]*|\[\d+\])*`;
const FAMILY = new RegExp(
  String.raw`^\^calls\\\[\[0-([0-9])\]\\\]\\\.result` + PATH.replace(/[\\[\](){}.*+?^$|]/g, "\\$&") + String.raw`\$$`,
);

/** The pattern of a reference that may name any of the first `earlierCalls` calls (1..MAX_REFERENCEABLE_CALLS). */
export function callReferencePattern(earlierCalls: number): string {
  if (!Number.isInteger(earlierCalls) || earlierCalls < 1 || earlierCalls > MAX_REFERENCEABLE_CALLS) {
    throw new RangeError(
      `callReferencePattern: earlierCalls must be 1..${MAX_REFERENCEABLE_CALLS} (got ${earlierCalls})`,
    );
  }
  return String.raw`^calls\[[0-${earlierCalls - 1}]\]\.result${PATH}$`;
}

/** How many earlier calls `pattern` allows, when it is a {@link callReferencePattern}; otherwise undefined. */
export function parseCallReferencePattern(pattern: string): number | undefined {
  const match = FAMILY.exec(pattern);
  return match ? Number(match[1]) + 1 : undefined;
}
