import { z } from "zod";
import type { WorkflowContext } from "../agent/workflow/workflow.js";
import { DEFAULT_MAX_ROUNDS } from "../defaults.js";
import { named, runStep, type PromptStep, type Step, type StepFunction } from "./step.js";

/** A judge's critique of a draft: does it pass, and if not, what to change. */
export const critiqueSchema = z.object({
  pass: z.boolean().describe("true when the draft fully does what was asked"),
  feedback: z.string().describe("what to change, when it does not pass; empty when it passes"),
});
export type Critique = z.infer<typeof critiqueSchema>;

/** What a generator gets: the query, the round (from 1), and from round 2 on the last draft and its critique. */
export interface DraftRequest {
  query: string;
  round: number;
  draft?: string;
  feedback?: string;
}

/** What a judge gets: the query, the round and the draft to judge. */
export interface DraftReview {
  query: string;
  round: number;
  draft: string;
}

/** Options of {@link evaluatorOptimizer}. */
export interface EvaluatorOptimizerOptions {
  /** Writes a draft, or revises the last one with its feedback. */
  generate: Step<DraftRequest, string>;
  /** Judges a draft. A prompt step is asked with {@link critiqueSchema} unless it gives its own schema. */
  evaluate: Step<DraftReview, Critique>;
  /** Drafts (and judgements) at most. Default DEFAULT_MAX_ROUNDS (3). */
  maxRounds?: number;
}

/** A prompt step judges under the critique schema (named `evaluate`); other steps return a critique themselves. */
function judgeStep(step: Step<DraftReview, Critique>): Step<DraftReview, Critique> {
  if (typeof step !== "object" || step === null || !Object.hasOwn(step, "prompt")) return step;
  const prompt = step as PromptStep<DraftReview>;
  return { name: "evaluate", schema: critiqueSchema, ...prompt };
}

function checkCritique(value: unknown, round: number): Critique {
  const parsed = critiqueSchema.safeParse(value);
  if (!parsed.success) throw new TypeError(`evaluatorOptimizer: round ${round}'s judge returned no { pass, feedback }`);
  return parsed.data;
}

/**
 * Evaluator-optimizer: generate a draft, judge it with a schema'd critique (`{ pass, feedback }`), and revise with the
 * feedback until a draft passes or `maxRounds` drafts were judged. Each verdict is a `workflow-note` (label
 * `critique`). Returns the passing draft; when none passed, the last draft (its note says it did not converge).
 */
export function evaluatorOptimizer(options: EvaluatorOptimizerOptions): StepFunction<unknown, string> {
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS;
  if (!Number.isInteger(maxRounds) || maxRounds < 1) throw new TypeError("evaluatorOptimizer: maxRounds must be >= 1");
  if (options.generate === undefined || options.evaluate === undefined)
    throw new TypeError("evaluatorOptimizer: give generate and evaluate");
  const judge = judgeStep(options.evaluate);
  return named("evaluatorOptimizer", async (ctx: WorkflowContext, input: unknown) => {
    const query = typeof input === "string" ? input : JSON.stringify(input);
    let request: DraftRequest = { query, round: 1 };
    for (;;) {
      const draft = String(await runStep(ctx, options.generate, request));
      const critique = checkCritique(await runStep(ctx, judge, { query, round: request.round, draft }), request.round);
      const last = request.round >= maxRounds;
      const data = { round: request.round, pass: critique.pass, feedback: critique.feedback };
      if (critique.pass || last) {
        const converged = critique.pass;
        const message = converged
          ? `round ${request.round}: pass`
          : `round ${request.round}: no pass after ${maxRounds} rounds; the last draft stands`;
        ctx.note("critique", message, { ...data, converged });
        return draft;
      }
      ctx.note("critique", `round ${request.round}: revise: ${critique.feedback}`, data);
      request = { query, round: request.round + 1, draft, feedback: critique.feedback };
    }
  });
}
