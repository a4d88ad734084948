import { raceAbort } from "../../abort.js";
import { describeThrown, safeStringify } from "../../safe-stringify.js";
import type { AgentState } from "../agent-state.js";
import { workflowName, type WorkflowLike } from "./workflow.js";
import { createContext } from "./workflow-context.js";
import { WorkflowRun, type WorkflowBudgets, type WorkflowEnvironment } from "./workflow-run.js";

/** The run's answer from what the workflow returned: text as it is, another value as its JSON; nothing is no answer. */
function answerOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : safeStringify(value);
}

/** How the workflow's own code came out: its value, or what it threw. */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Call the workflow, settling at once when the run's signal aborts (a workflow that ignores it cannot hold the run). */
async function callWorkflow(workflow: WorkflowLike, run: WorkflowRun): Promise<Outcome> {
  const fn = typeof workflow === "function" ? workflow : workflow.run.bind(workflow);
  try {
    const value = await raceAbort(
      Promise.resolve().then(() => fn(run.context, run.state.query)),
      run.signal,
    );
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * Run a workflow in place of the loop, on the loop's state: its skill calls, model calls and nested agents are
 * recorded on the run's stream as the loop's are, and it ends the way the loop does. A stop inside it (budget,
 * retries, model error, abort) ends the run with that reason, whatever the workflow did after; a workflow that throws
 * ends with a `workflow-error` event and `stopReason: "workflow_error"`; one that returns ends with a `final-answer`
 * (origin `workflow`) holding its answer. Never throws.
 */
export async function runWorkflow(
  workflow: WorkflowLike,
  state: AgentState,
  budgets: WorkflowBudgets,
  env: WorkflowEnvironment,
): Promise<void> {
  const run = new WorkflowRun(state, budgets, env);
  run.context = createContext(run);
  const outcome = await callWorkflow(workflow, run);
  if (!run.stopped && budgets.signal?.aborted) run.stopAborted();
  if (run.stopped) return run.close();
  const answer = outcome.ok ? answerOf(outcome.value) : undefined;
  if (answer === undefined) {
    const message = outcome.ok ? "the workflow returned no answer" : describeThrown(outcome.error);
    state.emit({ type: "workflow-error", workflow: workflowName(workflow), message });
    state.finish("workflow_error");
  } else {
    state.emit({ type: "final-answer", answer, raw: "", origin: "workflow" });
    state.finish("answer", answer);
  }
  run.close();
}
