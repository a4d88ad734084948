import type { RunRecord } from "../runner/run-record.js";
import type { RunnerStats, WorkflowComparison } from "./eval-report.js";

const round = (n: number, digits = 3) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Means over a group of runs (one model, budget and runner); tokens null when any run has none. */
function runnerStats(runs: readonly RunRecord[]): RunnerStats {
  const mean = (f: (r: RunRecord) => number) =>
    runs.length ? round(runs.reduce((a, r) => a + f(r), 0) / runs.length) : 0;
  const meanOrNull = (f: (r: RunRecord) => number | null) =>
    runs.length && runs.every((r) => f(r) !== null) ? mean((r) => f(r)!) : null;
  const successes = runs.filter((r) => r.success).length;
  return {
    runs: runs.length,
    successes,
    successRate: runs.length ? round(successes / runs.length, 4) : 0,
    meanSteps: mean((r) => r.iterations),
    meanSkillCalls: mean((r) => r.skillCalls),
    meanPromptTokens: meanOrNull((r) => r.promptTokens),
    meanGeneratedTokens: meanOrNull((r) => r.generatedTokens),
    meanWallMs: round(
      mean((r) => r.wallMs),
      1,
    ),
  };
}

/**
 * The loop against each workflow on the same tasks: for every model × budget × workflow, the workflow's runs of the
 * tasks that name it and the loop's runs of the same tasks (the `baselineOf` runs, `--compare-loop`). Undefined when
 * no loop baseline ran.
 */
export function compareWorkflows(
  runs: readonly RunRecord[],
  models: readonly string[],
  budgets: readonly number[],
): WorkflowComparison[] | undefined {
  const baselines = runs.filter((r) => r.baselineOf !== undefined);
  if (baselines.length === 0) return undefined;
  const compared = new Set(baselines.map((r) => r.baselineOf));
  const viaWorkflow = runs.filter((r) => r.workflow !== undefined && compared.has(r.taskId));
  const names = [...new Set(viaWorkflow.map((r) => r.workflow!))];
  return models.flatMap((model) =>
    budgets.flatMap((budget) =>
      names.map((workflow) => {
        const own = viaWorkflow.filter((r) => r.model === model && r.budget === budget && r.workflow === workflow);
        const tasks = new Set(own.map((r) => r.taskId));
        const loop = baselines.filter((r) => r.model === model && r.budget === budget && tasks.has(r.baselineOf!));
        return { model, budget, workflow, tasks: tasks.size, loop: runnerStats(loop), workflowRuns: runnerStats(own) };
      }),
    ),
  );
}
