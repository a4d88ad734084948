import type { SkillCall } from "../../actions/action.js";
import { isOwnEvent, modelReplyOf, type AgentEvent, type CallSkillEvent } from "../../agent/events.js";

/** The arguments as the model wrote them: an approval hook's correction keeps the model's in `originalArguments`. */
function modelArguments(event: CallSkillEvent): Record<string, unknown> {
  return event.originalArguments ?? event.arguments;
}

/**
 * The skill calls a run made, in order, with the arguments the model wrote: each `call-skill` of the run's own
 * agent, and each call of a `call-skills` (parallel) action as written in that action. A `call-skill` that carries a
 * `callIndex` is one call of a `call-skills` action already counted, so the list is the same whether or not the loop
 * emits per-call events. Calls refused at parse time (validation errors) are not calls; calls refused at dispatch
 * (tool errors) are. An exact repeat of a call that succeeded (`repeated`) did not run and is not a new call. A
 * workflow's own calls (`ctx.call`: a `call-skill` with `origin: "workflow"`) are calls of the run too.
 */
export function collectCalls(events: Iterable<AgentEvent>): SkillCall[] {
  const calls: SkillCall[] = [];
  for (const event of events) {
    if (!isOwnEvent(event)) continue;
    const reply = event.type === "call-skill" && event.origin === "workflow" ? event : modelReplyOf(event);
    if (reply?.type === "call-skills")
      calls.push(...reply.calls.map((c) => ({ skillName: c.skillName, arguments: c.arguments })));
    else if (reply?.type === "call-skill" && !reply.repeated)
      calls.push({ skillName: reply.skillName, arguments: modelArguments(reply) });
  }
  return calls;
}
