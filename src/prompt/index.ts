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
export { skillSignature, schemaTypeText } from "./skill-signature.js";
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
} from "./soul.js";
