import type { Registry } from "../skills/registry.js";
import { promptText, renderPrompt } from "./prompt-texts.js";

/** What the system prompt is made of. */
export interface SystemPromptOptions {
  /** The agent's identity and manner; default: prompts/soul.md. */
  soul?: string;
  /** Document the `calls` form of the action format. */
  parallelCalls?: boolean;
}

/** One skill's documentation: name, description and argument JSON Schema. */
export function renderSkillDoc(registry: Registry, name: string): string {
  const skill = registry.get(name);
  if (!skill) throw new Error(`renderSkillDoc: unknown skill "${name}"`);
  return renderPrompt("skill", { name, description: skill.description, schema: JSON.stringify(registry.jsonSchema(name)) });
}

/**
 * The system prompt: soul, the skills (each with its argument JSON Schema) and the action format. It depends only
 * on the agent's configuration, never on the run, so it stays the same for every step (KV-cache reuse).
 */
export function buildSystemPrompt(registry: Registry, options: SystemPromptOptions = {}): string {
  const names = registry.names();
  const skills = names.length ? names.map((name) => renderSkillDoc(registry, name)).join("\n") : promptText("no-skills");
  const format = promptText("action-format") + (options.parallelCalls ? `\n${promptText("parallel-format")}` : "");
  return renderPrompt("system", { soul: options.soul ?? promptText("soul"), skills, action_format: format });
}
