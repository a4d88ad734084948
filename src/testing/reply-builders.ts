/**
 * Model replies for tests and scripted runs, written as a model writes an action: one JSON object with the thought
 * first (the default placement), then the call or the answer. Each parses with `parseAction` to the action it names
 * (a call still has to name a skill of the registry, with arguments its schema accepts).
 */

/** One call of {@link parallelReply}: the skill's name and its arguments (none when left out). */
export type ReplyCall = readonly [skill: string, args?: Record<string, unknown>];

/** `{"thought": ...}` when there is a thought (an empty one included), else nothing. */
function thoughtField(thought: string | undefined): { thought?: string } {
  return thought === undefined ? {} : { thought };
}

/**
 * A reply that calls one skill: `{"thought"?, "skill_name", "arguments"}`. `args` default to none (`{}`).
 * @example callReply("add", { a: 2, b: 3 }) // '{"skill_name":"add","arguments":{"a":2,"b":3}}'
 */
export function callReply(skill: string, args: Record<string, unknown> = {}, thought?: string): string {
  return JSON.stringify({ ...thoughtField(thought), skill_name: skill, arguments: args });
}

/**
 * A reply that answers: `{"thought"?, "final_answer"}`.
 * @example answerReply("5") // '{"final_answer":"5"}'
 */
export function answerReply(answer: string, thought?: string): string {
  return JSON.stringify({ ...thoughtField(thought), final_answer: answer });
}

/**
 * A reply that makes several calls at once (the agent's `parallelCalls`): `{"thought"?, "calls": [{"skill_name",
 * "arguments"}, ...]}`, one `[skill, args]` pair per call in order. An argument may be `{"$ref": "calls[0].result"}`.
 * @example parallelReply([["add", { a: 1, b: 2 }], ["echo", { text: "hi" }]])
 */
export function parallelReply(calls: readonly ReplyCall[], thought?: string): string {
  return JSON.stringify({
    ...thoughtField(thought),
    calls: calls.map(([skill, args = {}]) => ({ skill_name: skill, arguments: args })),
  });
}
