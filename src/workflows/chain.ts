import type { WorkflowContext } from "../agent/workflow/workflow.js";
import { runStep, named, type Step, type StepFunction } from "./step.js";

/** A gate's verdict on an intermediate result: go on, or stop with a reason (and the answer to give instead). */
export type GateVerdict = boolean | { pass: boolean; reason?: string; answer?: unknown };

/** Checks the output of step `step` (from 1) before the next step runs. */
export type Gate = (
  output: unknown,
  info: { step: number; ctx: WorkflowContext },
) => GateVerdict | Promise<GateVerdict>;

/** Options of {@link chain}. */
export interface ChainOptions {
  /** Checks each intermediate result (not the last); a failing verdict stops the chain early. Default: none. */
  gate?: Gate;
}

/**
 * Prompt chaining: each step's output is the next step's input (the first gets the chain's input, e.g. the query);
 * the chain returns the last step's output. A `gate` checks every intermediate result: when it fails, the chain stops
 * there, records a `workflow-note` (label `gate`) with the reason, and returns the verdict's `answer` (default: the
 * reason). Usable as a workflow (`agent.run(chain([...]), query)`) or as a step of another pattern.
 */
export function chain<In = string, Out = unknown>(
  steps: readonly Step[],
  options: ChainOptions = {},
): StepFunction<In, Out> {
  if (!Array.isArray(steps) || steps.length === 0) throw new TypeError("chain: give at least one step");
  const { gate } = options;
  return named("chain", async (ctx: WorkflowContext, input: In): Promise<Out> => {
    let value: unknown = input;
    for (const [i, step] of steps.entries()) {
      value = await runStep(ctx, step, value);
      if (!gate || i === steps.length - 1) continue;
      const verdict = await gate(value, { step: i + 1, ctx });
      const pass = typeof verdict === "boolean" ? verdict : verdict.pass;
      if (pass) continue;
      const reason =
        (typeof verdict === "object" && verdict.reason) || `the gate stopped the chain after step ${i + 1}`;
      ctx.note("gate", reason, { step: i + 1, stopped: true });
      return (typeof verdict === "object" && verdict.answer !== undefined ? verdict.answer : reason) as Out;
    }
    return value as Out;
  });
}
