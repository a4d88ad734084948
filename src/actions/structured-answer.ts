import { z } from "zod";
import type { JsonSchema } from "../json-schema.js";
import { renderPrompt } from "../prompt-texts.js";
import type { FinalAnswerAction, RefusedReply } from "./action.js";
import { extractJsonObject } from "./extract-json.js";
import { resolveOutputSchema } from "./parse-structured.js";

/** The validator name of a final answer that does not match the agent's output schema. */
const OUTPUT_SCHEMA = "output_schema";

/** A final answer's value that is there: not absent, not null, not blank text. */
export function isGivenAnswer(value: unknown): boolean {
  return value !== undefined && value !== null && !(typeof value === "string" && value.trim() === "");
}

/** The fields every action carries (see parse-action.ts). */
type CommonFields = Pick<FinalAnswerAction, "thought" | "raw" | "repaired">;

/**
 * A final answer under an output schema (the agent's `outputSchema`): `final_answer` is a JSON value checked against
 * the schema (the validator of {@link resolveOutputSchema}, which structured workflow calls use too). A string that
 * holds a JSON object is read as that object (through the one JSON reader) when the string itself does not match:
 * without the grammar, small models often quote their JSON. A mismatch is a validation error (`schema_mismatch`)
 * whose feedback shows the schema; the answer text rides along as an answer candidate.
 */
export function structuredAnswer(
  value: unknown,
  schema: JsonSchema,
  common: CommonFields,
): FinalAnswerAction | RefusedReply {
  const resolved = resolveOutputSchema(schema);
  const check = (v: unknown) => resolved.validator.safeParse(resolved.wrapped ? { value: v } : v);
  let checked = check(value);
  if (!checked.success && typeof value === "string" && value.trim().startsWith("{")) {
    const read = extractJsonObject(value);
    const again = read.ok ? check(read.value) : undefined;
    if (again?.success) checked = again;
  }
  const text = typeof value === "string" ? value : JSON.stringify(value);
  if (!checked.success) {
    const feedback = renderPrompt("feedback/answer-schema", {
      detail: z.prettifyError(checked.error),
      schema: JSON.stringify(schema),
    });
    return {
      type: "validation-error",
      validatorName: OUTPUT_SCHEMA,
      errorType: "schema_mismatch",
      feedback,
      raw: common.raw,
      answer: text,
    };
  }
  const reply = resolved.wrapped ? (checked.data as { value: unknown }).value : checked.data;
  return {
    type: "final-answer",
    answer: typeof reply === "string" ? reply.trim() : JSON.stringify(reply),
    reply,
    ...common,
  };
}
