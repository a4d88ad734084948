import type { Registry } from "../skills/registry.js";
import { promptText, renderPrompt } from "./prompt-texts.js";
import { skillSignature } from "./skill-signature.js";

/**
 * How the system prompt documents skills and the action format: `full` (each skill's argument JSON Schema, the
 * action format with its rules) or `compact` (one signature line per skill, a three-line format; for small models,
 * whose time to first token is mostly the system prompt).
 */
export type PromptStyle = "full" | "compact";

/** Where an action's `thought` goes: before the call or answer (reason, then act), after it, or nowhere. */
export type ThoughtPlacement = "first" | "last" | "none";

/** What the system prompt is made of. */
export interface SystemPromptOptions {
  /** The agent's identity and manner; default: prompts/soul.md (prompts/compact/soul.md in the compact style). */
  soul?: string;
  /** Document the `calls` form of the action format. */
  parallelCalls?: boolean;
  /** Default "full". */
  style?: PromptStyle;
  /** Where the examples put `thought` (it must match the grammar's order). Default "first". */
  thought?: ThoughtPlacement;
}

/** The prompt file of a style: `compact/<name>` when the compact style has one of its own. */
function styled(name: string, style: PromptStyle): string {
  return style === "compact" ? `compact/${name}` : name;
}

/** One skill's documentation: name, description and argument JSON Schema (full) or signature (compact). */
export function renderSkillDoc(registry: Registry, name: string, style: PromptStyle = "full"): string {
  const skill = registry.get(name);
  if (!skill) throw new Error(`renderSkillDoc: unknown skill "${name}"`);
  const schema = registry.jsonSchema(name);
  if (style === "compact") return renderPrompt("compact/skill", { signature: skillSignature(name, schema), description: skill.description });
  return renderPrompt("skill", { name, description: skill.description, schema: JSON.stringify(schema) });
}

/** The two example actions of the format, with `thought` where the grammar puts it. */
function actionExamples(thought: ThoughtPlacement): { call_example: string; answer_example: string } {
  const [callThought, answerThought, skillName, answer] = promptText("action-examples").split("\n");
  const withThought = (fields: string, text: string) =>
    thought === "first" ? `{"thought": "${text}", ${fields}}` : thought === "last" ? `{${fields}, "thought": "${text}"}` : `{${fields}}`;
  return {
    call_example: withThought(`"skill_name": "${skillName}", "arguments": {...}`, callThought),
    answer_example: withThought(`"final_answer": "${answer}"`, answerThought),
  };
}

/**
 * The system prompt: soul, the skills and the action format, in the chosen style. It depends only on the agent's
 * configuration, never on the run, so it stays the same for every step (KV-cache reuse).
 */
export function buildSystemPrompt(registry: Registry, options: SystemPromptOptions = {}): string {
  const style = options.style ?? "full";
  const names = registry.names();
  const skills = names.length ? names.map((name) => renderSkillDoc(registry, name, style)).join("\n") : promptText("no-skills");
  const format = renderPrompt(styled("action-format", style), actionExamples(options.thought ?? "first")) + (options.parallelCalls ? `\n${promptText("parallel-format")}` : "");
  return renderPrompt(styled("system", style), { soul: options.soul ?? promptText(styled("soul", style)), skills, action_format: format });
}
