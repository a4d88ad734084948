export {
  Conversation,
  type ConversationCall,
  type ConversationSummary,
  type ConversationTurn,
  type HistoryTrim,
  type NewTurn,
  type TurnMessage,
} from "./conversation.js";
export {
  ConversationError,
  readConversationFile,
  type ConversationErrorCode,
  type ConversationRecord,
} from "./conversation-file.js";
export { historyView, historyTurns, type HistoryView } from "./history.js";
export { fitContext, ContextOverflowError, type ContextFit, type FitInput } from "./fit-context.js";
export { tokenCounter, estimateTokens, ESTIMATE_LABEL, type TokenCounter } from "./token-counter.js";
export { MemoryBudgetError, TRIM_POLICIES, type MemoryOptions, type TrimPolicy } from "./memory-options.js";
export { summaryPrompt, cleanSummary } from "./summarize.js";
