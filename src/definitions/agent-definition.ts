import type { JsonSchema } from "../json-schema.js";
import type { MemoryOptions, TrimPolicy } from "../memory/memory-options.js";
import type { Soul } from "../prompt/soul.js";
import type { Registry } from "../skills/registry.js";

/** A tool that is one of the registry's skills. */
export interface SkillToolDefinition {
  readonly type: "skill";
  readonly name: string;
}

/** A tool that is another agent, run as a nested agent (agentAsSkill) when the model calls it. */
export interface AgentToolDefinition {
  readonly type: "agent";
  /** The skill name the model writes. */
  readonly name: string;
  /** What it is good at, for the model (the tool's own, else the nested definition's description). */
  readonly description: string;
  /** The nested agent's definition file (absolute). */
  readonly file: string;
  readonly definition: AgentDefinition;
  /** Deepest nesting allowed below this tool (agentAsSkill's maxDepth). Default: DEFAULT_MAX_AGENT_DEPTH. */
  readonly maxDepth?: number;
}

/** One tool of a definition. */
export type ToolDefinition = SkillToolDefinition | AgentToolDefinition;

/** A definition's loop policy: the run budgets and what happens at their end. */
export interface LoopPolicy {
  maxIterations?: number;
  maxRetries?: number;
  /** `error` (default): no answer at the budget's end is a failed run; `warn_and_return`: the last answer candidate. */
  onMaxIterations: "error" | "warn_and_return";
  /** The last iteration allows only a final answer (AgentOptions.finalRoundWithoutTools). Default: the agent's. */
  finalRoundWithoutTools?: boolean;
}

/** A definition's constraints (AgentConstraints). */
export interface ConstraintsDefinition {
  maxLatencyMs?: number;
  maxTotalTokens?: number;
  forbiddenPatterns?: readonly string[];
}

/**
 * An agent defined in a YAML file, validated and resolved: relative paths made absolute, the SOUL.md parsed, the tools
 * checked against the registry (nested agents loaded), the output schema read. `agentFromDefinition` builds it.
 */
export interface AgentDefinition {
  readonly name: string;
  readonly description?: string;
  /** The definition file (absolute). */
  readonly path: string;
  /** The model to use when the caller names none: an alias, or a path made absolute (`script:` files too). */
  readonly model?: string;
  /** The identity: the parsed SOUL.md (`soul`), or the text of `system_prompt`. */
  readonly soul?: Soul | string;
  /** The SOUL.md file, when there is one (absolute). */
  readonly soulPath?: string;
  readonly tools: readonly ToolDefinition[];
  /** Where the tools came from: the definition's `tools`, the soul's `## Tools`, or every skill of the registry. */
  readonly toolsFrom: "definition" | "soul" | "registry";
  /** The agent tools the soul's `## Handoffs` names (also among `tools`). */
  readonly handoffs: readonly string[];
  readonly memory?: MemoryOptions & { trimPolicy: TrimPolicy };
  readonly loopPolicy: LoopPolicy;
  readonly outputSchema?: JsonSchema;
  /** The output schema's file, when it was given as `{ file }` (absolute). */
  readonly outputSchemaPath?: string;
  readonly constraints?: ConstraintsDefinition;
  /** The skills the definition was checked against (the default of agentFromDefinition's registry). */
  readonly registry: Registry;
}
