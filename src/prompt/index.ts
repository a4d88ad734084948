export {
  gemma3ChatFormat,
  gemma4ChatFormat,
  chatFormatForArchitecture,
  neutralizeControlText,
  type ChatFormat,
  type ChatMessage,
} from "./chat-format.js";
export {
  buildSystemPrompt,
  renderSkillDoc,
  type SystemPromptOptions,
  type PromptStyle,
  type ThoughtPlacement,
} from "./system-prompt.js";
export { promptText, renderPrompt, PROMPTS_DIR } from "./prompt-texts.js";
export { skillSignature, schemaTypeText } from "./skill-signature.js";
