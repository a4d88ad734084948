import type { ThoughtPlacement } from "../actions/action.js";
import type { Registry } from "../skills/registry.js";
import { DEFAULT_PARAM_DETAILS, DEFAULT_THOUGHT_PLACEMENT } from "../defaults.js";
import { promptText, renderPrompt } from "../prompt-texts.js";
import { skillSignature } from "./skill-signature.js";
import { parameterDetails } from "./param-details.js";
import type { JsonSchema } from "../json-schema.js";
import { isSoul, parseSoul, renderSoul, type Soul } from "./soul.js";

/**
 * How the system prompt documents skills and the action format: `full` (each skill's argument JSON Schema, the
 * action format with its rules) or `compact` (one signature line per skill, a three-line format; for small models,
 * whose time to first token is mostly the system prompt).
 */
export type PromptStyle = "full" | "compact";

export type { ThoughtPlacement };

/** What the system prompt is made of. */
export interface SystemPromptOptions {
  /**
   * The agent's identity and manner: a text, or a parsed SOUL.md (rendered by {@link renderSoul}). Default:
   * prompts/soul.md (a SOUL.md; prompts/compact/soul.md in the compact style).
   */
  soul?: string | Soul;
  /** Document the `calls` form of the action format. */
  parallelCalls?: boolean;
  /** Default "full". */
  style?: PromptStyle;
  /** Where the examples put `thought` (it must match the grammar's order). Default DEFAULT_THOUGHT_PLACEMENT. */
  thought?: ThoughtPlacement;
  /** Add one worked example conversation (call, result, answer) after the action format. Default false. */
  exampleTrajectory?: boolean;
  /** The JSON Schema a final answer must match (an agent's output schema): shown after the action format. */
  outputSchema?: JsonSchema;
  /**
   * Document each skill's arguments one parameter a line (type, required or not, description, allowed values,
   * default; see {@link parameterDetails}) instead of its JSON Schema or signature. Default: DEFAULT_PARAM_DETAILS in
   * the full style; off in the compact one, whose point is a short prompt.
   */
  paramDetails?: boolean;
}

/** The prompt file of a style: `compact/<name>` when the compact style has one of its own. */
function styled(name: string, style: PromptStyle): string {
  return style === "compact" ? `compact/${name}` : name;
}

/**
 * One skill's documentation: name, description and argument JSON Schema (full) or signature (compact); with
 * `paramDetails`, name, description and one line per parameter in either style.
 */
export function renderSkillDoc(
  registry: Registry,
  name: string,
  style: PromptStyle = "full",
  paramDetails = false,
): string {
  const skill = registry.get(name);
  if (!skill) throw new Error(`renderSkillDoc: unknown skill "${name}"`);
  const schema = registry.jsonSchema(name);
  if (paramDetails) {
    const lines = parameterDetails(schema);
    return lines.length
      ? renderPrompt("skill-detailed", { name, description: skill.description, parameters: lines.join("\n") })
      : renderPrompt("skill-detailed-none", { name, description: skill.description });
  }
  if (style === "compact")
    return renderPrompt("compact/skill", { signature: skillSignature(name, schema), description: skill.description });
  return renderPrompt("skill", { name, description: skill.description, schema: JSON.stringify(schema) });
}

/** The `calls` of the parallel-calls example (see prompts/parallel-format.md). */
const PARALLEL_CALLS_FIELDS = '"calls":[{"skill_name":"...","arguments":{...}},...]';

/**
 * One example action object: its `fields` (JSON text) with the thought `text` first, last or left out, as the grammar
 * orders them. Compact, as the grammar writes it (no space after `:` or `,`): a model copies the examples' spacing,
 * and every space the grammar then refuses costs a pass over the whole vocabulary (issue 11 measured 53% of Gemma 3
 * 270M's action tokens refused with spaced examples); a thought in the other place is refused the same way.
 */
function exampleObject(thought: ThoughtPlacement, fields: string, text: string): string {
  if (thought === "first") return `{"thought":"${text}",${fields}}`;
  return thought === "last" ? `{${fields},"thought":"${text}"}` : `{${fields}}`;
}

/**
 * A call and an answer as the grammar orders them: `thought` (with `callThought` / `answerThought`) first, last or
 * left out. `args` is JSON text; the other values go in verbatim (prompt files write them JSON-safe).
 */
function exampleActions(
  thought: ThoughtPlacement,
  [callThought, answerThought, skillName, args, answer]: string[],
): { call: string; answer: string } {
  const withThought = (fields: string, text: string) => exampleObject(thought, fields, text);
  return {
    call: withThought(`"skill_name":"${skillName}","arguments":${args}`, callThought),
    answer: withThought(`"final_answer":"${answer}"`, answerThought),
  };
}

/** The two example actions of the format (placeholders for the skill and the answer). */
function actionExamples(thought: ThoughtPlacement): { call_example: string; answer_example: string } {
  const [callThought, answerThought, skillName, answer] = promptText("action-examples").split("\n");
  const { call, answer: answerExample } = exampleActions(thought, [
    callThought,
    answerThought,
    skillName,
    "{...}",
    answer,
  ]);
  return { call_example: call, answer_example: answerExample };
}

/**
 * One worked conversation (question, call, result, answer) with a skill no agent has, kept under its own heading and
 * marked as an example: small models copy what a prompt shows them (issue 19 saw Gemma 3 270M answer with the
 * format's placeholder), so the example's values must be visibly not the answer.
 */
function exampleTrajectory(thought: ThoughtPlacement): string {
  return renderPrompt(
    "example-trajectory",
    exampleActions(thought, promptText("example-trajectory-steps").split("\n")),
  );
}

/** The soul's text: a string as it is, a Soul rendered, the default file for the style. */
function soulText(soul: string | Soul | undefined, style: PromptStyle): string {
  if (typeof soul === "string") return soul;
  if (isSoul(soul)) return renderSoul(soul);
  return style === "compact"
    ? promptText("compact/soul")
    : renderSoul(parseSoul(promptText("soul"), { source: "prompts/soul.md" }));
}

/**
 * The system prompt: soul, the skills and the action format, in the chosen style. It depends only on the agent's
 * configuration, never on the run, so it stays the same for every step (KV-cache reuse).
 */
export function buildSystemPrompt(registry: Registry, options: SystemPromptOptions = {}): string {
  const style = options.style ?? "full";
  const names = registry.names();
  const paramDetails = options.paramDetails ?? (style === "full" && DEFAULT_PARAM_DETAILS);
  const skills = names.length
    ? names.map((name) => renderSkillDoc(registry, name, style, paramDetails)).join("\n")
    : promptText("no-skills");
  const thought = options.thought ?? DEFAULT_THOUGHT_PLACEMENT;
  const format =
    renderPrompt(styled("action-format", style), actionExamples(thought)) +
    (options.parallelCalls
      ? `\n${renderPrompt("parallel-format", { parallel_example: exampleObject(thought, PARALLEL_CALLS_FIELDS, "...") })}`
      : "") +
    (options.exampleTrajectory ? `\n\n${exampleTrajectory(thought)}` : "") +
    (options.outputSchema
      ? `\n${renderPrompt("output-schema", { schema: JSON.stringify(options.outputSchema) })}`
      : "");
  return renderPrompt(styled("system", style), {
    soul: soulText(options.soul, style),
    skills,
    action_format: format,
  });
}
