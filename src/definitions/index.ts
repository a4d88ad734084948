export type {
  AgentDefinition,
  AgentToolDefinition,
  ConstraintsDefinition,
  LoopPolicy,
  SkillToolDefinition,
  ToolDefinition,
} from "./agent-definition.js";
export { loadAgentDefinition, type LoadAgentDefinitionOptions } from "./load-agent-definition.js";
export { agentFromDefinition, type AgentFromDefinitionOptions } from "./agent-from-definition.js";
export { AgentDefinitionError, type AgentDefinitionErrorCode } from "./definition-error.js";
export { agentDefinitionSchema, agentToolSchema, AGENT_NAME, type AgentDefinitionYaml } from "./definition-schema.js";
export { loadSoul } from "./load-soul.js";
export {
  parseSoul,
  renderSoul,
  isSoul,
  SoulError,
  SOUL_SECTIONS,
  type Soul,
  type SoulSection,
  type SoulSectionKey,
  type SoulErrorCode,
} from "../prompt/soul.js";
