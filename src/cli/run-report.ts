import type { AgentState } from "../agent/agent-state.js";
import { answerMarks } from "../agent/answer-marks.js";
import type { InvokeResult } from "../agent/invoke.js";
import { CliUsageError, EXIT, hint, type CliIO } from "./cli-io.js";
import type { CliModel } from "./model-setup.js";

/**
 * The `--json` document: the answer with its marks (`truncated`, `withoutSkillCall`, `forcedByFinalRound`), the stop
 * reason, iterations, every event, the stats and the model.
 */
export function jsonReport(state: AgentState, model: CliModel, wallMs: number) {
  return {
    answer: state.answer ?? null,
    ...answerMarks(state),
    stopReason: state.stopReason,
    iterations: state.iterations,
    events: state.stream.toArray(),
    stats: { ...state.stats, wallMs: Math.round(wallMs), lastGeneration: model.stats },
    model: { ...model.info, backend: model.backend, threads: model.threads },
  };
}

/**
 * The question: the argument; with `-`, or with no argument when stdin is a pipe or a file, the whole of stdin
 * (`echo "What is 2+2?" | gemma-agent ask`). With no argument on a terminal it is a usage error, not a silent wait;
 * `usage` names the command, an example and what is read, for that message.
 */
export async function readQuestion(
  io: CliIO,
  argument: string | undefined,
  usage = { command: "ask", example: 'ask "What is 17% of 2,340?"', what: "question" },
): Promise<string> {
  if (argument !== undefined && argument !== "-") return argument;
  if (argument === undefined && io.stdin.isTTY) {
    throw new CliUsageError(
      `${usage.command}: give a ${usage.what} in quotes (${hint(io, usage.example)}), or pipe it in`,
    );
  }
  let text = "";
  for await (const chunk of io.stdin) text += typeof chunk === "string" ? chunk : chunk.toString("utf8");
  if (text.trim() === "") throw new CliUsageError(`${usage.command}: no ${usage.what} on stdin (it was empty)`);
  return text.trim();
}

/** `1 step`, `3 steps`. */
export function steps(count: number): string {
  return `${count} step${count === 1 ? "" : "s"}`;
}

/** The exit code of a run: 0 answered, 130 interrupted, 1 no answer. */
export function exitCodeFor(state: AgentState): number {
  if (state.stopReason === "answer") return EXIT.ok;
  if (state.stopReason === "aborted") return EXIT.interrupted;
  return EXIT.noAnswer;
}

/**
 * The exit code of an agent's turn: 0 with an answer (also one returned at the iteration budget by
 * `on_max_iterations: warn_and_return`), 130 interrupted, 1 otherwise (`constraint_violated` included).
 */
export function turnExitCode(result: Pick<InvokeResult, "answer" | "stopReason">): number {
  if (result.stopReason === "aborted") return EXIT.interrupted;
  if (result.answer !== undefined && (result.stopReason === "answer" || result.stopReason === "max_iterations"))
    return EXIT.ok;
  return EXIT.noAnswer;
}
