import { EvalSetupError } from "../errors.js";
import type { EvalTask } from "./eval-task.js";

/** The suffix of a loop-baseline run's task id: `<id>@loop`. */
const LOOP_BASELINE_SUFFIX = "@loop";

/**
 * The tasks with, after each task that names a workflow, the same task run by the loop (`<id>@loop`, `baselineOf`
 * the task's id): the eval then compares loop and workflow on the same tasks (`--compare-loop`). Throws
 * EvalSetupError when no task names a workflow (there would be nothing to compare).
 */
export function withLoopBaselines(tasks: readonly EvalTask[]): EvalTask[] {
  if (!tasks.some((t) => t.workflow))
    throw new EvalSetupError("unsupported", '--compare-loop: no task here names a workflow (a task\'s "workflow")');
  return tasks.flatMap((task) => {
    if (!task.workflow) return [task];
    const { workflow: _workflow, ...loop } = task;
    return [task, { ...loop, id: `${task.id}${LOOP_BASELINE_SUFFIX}`, baselineOf: task.id }];
  });
}
