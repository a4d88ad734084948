/**
 * The model asked for a skill to run. `arguments` are as the model wrote them (they passed the skill's schema; the
 * skill itself gets the schema's parsed values, defaults filled in). On a `call-skill` event whose arguments the
 * approval hook corrected, `arguments` are the corrected ones and `originalArguments` the model's.
 */
export interface CallSkillAction {
  type: "call-skill";
  skillName: string;
  arguments: Record<string, unknown>;
  thought?: string;
  /** The model's reply, verbatim. */
  raw: string;
  /** True when the JSON needed repair (jsonrepair) before it parsed. */
  repaired?: boolean;
}

/** The model answered. */
export interface FinalAnswerAction {
  type: "final-answer";
  answer: string;
  thought?: string;
  raw: string;
  repaired?: boolean;
  /** The reply also named a skill; the answer won and the call was not made. */
  ignoredCall?: { skillName: string };
  /**
   * With an output schema (the agent's `outputSchema`): the answer's JSON value, checked against the schema; `answer`
   * is then its JSON text (or the value itself when it is a string).
   */
  reply?: unknown;
  /** The answer was cut short: it fills the grammar's length bound, or the token limit stopped its reply. */
  truncated?: boolean;
}

/** One call inside a parallel-calls action (defined with the skills, which run it). */
export type { SkillCall } from "../skills/skill-call.js";
import type { SkillCall } from "../skills/skill-call.js";

/** Several calls in one reply (only when the agent allows parallel calls). */
export interface CallSkillsAction {
  type: "call-skills";
  calls: SkillCall[];
  thought?: string;
  raw: string;
  repaired?: boolean;
}

/**
 * Why a reply was refused: one of the parse cases, or a validator's name. `schema_mismatch`: a structured reply (a
 * workflow's `ctx.ask` with a schema) that does not match its schema. `copied_prompt_text`: a final answer that repeats
 * the prompt's own text (a placeholder, an instruction) instead of answering (agent/copied-answer.ts).
 */
export type ValidationErrorType =
  | "json_syntax"
  | "missing_field"
  | "unknown_skill"
  | "invalid_arguments"
  | "invalid_reference"
  | "schema_mismatch"
  | "copied_prompt_text";

/**
 * A reply that was refused, by parsing or by a validator (the `validation-error` event carries it); `feedback` is
 * shown to the model in the next prompt. Not an observation: a skill's result is an `observation` event.
 */
export interface RefusedReply {
  type: "validation-error";
  /** `action_parse` for parse failures, `non_empty_final_answer`, or a custom validator's name. */
  validatorName: string;
  errorType?: ValidationErrorType;
  feedback: string;
  raw: string;
  /** The refused reply was a final answer (it failed the output schema or a validator): its text, as written. */
  answer?: string;
}

/** What a model reply turns into, when valid. */
export type Action = CallSkillAction | CallSkillsAction | FinalAnswerAction;
/** Exactly one of these comes out of parsing a reply. */
export type ParsedReply = Action | RefusedReply;

/** @deprecated Renamed {@link RefusedReply} (it is a refused reply, not an observation of a skill). */
export type ValidationErrorObservation = RefusedReply;

/** Where an action's `thought` goes: before the call or answer (reason, then act), after it, or nowhere. */
export type ThoughtPlacement = "first" | "last" | "none";
