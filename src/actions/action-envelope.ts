import { z } from "zod";
import { MAX_CALLS_PER_ACTION } from "../defaults.js";

/**
 * The outer shape of an action as the model writes it. Field values are checked loosely here (a number as
 * final_answer is taken as its text; a non-string thought is dropped), strictly where a wrong value would run the
 * wrong code (skill_name must be a string, arguments an object).
 */
export const actionEnvelopeSchema = z.object({
  thought: z.string().optional().catch(undefined),
  skill_name: z.string({ error: "skill_name must be a string" }).optional(),
  arguments: z.record(z.string(), z.unknown(), { error: "arguments must be a JSON object" }).optional(),
  final_answer: z
    .union([z.string(), z.number(), z.boolean()], { error: "final_answer must be a string" })
    .transform(String)
    .optional(),
  calls: z
    .array(
      z.object({
        skill_name: z.string({ error: "skill_name must be a string" }),
        arguments: z.record(z.string(), z.unknown(), { error: "arguments must be a JSON object" }).optional(),
      }),
      { error: "calls must be an array of {skill_name, arguments}" },
    )
    .min(1, { error: "calls must hold at least one call" })
    .max(MAX_CALLS_PER_ACTION, {
      error: `calls may hold at most ${MAX_CALLS_PER_ACTION} calls; make the others in the next step`,
    })
    .optional(),
});

/** An action envelope after the loose checks. */
export type ActionEnvelope = z.infer<typeof actionEnvelopeSchema>;

/**
 * The envelope of an agent with an output schema: `final_answer` may be any JSON value (an object, usually), checked
 * against the schema afterwards (actions/structured-answer.ts).
 */
export const structuredEnvelopeSchema = actionEnvelopeSchema.extend({ final_answer: z.unknown().optional() });
