import type { ExcludedQuestion } from "../report/eval-report.js";
import type { EvalTask } from "../runner/eval-task.js";
import type { TrajectoryAction } from "../models/trajectory-model.js";
import { bfclCheckKind, type BfclCategory, type BfclCheckKind } from "./bfcl-files.js";
import { BfclConversionError, bfclRegistry } from "./bfcl-skills.js";
import { bfclTurn } from "./bfcl-turn.js";
import { checkBfclCalls } from "./check-bfcl-calls.js";
import { groundTruthCalls } from "./ground-truth.js";

/** What the oracle answers once its calls are made, or straight away when no function fits. */
const ORACLE_DONE = "Done: the calls above answer the request.";
const ORACLE_DECLINE = "None of the available functions can answer this request.";

/** The questions of a category as runnable tasks, and the ones left out of the score. */
export interface BfclTasks {
  checkKind: BfclCheckKind;
  tasks: EvalTask[];
  inconsistencies: ExcludedQuestion[];
  unconvertible: ExcludedQuestion[];
}

/** A question's messages as one query: user text as it is, other roles labelled. */
function queryText(messages: readonly { role: string; content: string }[]): string {
  return messages.map((m) => (m.role === "user" ? m.content : `(${m.role}) ${m.content}`)).join("\n\n");
}

/**
 * Turn a BFCL category into tasks. Each question's functions become its skills; its ground truth becomes the
 * oracle's trajectory (all calls in one `calls` step when `parallelCalls`, else one call per step) and the judge
 * applies BFCL's rule to the calls of the model's turn: those made before the first final answer (see bfcl-turn.ts;
 * a run the budget cut off before it answered fails). A question whose ground truth does not fit its own schema is
 * listed in `inconsistencies`, and one whose functions do not convert in `unconvertible`; neither becomes a task.
 */
export function bfclTasks(category: BfclCategory, options: { parallelCalls?: boolean } = {}): BfclTasks {
  const checkKind = bfclCheckKind(category.name);
  const parallelCalls = options.parallelCalls ?? checkKind === "parallel";
  const tasks: EvalTask[] = [];
  const inconsistencies: ExcludedQuestion[] = [];
  const unconvertible: ExcludedQuestion[] = [];
  for (const question of category.questions) {
    let registry;
    try {
      registry = bfclRegistry(question.functions);
    } catch (error) {
      if (!(error instanceof BfclConversionError)) throw error;
      unconvertible.push({ id: question.id, reason: error.message });
      continue;
    }
    const groundTruth = category.answers?.get(question.id);
    let trajectory: TrajectoryAction[] | undefined;
    if (checkKind === "irrelevance") {
      trajectory = [{ type: "answer", text: ORACLE_DECLINE }];
    } else if (checkKind === "relevance") {
      // No ground truth says which call is relevant: the oracle has nothing to follow here.
      trajectory = undefined;
    } else {
      if (!groundTruth) {
        inconsistencies.push({ id: question.id, reason: "no ground truth for this question" });
        continue;
      }
      const built = groundTruthCalls(groundTruth, registry, question.functions);
      if (!built.ok) {
        inconsistencies.push({ id: question.id, reason: built.reason });
        continue;
      }
      const calls: TrajectoryAction[] =
        parallelCalls && built.calls.length > 1
          ? [{ type: "calls", calls: built.calls }]
          : built.calls.map((c) => ({ type: "call", skillName: c.skillName, arguments: c.arguments }));
      trajectory = [...calls, { type: "answer", text: ORACLE_DONE }];
    }
    tasks.push({
      id: question.id,
      query: queryText(question.messages),
      registry,
      parallelCalls,
      trajectory,
      judge: ({ state }) => {
        const turn = bfclTurn(state);
        if (!turn.finished) return { success: false, failures: [turn.reason], errorType: "agent:no_final_answer" };
        const verdict = checkBfclCalls(checkKind, question.functions, turn.calls, groundTruth);
        return {
          success: verdict.valid,
          failures: verdict.valid ? [] : [verdict.error ?? "invalid"],
          ...(verdict.errorType && { errorType: verdict.errorType }),
        };
      },
    });
  }
  return { checkKind, tasks, inconsistencies, unconvertible };
}
