import type { FinalAnswerAction } from "../actions/action.js";
import type { AgentState } from "./agent-state.js";
import { isOwnEvent } from "./events.js";

/**
 * Was this final answer cut short? It fills the grammar's length bound (`maxAnswerChars`, the `maxLength` of
 * `final_answer`; pass Infinity without a grammar), or its reply stopped mid-JSON (the token limit ran out and the
 * parser closed the object for it).
 */
export function answerWasCut(action: FinalAnswerAction, maxAnswerChars: number): boolean {
  if (action.reply !== undefined) return false;
  if (action.answer.length >= maxAnswerChars - 1) return true;
  return action.repaired === true && !action.raw.trimEnd().endsWith("}");
}

/** What a run's answer rests on, for the terminal summary and `--json` (see {@link answerMarks}). */
export interface AnswerMarks {
  /** The answer was cut at the grammar's length bound or the token limit (its final-answer event says so too). */
  truncated: boolean;
  /** No skill was called in the run: the answer is the model's own, backed by no result. */
  withoutSkillCall: boolean;
  /**
   * The answer came in a final round the budget or a repeated call forced (the grammar allowed only an answer); not
   * one the decision held because the results were in (reason `done`).
   */
  forcedByFinalRound: boolean;
}

/** The marks of a run's answer; all false for a run without one. */
export function answerMarks(state: Readonly<AgentState>): AnswerMarks {
  const events = state.stream.toArray().filter((event) => isOwnEvent(event, state.depth));
  const answer = events.findLast((event) => event.type === "final-answer");
  if (state.answer === undefined || answer?.type !== "final-answer")
    return { truncated: false, withoutSkillCall: false, forcedByFinalRound: false };
  const finalRound = events.findLast((event) => event.type === "final-round" && event.reason !== "done");
  const calls = events.filter((event) => event.type === "call-skill" || event.type === "call-skills");
  return {
    truncated: answer.truncated === true,
    withoutSkillCall: calls.length === 0,
    forcedByFinalRound: finalRound !== undefined && finalRound.step <= answer.step,
  };
}

/** The notes a terminal prints under "answered" (stderr), one line each; none for a plain answer. */
export function answerNotes(marks: AnswerMarks, answer: string | undefined): string[] {
  const cut = `the answer was cut at ${answer?.length ?? 0} characters (--max-answer-chars raises the bound)`;
  return [
    ...(marks.truncated ? [cut] : []),
    ...(marks.withoutSkillCall ? ["answered without calling a skill: no result backs it"] : []),
    ...(marks.forcedByFinalRound ? ["answered in a final round: the step budget or a repeated call forced it"] : []),
  ];
}
