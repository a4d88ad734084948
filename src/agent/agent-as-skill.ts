import { z } from "zod";
import { DEFAULT_MAX_AGENT_DEPTH } from "../defaults.js";
import { renderPrompt } from "../prompt-texts.js";
import { defineSkill, type Skill } from "../skills/skill.js";
import type { Agent, RunOptions } from "./agent.js";
import type { AgentEvent } from "./events.js";

/** How an agent is exposed as a skill. */
export interface AgentAsSkillOptions {
  /** The skill name the supervisor's model writes. */
  name: string;
  /** What the worker is good at, for the supervisor's prompt. */
  description: string;
  /** Deepest nesting allowed; a call that would go deeper is a tool-error. Default 3. */
  maxDepth?: number;
  /** The worker's budgets. Default: the worker agent's defaults. */
  runOptions?: Omit<RunOptions, "signal">;
}

/**
 * Make an agent a skill of another (a supervisor delegating to workers). The worker runs the `task` it is given with
 * the supervisor's signal; its events appear in the supervisor's stream marked with their depth; its answer is the
 * skill's result (no answer is a tool-error with the worker's stop reason). Nesting past `maxDepth` is refused.
 */
export function agentAsSkill(agent: Agent, options: AgentAsSkillOptions): Skill<{ task: string }, string> {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_AGENT_DEPTH;
  return defineSkill({
    name: options.name,
    description: options.description,
    parameters: z.object({ task: z.string().min(1).describe("what the worker should do, in full") }),
    async run({ task }, ctx) {
      const depth = (ctx.depth ?? 0) + 1;
      if (depth > maxDepth)
        throw new Error(renderPrompt("tool-errors/nesting-limit", { max_depth: maxDepth, skill_name: options.name }));
      const state = await agent.runNested(
        task,
        { ...options.runOptions, signal: ctx.signal },
        {
          depth,
          onEvent: (event: AgentEvent) => ctx.forward?.(event),
        },
      );
      if (state.answer === undefined)
        throw new Error(
          renderPrompt("tool-errors/no-answer", { skill_name: options.name, stop_reason: String(state.stopReason) }),
        );
      return state.answer;
    },
  });
}
