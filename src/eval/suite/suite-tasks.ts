import type { HeuristicLookup } from "../models/heuristic-model.js";
import type { TrajectoryAction } from "../models/trajectory-model.js";
import type { EvalTask } from "../runner/eval-task.js";
import { checkExpected } from "./check-expected.js";
import type { Suite, TrajectoryStep } from "./suite-schema.js";
import type { WorkflowLike } from "../../agent/workflow/workflow.js";
import { EvalSetupError } from "../errors.js";

function workflowFor(workflows: ReadonlyMap<string, WorkflowLike>, name: string): WorkflowLike {
  const workflow = workflows.get(name);
  if (!workflow)
    throw new EvalSetupError("suite_invalid", `workflow "${name}" was not loaded (see loadSuiteWorkflows)`);
  return workflow;
}
import { suiteSkills, taskRegistry } from "./task-registry.js";

function toAction(step: TrajectoryStep): TrajectoryAction {
  const thought = step.thought !== undefined ? { thought: step.thought } : {};
  return "answer" in step
    ? { type: "answer", text: step.answer, ...thought }
    : { type: "call", skillName: step.call, arguments: step.arguments, ...thought };
}

/**
 * The tasks of a suite as the runner runs them: scoped registries, judges from `expected`, trajectories, lookup
 * tables, and the workflow a task names (from `workflows`, loaded by loadSuiteWorkflows; a task naming one that is
 * not given throws EvalSetupError).
 */
export function suiteTasks(suite: Suite, workflows: ReadonlyMap<string, WorkflowLike> = new Map()): EvalTask[] {
  const all = suiteSkills(suite);
  const lookups: HeuristicLookup[] = suite.skills.flatMap((s) =>
    s.type === "lookup" ? [{ skillName: s.name, parameter: s.parameter, keys: Object.keys(s.table) }] : [],
  );
  return suite.tasks.map((task) => ({
    id: task.id,
    ...(task.category && { category: task.category }),
    query: task.query,
    registry: taskRegistry(all, task),
    maxIterations: task.maxIterations,
    trajectory: task.trajectory?.map(toAction),
    lookups: lookups.filter((l) => task.skills.includes(l.skillName)),
    ...(task.workflow !== undefined && {
      workflow: { name: task.workflow, run: workflowFor(workflows, task.workflow) },
    }),
    judge: ({ answer, calls }) => checkExpected(task.expected, { answer, calls }),
  }));
}
