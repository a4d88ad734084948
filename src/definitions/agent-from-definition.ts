import { Agent, type AgentOptions } from "../agent/agent.js";
import { agentAsSkill } from "../agent/agent-as-skill.js";
import type { ModelHandle } from "../model/model-handle.js";
import type { Registry } from "../skills/registry.js";
import { withoutUndefined } from "../without-undefined.js";
import type { AgentDefinition, AgentToolDefinition } from "./agent-definition.js";
import { AgentDefinitionError } from "./definition-error.js";

/** What an agent is built from besides its definition. */
export interface AgentFromDefinitionOptions {
  /** The model the agent (and its nested agents) run on. */
  model: ModelHandle;
  /** The skills its tools name. Default: the registry the definition was loaded with. */
  registry?: Registry;
  /**
   * Agent options that win over the definition's, for it and its nested agents (a command's flags: grammar, maxTokens,
   * temperature, approve, the loop settings). Undefined values are ignored.
   */
  options?: Partial<Omit<AgentOptions, "model" | "registry">>;
}

/** What building needs besides a definition: the options, the registry, the agents built so far (one per file). */
type Building = AgentFromDefinitionOptions & { registry: Registry; agents: Map<AgentDefinition, Agent> };

/** The tools' registry: a scoped view of the skills it names, plus a skill per nested agent (agentAsSkill). */
function toolRegistry(definition: AgentDefinition, built: Building): Registry {
  const skills = definition.tools.filter((t) => t.type === "skill").map((t) => t.name);
  let scoped: Registry;
  try {
    scoped = built.registry.scope(skills);
  } catch (error) {
    throw new AgentDefinitionError(
      "unknown_tool",
      `${definition.path}: tools: ${(error as Error).message.replace(/^Registry\.scope: /, "")}, in the registry given to agentFromDefinition`,
      definition.path,
      "tools",
    );
  }
  for (const tool of definition.tools.filter((t): t is AgentToolDefinition => t.type === "agent")) {
    const nested = buildAgent(tool.definition, built);
    scoped.register(
      agentAsSkill(nested, {
        name: tool.name,
        description: tool.description,
        ...withoutUndefined({ maxDepth: tool.maxDepth }),
      }),
    );
  }
  return scoped;
}

/**
 * Build the Agent a definition describes: its tools as a scoped registry (the model cannot reach any other skill,
 * whatever it writes; nested agents as skills, with agentAsSkill's depth limit), its soul, and its loop policy, memory,
 * output schema and constraints as the agent's options, which its `run` and `invoke` follow.
 */
export function agentFromDefinition(definition: AgentDefinition, options: AgentFromDefinitionOptions): Agent {
  return buildAgent(definition, { ...options, registry: options.registry ?? definition.registry, agents: new Map() });
}

/**
 * One definition's Agent, built once however many tools name its file (an Agent keeps no state between runs, so the
 * tools share it): a team whose files each name the next twice builds one agent per file, not one per path.
 */
function buildAgent(definition: AgentDefinition, built: Building): Agent {
  const done = built.agents.get(definition);
  if (done) return done;
  const loop = definition.loopPolicy;
  const agent = new Agent({
    name: definition.name,
    ...withoutUndefined({
      description: definition.description,
      soul: definition.soul,
      maxIterations: loop.maxIterations,
      maxRetries: loop.maxRetries,
      finalRoundWithoutTools: loop.finalRoundWithoutTools,
      memory: definition.memory,
      outputSchema: definition.outputSchema,
      constraints: definition.constraints,
    }),
    onMaxIterations: loop.onMaxIterations,
    ...withoutUndefined(built.options ?? {}),
    model: built.model,
    registry: toolRegistry(definition, built),
  });
  built.agents.set(definition, agent);
  return agent;
}
