import { z } from "zod";
import type { Registry } from "../skills/registry.js";
import { checkCall as checkSkillCall, checkSkillName } from "../skills/check-call.js";
import { promptText, renderPrompt } from "../prompt-texts.js";
import type {
  CallSkillAction,
  CallSkillsAction,
  FinalAnswerAction,
  ParsedReply,
  RefusedReply,
  SkillCall,
  ValidationErrorType,
} from "./action.js";
import { actionEnvelopeSchema, structuredEnvelopeSchema, type ActionEnvelope } from "./action-envelope.js";
import { isGivenAnswer, structuredAnswer } from "./structured-answer.js";
import type { JsonSchema } from "../json-schema.js";
import { extractJsonObject } from "./extract-json.js";
import { checkCallReferences, hasReference } from "./call-references.js";

/** Options for {@link parseAction}. */
export interface ParseActionOptions {
  /** Accept `{"calls": [...]}` (several calls in one reply). Default false: the agent's `parallelCalls` option. */
  parallelCalls?: boolean;
  /**
   * The JSON Schema a final answer must match (the agent's `outputSchema`): `final_answer` is then a JSON value,
   * checked against it (a mismatch is a `schema_mismatch` validation error), and the action carries it as `reply`.
   */
  answerSchema?: JsonSchema;
}

/** The validator name of every parse failure. */
export const ACTION_PARSE = "action_parse";
/** The validator name of an empty final answer. */
export const NON_EMPTY_FINAL_ANSWER = "non_empty_final_answer";

/** The fields every action carries: the thought when there is one, the reply verbatim, `repaired` when it was. */
type CommonFields = Pick<CallSkillAction, "thought" | "raw" | "repaired">;

function refuse(raw: string, errorType: ValidationErrorType, feedback: string): RefusedReply {
  return { type: "validation-error", validatorName: ACTION_PARSE, errorType, feedback, raw };
}

function availableSkills(registry: Registry): string {
  return registry.names().join(", ") || "none";
}

/**
 * Check one call against the registry and the skill's argument schema (skills/check-call.ts). Arguments holding
 * `{"$ref": ...}` are checked after the reference is resolved, at dispatch: here only the skill's name is.
 */
function checkCall(call: SkillCall, registry: Registry, raw: string): RefusedReply | undefined {
  const checked = hasReference(call.arguments)
    ? checkSkillName(registry, call.skillName)
    : checkSkillCall(registry, call);
  if (checked.ok) return undefined;
  if (checked.problem === "unknown_skill") {
    const values = { skill_name: JSON.stringify(call.skillName), available_skills: availableSkills(registry) };
    return refuse(raw, "unknown_skill", renderPrompt("feedback/unknown-skill", values));
  }
  const schema = JSON.stringify(registry.jsonSchema(call.skillName));
  const values = { skill_name: call.skillName, detail: checked.detail, schema };
  return refuse(raw, "invalid_arguments", renderPrompt("feedback/invalid-arguments", values));
}

/**
 * The reply's JSON object (fences and prose dropped, size and depth guarded, jsonrepair), checked against the
 * action envelope; with the fields every action of this reply carries.
 */
function readEnvelope(
  text: string,
  structured = false,
): { ok: true; envelope: Envelope; common: CommonFields } | { ok: false; refused: RefusedReply } {
  const extracted = extractJsonObject(text);
  if (!extracted.ok) {
    const feedback = renderPrompt("feedback/json-syntax", { detail: extracted.detail });
    return { ok: false, refused: refuse(text, "json_syntax", feedback) };
  }
  const parsed = (structured ? structuredEnvelopeSchema : actionEnvelopeSchema).safeParse(extracted.value);
  if (!parsed.success) {
    const feedback = renderPrompt("feedback/missing-field", { detail: z.prettifyError(parsed.error) });
    return { ok: false, refused: refuse(text, "missing_field", feedback) };
  }
  const { thought } = parsed.data;
  const common: CommonFields = thought === undefined ? { raw: text } : { thought, raw: text };
  if (extracted.repaired) common.repaired = true;
  return { ok: true, envelope: parsed.data, common };
}

/** An envelope as read: `final_answer` is text, or any JSON value under an output schema. */
type Envelope = Omit<ActionEnvelope, "final_answer"> & { final_answer?: unknown };

/** A non-empty final answer wins over a call in the same reply; the call it named is kept as `ignoredCall`. */
function finalAnswerAction(
  envelope: Envelope,
  answer: unknown,
  common: CommonFields,
  answerSchema: JsonSchema | undefined,
): FinalAnswerAction | RefusedReply {
  const action = answerSchema
    ? structuredAnswer(answer, answerSchema, common)
    : { type: "final-answer" as const, answer: String(answer).trim(), ...common };
  if (action.type === "validation-error") return action;
  const named = envelope.skill_name ?? envelope.calls?.[0]?.skill_name;
  if (named !== undefined) action.ignoredCall = { skillName: named };
  return action;
}

/** Several calls in one reply: each checked as a single call is, then the references between them. */
function callSkillsAction(
  calls: NonNullable<ActionEnvelope["calls"]>,
  registry: Registry,
  common: CommonFields,
): CallSkillsAction | RefusedReply {
  const parsed: SkillCall[] = calls.map((c) => ({ skillName: c.skill_name, arguments: c.arguments ?? {} }));
  for (const call of parsed) {
    const error = checkCall(call, registry, common.raw);
    if (error) return error;
  }
  const referenceError = checkCallReferences(parsed);
  if (referenceError) return refuse(common.raw, "invalid_reference", referenceError);
  return { type: "call-skills", calls: parsed, ...common };
}

/** One call; a `{"$ref": ...}` in its arguments is refused (references are only for the calls of one reply). */
function callSkillAction(call: SkillCall, registry: Registry, common: CommonFields): CallSkillAction | RefusedReply {
  if (hasReference(call.arguments)) {
    const detail = promptText("feedback/reference-outside-calls");
    const feedback = renderPrompt("feedback/validator", { validator: ACTION_PARSE, detail });
    return refuse(common.raw, "invalid_arguments", feedback);
  }
  return checkCall(call, registry, common.raw) ?? { type: "call-skill", ...call, ...common };
}

/**
 * Turn a model reply into exactly one of: a call-skill action, a final-answer action (a call-skills action when
 * parallel calls are on), or a validation error whose feedback tells the model what to fix. One pipeline: extract the
 * JSON object (fences and prose dropped, size and depth guarded, jsonrepair), zod, registry lookup, argument schema.
 * Pure and total: never throws, never takes raw text as the answer.
 */
export function parseAction(raw: string, registry: Registry, options: ParseActionOptions = {}): ParsedReply {
  const text = typeof raw === "string" ? raw : String(raw);
  const read = readEnvelope(text, options.answerSchema !== undefined);
  if (!read.ok) return read.refused;
  const { envelope, common } = read;
  const { skill_name: skillName, final_answer: finalAnswer, calls } = envelope;
  if (isGivenAnswer(finalAnswer)) return finalAnswerAction(envelope, finalAnswer, common, options.answerSchema);
  if (calls !== undefined && options.parallelCalls) return callSkillsAction(calls, registry, common);
  if (skillName !== undefined) {
    return callSkillAction({ skillName, arguments: envelope.arguments ?? {} }, registry, common);
  }
  if (finalAnswer !== undefined) {
    const feedback = renderPrompt("feedback/empty-final-answer");
    return { type: "validation-error", validatorName: NON_EMPTY_FINAL_ANSWER, feedback, raw: text };
  }
  const detail = calls !== undefined ? promptText("feedback/calls-not-enabled") : "";
  return refuse(text, "missing_field", renderPrompt("feedback/missing-field", { detail }));
}
