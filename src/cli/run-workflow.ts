import { Agent } from "../agent/agent.js";
import { workflowName, workflowOfModule, type WorkflowLike } from "../agent/workflow/workflow.js";
import { importModuleFile } from "../import-module.js";
import type { Registry } from "../skills/registry.js";
import {
  agentFlags,
  agentRegistry,
  checkApprove,
  followRun,
  loadModelClosingTrace,
  reportEvents,
  runBudgets,
  type AgentCommandOptions,
} from "./agent-setup.js";
import { CliUsageError, type CliIO } from "./cli-io.js";
import { Progress } from "./progress.js";
import { exitCodeFor, jsonReport, readQuestion, steps } from "./run-report.js";
import { openTrace } from "./trace-file.js";

/** The flags `run` gives a workflow file: the agent command's, and the output ones. */
export interface RunWorkflowOptions extends AgentCommandOptions {
  json?: boolean;
  trace?: string;
  overwriteTrace?: boolean;
}

/** The workflow a file exports (default export, or `workflow`); a file that cannot load or exports none is a usage error. */
export async function loadWorkflowFile(io: CliIO, file: string): Promise<WorkflowLike> {
  let namespace: Record<string, unknown>;
  try {
    namespace = await importModuleFile(file, io.cwd);
  } catch (error) {
    throw new CliUsageError(`run: ${(error as Error).message}`);
  }
  const workflow = workflowOfModule(namespace);
  if (!workflow)
    throw new CliUsageError(
      `run: ${file} exports no workflow (write: export default defineWorkflow({ name, run: async (ctx, query) => ... }))`,
    );
  return workflow;
}

/** The built-in skills (file skills with --allow-dir), narrowed to those the workflow says it calls. */
function workflowRegistry(workflow: WorkflowLike, options: AgentCommandOptions): Registry {
  const all = agentRegistry(options);
  const wanted = typeof workflow === "function" ? undefined : workflow.skills;
  if (wanted === undefined) return all;
  const missing = wanted.filter((name) => !all.has(name));
  if (missing.length > 0)
    throw new CliUsageError(
      `run: the workflow calls ${missing.join(", ")}, which ${missing.length === 1 ? "is" : "are"} not here (built-in: ${all.names().join(", ")}; file skills need --allow-dir DIR)`,
    );
  return all.scope(wanted);
}

/**
 * `run FILE.ts MESSAGE`: a workflow file (its default export) run in place of the loop, with ask's model flags,
 * budgets, progress, `--json` document, `--trace` and exit codes (a workflow error exits 1, as no answer does).
 */
export async function runWorkflowFile(
  io: CliIO,
  file: string,
  argument: string | undefined,
  options: RunWorkflowOptions,
  setExitCode: (code: number) => void,
): Promise<void> {
  const message = await readQuestion(io, argument, {
    command: "run",
    example: `run ${file} "What is 17 times 23 plus 4?"`,
    what: "message",
  });
  if (options.conversation !== undefined)
    throw new CliUsageError("run: --conversation goes with an agent definition (YAML), not a workflow file");
  checkApprove(io, options);
  const workflow = await loadWorkflowFile(io, file);
  const registry = workflowRegistry(workflow, options);
  const trace = openTrace(options.trace, options.overwriteTrace);
  const progress = new Progress(io, { quiet: options.quiet });
  const { model, budgets } = await loadModelClosingTrace(io, options.model, options, progress, trace);
  try {
    const name = workflowName(workflow);
    const agent = new Agent({ ...agentFlags(io, options, progress), model, registry, name });
    const started = performance.now();
    progress.start(`running ${name}`);
    const runOptions = { ...runBudgets(options, undefined, budgets), signal: io.signal };
    const state = await followRun(
      agent.runStream(workflow, message, runOptions),
      reportEvents({ model, progress, trace }),
    );
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (state.stopReason === "answer") progress.succeed(`answered in ${steps(state.iterations)}, ${seconds} s`);
    else progress.fail(`no answer: ${state.stopReason}`);
    if (options.json) {
      const report = { ...jsonReport(state, model, performance.now() - started), workflow: { name, file } };
      io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    } else if (state.answer !== undefined) io.stdout.write(`${state.answer}\n`);
    setExitCode(exitCodeFor(state));
  } finally {
    trace?.close();
    progress.stop();
    await model.dispose();
  }
}
