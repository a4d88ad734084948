import { z } from "zod";
import type { Registry } from "../skills/registry.js";
import { renderPrompt } from "../prompt-texts.js";
import type { ParsedReply, SkillCall, ValidationErrorObservation, ValidationErrorType } from "./action.js";
import { actionEnvelopeSchema } from "./action-envelope.js";
import { extractJsonObject } from "./extract-json.js";
import { checkCallReferences, hasReference } from "./call-references.js";

/** Options for {@link parseAction}. */
export interface ParseActionOptions {
  /** Accept `{"calls": [...]}` (several calls in one reply). Default false: the agent's `parallelCalls` option. */
  parallelCalls?: boolean;
}

/** The validator name of every parse failure. */
export const ACTION_PARSE = "action_parse";
/** The validator name of an empty final answer. */
export const NON_EMPTY_FINAL_ANSWER = "non_empty_final_answer";

function refuse(raw: string, errorType: ValidationErrorType, feedback: string): ValidationErrorObservation {
  return { type: "validation-error", validatorName: ACTION_PARSE, errorType, feedback, raw };
}

function availableSkills(registry: Registry): string {
  return registry.names().join(", ") || "none";
}

/**
 * Check one call against the registry and the skill's argument schema. Arguments holding `{"$ref": ...}` are checked
 * after the reference is resolved, at dispatch.
 */
function checkCall(call: SkillCall, registry: Registry, raw: string): ValidationErrorObservation | undefined {
  const skill = registry.get(call.skillName);
  if (!skill) {
    return refuse(
      raw,
      "unknown_skill",
      renderPrompt("feedback/unknown-skill", {
        skill_name: JSON.stringify(call.skillName),
        available_skills: availableSkills(registry),
      }),
    );
  }
  if (hasReference(call.arguments)) return undefined;
  const result = skill.parameters.safeParse(call.arguments);
  if (result.success) return undefined;
  return refuse(
    raw,
    "invalid_arguments",
    renderPrompt("feedback/invalid-arguments", {
      skill_name: call.skillName,
      detail: z.prettifyError(result.error),
      schema: JSON.stringify(registry.jsonSchema(call.skillName)),
    }),
  );
}

/**
 * Turn a model reply into exactly one of: a call-skill action, a final-answer action (a call-skills action when
 * parallel calls are on), or a validation error whose feedback tells the model what to fix. One pipeline: extract the
 * JSON object (fences and prose dropped, size and depth guarded, jsonrepair), zod, registry lookup, argument schema.
 * Pure and total: never throws, never takes raw text as the answer.
 */
export function parseAction(raw: string, registry: Registry, options: ParseActionOptions = {}): ParsedReply {
  const text = typeof raw === "string" ? raw : String(raw);
  const extracted = extractJsonObject(text);
  if (!extracted.ok)
    return refuse(text, "json_syntax", renderPrompt("feedback/json-syntax", { detail: extracted.detail }));
  const envelope = actionEnvelopeSchema.safeParse(extracted.value);
  if (!envelope.success) {
    return refuse(
      text,
      "missing_field",
      renderPrompt("feedback/missing-field", { detail: z.prettifyError(envelope.error) }),
    );
  }
  const { thought, skill_name: skillName, final_answer: finalAnswer, calls } = envelope.data;
  const repaired = extracted.repaired || undefined;
  const common = { ...(thought !== undefined && { thought }), raw: text, ...(repaired && { repaired }) };

  if (finalAnswer !== undefined && finalAnswer.trim() !== "") {
    const named = skillName ?? calls?.[0]?.skill_name;
    return {
      type: "final-answer",
      answer: finalAnswer.trim(),
      ...common,
      ...(named !== undefined && { ignoredCall: { skillName: named } }),
    };
  }
  if (calls !== undefined && options.parallelCalls) {
    const parsed: SkillCall[] = calls.map((c) => ({ skillName: c.skill_name, arguments: c.arguments ?? {} }));
    for (const call of parsed) {
      const error = checkCall(call, registry, text);
      if (error) return error;
    }
    const referenceError = checkCallReferences(parsed);
    if (referenceError) return refuse(text, "invalid_reference", referenceError);
    return { type: "call-skills", calls: parsed, ...common };
  }
  if (skillName !== undefined) {
    const call: SkillCall = { skillName, arguments: envelope.data.arguments ?? {} };
    if (hasReference(call.arguments)) {
      return refuse(
        text,
        "invalid_arguments",
        renderPrompt("feedback/validator", {
          validator: ACTION_PARSE,
          detail: '{"$ref": ...} is only allowed inside "calls"',
        }),
      );
    }
    return checkCall(call, registry, text) ?? { type: "call-skill", skillName, arguments: call.arguments, ...common };
  }
  if (finalAnswer !== undefined) {
    return {
      type: "validation-error",
      validatorName: NON_EMPTY_FINAL_ANSWER,
      feedback: renderPrompt("feedback/empty-final-answer"),
      raw: text,
    };
  }
  const detail = calls !== undefined ? 'Call one skill at a time: "calls" is not enabled.' : "";
  return refuse(text, "missing_field", renderPrompt("feedback/missing-field", { detail }));
}
