import type { AgentState } from "../agent/agent-state.js";
import { answerMarks, answerNotes } from "../agent/answer-marks.js";
import type { Progress } from "./progress.js";

/**
 * The end of an answered run on the terminal: the success line, then one note for each mark of the answer (cut at
 * its bound, given without any skill call, forced by a final round), so an answer no result backs does not look like
 * one that a result does.
 */
export function succeedAnswered(progress: Progress, state: Readonly<AgentState>, text: string): void {
  progress.succeed(text);
  for (const note of answerNotes(answerMarks(state), state.answer)) progress.note(`  note: ${note}`);
}
