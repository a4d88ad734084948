export type {
  Action,
  CallSkillAction,
  CallSkillsAction,
  FinalAnswerAction,
  ParsedReply,
  RefusedReply,
  SkillCall,
  ValidationErrorObservation,
  ValidationErrorType,
} from "./action.js";
export { parseAction, ACTION_PARSE, NON_EMPTY_FINAL_ANSWER, type ParseActionOptions } from "./parse-action.js";
export { extractJsonObject, type ExtractResult } from "./extract-json.js";
export {
  parseStructured,
  resolveOutputSchema,
  STRUCTURED_OUTPUT,
  type OutputSchema,
  type ResolvedOutputSchema,
  type StructuredReply,
} from "./parse-structured.js";
export { buildActionJsonSchema } from "./action-json-schema.js";
export { actionEnvelopeSchema, type ActionEnvelope } from "./action-envelope.js";
export {
  checkCallReferences,
  parseReference,
  resolveReferences,
  hasReference,
  callDependencies,
  type CallReference,
} from "./call-references.js";
