import type { Workflow, WorkflowFunction } from "../agent/workflow/workflow.js";

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/**
 * A workflow with its name and description, checked and frozen: what `agent.run(workflow, query)`, the CLI's
 * `run FILE.ts` and a suite task's `workflow` take. The name (1-64 letters, digits, `_ . -`) appears on its
 * `workflow-error` events and in evaluation reports.
 */
export function defineWorkflow<Out = unknown>(definition: {
  name: string;
  description?: string;
  skills?: readonly string[];
  run: WorkflowFunction<Out>;
}): Workflow<Out> {
  if (typeof definition !== "object" || definition === null) throw new TypeError("defineWorkflow: give { name, run }");
  if (typeof definition.name !== "string" || !NAME.test(definition.name))
    throw new TypeError(`defineWorkflow: name must be 1-64 letters, digits, _ . - (got ${String(definition.name)})`);
  if (typeof definition.run !== "function")
    throw new TypeError(`defineWorkflow(${definition.name}): run must be a function`);
  if (definition.description !== undefined && typeof definition.description !== "string")
    throw new TypeError(`defineWorkflow(${definition.name}): description must be a string`);
  const { skills } = definition;
  if (skills !== undefined && !(Array.isArray(skills) && skills.every((s) => typeof s === "string")))
    throw new TypeError(`defineWorkflow(${definition.name}): skills must be an array of skill names`);
  return Object.freeze({ ...definition });
}
