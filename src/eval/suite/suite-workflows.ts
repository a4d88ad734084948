import { workflowOfModule, type WorkflowLike } from "../../agent/workflow/workflow.js";
import { importModuleFile } from "../../import-module.js";
import { EvalSetupError } from "../errors.js";
import type { Suite } from "./suite-schema.js";

/**
 * Load the workflows a suite declares (`workflows`: name → module path, relative to `baseDir`, the suite file's
 * folder): each module's default export (or its `workflow`). A module that cannot load or exports no workflow is an
 * `EvalSetupError("suite_invalid")` naming the field, before anything runs.
 */
export async function loadSuiteWorkflows(
  suite: Suite,
  baseDir: string,
  source = "suite",
): Promise<Map<string, WorkflowLike>> {
  const loaded = new Map<string, WorkflowLike>();
  for (const [name, path] of Object.entries(suite.workflows)) {
    let namespace: Record<string, unknown>;
    try {
      namespace = await importModuleFile(path, baseDir);
    } catch (error) {
      throw new EvalSetupError("suite_invalid", `${source}: workflows.${name}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const workflow = workflowOfModule(namespace);
    if (!workflow)
      throw new EvalSetupError(
        "suite_invalid",
        `${source}: workflows.${name}: ${path} exports no workflow (a default export)`,
      );
    loaded.set(name, workflow);
  }
  return loaded;
}
