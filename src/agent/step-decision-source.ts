import type { DecisionBranch, DecisionOptions } from "../model/model-handle.js";
import type { Registry } from "../skills/registry.js";
import type { SkillProfile } from "../decision/skill-fit.js";
import type { EarlierCall } from "../decision/run-calls.js";
import { stepDecision, type DecisionLever, type DecisionMode, type StepDecision } from "../decision/step-decision.js";
import type { AgentState } from "./agent-state.js";
import { isOwnEvent, modelReplyOf } from "./events.js";

/** What the decision reads of each skill of a registry: its name, description and arguments' JSON Schema. */
export function skillProfiles(registry: Registry): SkillProfile[] {
  return registry.list().map((skill) => ({
    name: skill.name,
    description: skill.description,
    parameters: registry.jsonSchema(skill.name),
  }));
}

/**
 * The calls the run made (its own depth), in order, each with the result it came to: every call of a reply (a
 * `calls` list's each), an exact repeat of a call left out (it took nothing new), a failed call without a result.
 */
export function runCalls(state: AgentState): EarlierCall[] {
  const calls: EarlierCall[] = [];
  const pending: { call: EarlierCall; index?: number }[] = [];
  for (const event of state.stream.toArray()) {
    if (!isOwnEvent(event, state.depth)) continue;
    const reply = modelReplyOf(event);
    if (reply?.type === "call-skill" && !reply.repeated) {
      const call = { skill: reply.skillName, arguments: reply.arguments };
      calls.push(call);
      pending.push({ call });
    } else if (reply?.type === "call-skills") {
      reply.calls.forEach((c, index) => {
        const call = { skill: c.skillName, arguments: c.arguments };
        calls.push(call);
        pending.push({ call, index });
      });
    } else if (event.type === "observation" || event.type === "tool-error") {
      const at = pending.findIndex(
        (p) => p.call.skill === event.skillName && (event.callIndex === undefined || p.index === event.callIndex),
      );
      if (at < 0) continue;
      const [{ call }] = pending.splice(at, 1);
      if (event.type === "observation") call.result = event.result;
    }
  }
  return calls;
}

/**
 * The decision of one step (see stepDecision) for the run's question, skills and calls so far, with where its
 * generate call reports the branch points; undefined when `mode` is `off`.
 */
export function stepDecisionFor(
  mode: DecisionMode,
  state: AgentState,
  step: {
    skills: readonly SkillProfile[];
    levers?: readonly DecisionLever[];
    parallelCalls: boolean;
    onBranch: (branch: DecisionBranch) => void;
  },
): { decision: StepDecision; options: DecisionOptions } | undefined {
  if (mode === "off" || step.skills.length === 0) return undefined;
  const decision = stepDecision({
    question: state.query,
    skills: step.skills,
    calls: runCalls(state),
    parallelCalls: step.parallelCalls,
    ...(step.levers && { levers: step.levers }),
  });
  return { decision, options: { ...decision.offsets, onBranch: step.onBranch } };
}
