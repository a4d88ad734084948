import type { SkillCall } from "../../actions/action.js";
import { extractJsonObject } from "../../actions/extract-json.js";
import type { AgentEvent, CallSkillEvent } from "../../agent/events.js";

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The arguments as the model wrote them. A `call-skill` event carries the arguments the skill ran with (validated:
 * schema defaults filled in, unknown keys of nested objects dropped), and `originalArguments` only when an approval
 * hook changed them; what the model wrote is in `raw`, read back with the parser's own JSON extraction.
 */
function modelArguments(event: CallSkillEvent): Record<string, unknown> {
  if (event.originalArguments) return event.originalArguments;
  const extracted = event.raw ? extractJsonObject(event.raw) : undefined;
  if (extracted?.ok && isPlainObject(extracted.value.arguments)) return extracted.value.arguments;
  return event.arguments;
}

/**
 * The skill calls a run made, in order, with the arguments the model wrote: each `call-skill` of the run's own
 * agent, and each call of a `call-skills` (parallel) action as written in that action. A `call-skill` that carries a
 * `callIndex` is one call of a `call-skills` action already counted, so the list is the same whether or not the loop
 * emits per-call events. Calls refused at parse time (validation errors) are not calls; calls refused at dispatch
 * (tool errors) are.
 */
export function collectCalls(events: Iterable<AgentEvent>): SkillCall[] {
  const calls: SkillCall[] = [];
  for (const event of events) {
    if (event.depth) continue;
    if (event.type === "call-skills") calls.push(...event.calls.map((c) => ({ skillName: c.skillName, arguments: c.arguments })));
    else if (event.type === "call-skill" && event.callIndex === undefined) calls.push({ skillName: event.skillName, arguments: modelArguments(event) });
  }
  return calls;
}
