import { z } from "zod";
import { isWorkflowStop, type WorkflowContext } from "../agent/workflow/workflow.js";
import { DEFAULT_MAX_WORKERS, DEFAULT_WORKFLOW_CONCURRENCY } from "../defaults.js";
import { createLimiter } from "../promise-pool.js";
import { renderPrompt } from "../prompt-texts.js";
import { describeThrown } from "../safe-stringify.js";
import { withoutUndefined } from "../without-undefined.js";
import { promptFrom, promptParts, type PromptSpec } from "./prompt-spec.js";
import { inputText, named, runStep, type Step, type StepFunction } from "./step.js";

/** What one worker made of its subtask. */
export type WorkerResult = { task: string; ok: true; value: unknown } | { task: string; ok: false; error: string };

/** Options of {@link orchestratorWorkers}. */
export interface OrchestratorWorkersOptions {
  /** The planning call (structured: `{"subtasks": [...]}`). Default prompt: prompts/workflows/plan.md. */
  plan?: PromptSpec<[input: string, maxWorkers: number]>;
  /** What handles one subtask (its input is the subtask's text): a prompt, code, a workflow or a nested agent. */
  worker: Step<string>;
  /** The final call that writes the answer from the results. Default prompt: prompts/workflows/synthesize.md. */
  synthesize?: PromptSpec<[input: string, results: readonly WorkerResult[]]>;
  /** Subtasks at most (the plan's schema allows no more). Default DEFAULT_MAX_WORKERS (4). */
  maxWorkers?: number;
  /** Workers running at once. Default DEFAULT_WORKFLOW_CONCURRENCY (4). */
  limit?: number;
}

/** The results as the synthesizing call sees them: one line per subtask, a failure said as one. */
export function renderResults(results: readonly WorkerResult[]): string {
  return results
    .map((r) =>
      r.ok
        ? renderPrompt("workflows/worker-result", { task: r.task, result: inputText(r.value) })
        : renderPrompt("workflows/worker-failed", { task: r.task, error: r.error }),
    )
    .join("\n");
}

/** The planning call's prompt: the spec's, else prompts/workflows/plan.md. */
function planPrompt(plan: OrchestratorWorkersOptions["plan"], input: string, maxWorkers: number): string {
  return promptFrom(promptParts(plan), [input, maxWorkers], input, () =>
    renderPrompt("workflows/plan", { input, max_workers: maxWorkers }),
  );
}

/** The synthesizing call's prompt: the spec's, else prompts/workflows/synthesize.md with the results. */
function synthesizePrompt(options: OrchestratorWorkersOptions, input: string, results: readonly WorkerResult[]) {
  const lines = renderResults(results);
  return promptFrom(promptParts(options.synthesize), [input, results], `${input}\n\n${lines}`, () =>
    renderPrompt("workflows/synthesize", { input, results: lines }),
  );
}

/** Run each subtask's worker, at most `limit` at once; a failure is the worker's result, a stop ends the run. */
async function runWorkers(ctx: WorkflowContext, worker: Step<string>, tasks: string[], limit: number) {
  const limiter = createLimiter(limit);
  const results = await Promise.all(
    tasks.map((task) =>
      limiter(async (): Promise<WorkerResult | { stop: unknown }> => {
        try {
          return { task, ok: true, value: await runStep(ctx, worker, task) };
        } catch (error) {
          if (isWorkflowStop(error)) return { stop: error };
          return { task, ok: false, error: describeThrown(error) };
        }
      }),
    ),
  );
  const stop = results.find((r): r is { stop: unknown } => "stop" in r);
  if (stop) throw stop.stop;
  return results as WorkerResult[];
}

/**
 * Orchestrator-workers: the model plans the subtasks as structured output (`{"subtasks": [...]}`, at most
 * `maxWorkers`, named `plan` on its `model-call`), a worker handles each (up to `limit` at once), and a final call
 * (named `synthesize`) writes the answer from the results. A worker that fails is reported to the synthesis as
 * failed and recorded in a `workflow-note` (label `workers`); when every worker fails, the pattern throws.
 */
export function orchestratorWorkers(options: OrchestratorWorkersOptions): StepFunction<unknown, string> {
  const maxWorkers = options.maxWorkers ?? DEFAULT_MAX_WORKERS;
  const limit = options.limit ?? DEFAULT_WORKFLOW_CONCURRENCY;
  if (!Number.isInteger(maxWorkers) || maxWorkers < 1)
    throw new TypeError("orchestratorWorkers: maxWorkers must be >= 1");
  if (!Number.isInteger(limit) || limit < 1) throw new TypeError("orchestratorWorkers: limit must be >= 1");
  if (options.worker === undefined) throw new TypeError("orchestratorWorkers: give a worker");
  const planSchema = z.object({ subtasks: z.array(z.string().min(1)).min(1).max(maxWorkers) });
  return named("orchestratorWorkers", async (ctx: WorkflowContext, input: unknown) => {
    const text = inputText(input);
    const { subtasks } = await ctx.ask(planPrompt(options.plan, text, maxWorkers), {
      schema: planSchema,
      name: "plan",
      ...withoutUndefined({ system: promptParts(options.plan).system }),
    });
    const results = await runWorkers(ctx, options.worker, subtasks, limit);
    const failed = results.filter((r) => !r.ok).length;
    ctx.note("workers", `${results.length - failed} of ${results.length} subtasks done`, {
      subtasks,
      failed: results.flatMap((r) => (r.ok ? [] : [r.task])),
    });
    if (failed === results.length)
      throw new Error(`orchestratorWorkers: every worker failed (${results.map((r) => !r.ok && r.error).join("; ")})`);
    return ctx.ask(synthesizePrompt(options, text, results), {
      name: "synthesize",
      ...withoutUndefined({ system: promptParts(options.synthesize).system }),
    });
  });
}
