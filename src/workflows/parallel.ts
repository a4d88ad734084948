import type { WorkflowContext } from "../agent/workflow/workflow.js";
import { isWorkflowStop } from "../agent/workflow/workflow.js";
import { canonicalJson } from "../agent/repetition.js";
import { DEFAULT_WORKFLOW_CONCURRENCY } from "../defaults.js";
import { createLimiter } from "../promise-pool.js";
import { describeThrown } from "../safe-stringify.js";
import { named, runStep, type Step, type StepFunction } from "./step.js";

/** The outcome of a vote: the value most votes gave, and how many gave each value. */
export interface VoteResult<T = unknown> {
  /** The majority value (on a tie, the one given first). */
  value: T;
  /** Votes for the majority value. */
  count: number;
  /** Votes per value, keyed by the value's key (its text, or its canonical JSON). */
  counts: Record<string, number>;
  /** Votes counted (failed voters are left out). */
  total: number;
}

/** Options of {@link parallel}: `sections` (different sub-calls) or `votes` (the same question, several voters). */
export interface ParallelOptions<T = unknown> {
  /** Independent sub-calls on the same input; the result holds each one's output under its name (or index). */
  sections?: Record<string, Step> | readonly Step[];
  /**
   * Voters on the same input, or one voter asked `count` times (`{ step, count }`: give its prompt a temperature, or
   * every vote is the same); the result is the majority with the counts (a voter that fails is left out).
   */
  votes?: readonly Step<unknown, T>[] | { step: Step<unknown, T>; count: number };
  /** At most this many run at once. Default DEFAULT_WORKFLOW_CONCURRENCY (4). */
  limit?: number;
  /** Sections: merge the outputs (by name) into the result. Default: the outputs as they are. */
  merge?: (outputs: Record<string, unknown>, ctx: WorkflowContext) => unknown;
  /** Votes: the key votes are compared by. Default: text trimmed and lower-cased; other values' canonical JSON. */
  key?: (value: T) => string;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Run the steps on one input, at most `limit` at once, none started once the run's signal aborts; in order. */
async function runAll(ctx: WorkflowContext, steps: readonly Step[], input: unknown, limit: number): Promise<Settled[]> {
  const limiter = createLimiter(limit);
  return Promise.all(
    steps.map((step) =>
      limiter(async (): Promise<Settled> => {
        try {
          if (ctx.signal.aborted) throw ctx.signal.reason;
          return { ok: true, value: await runStep(ctx, step, input) };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    ),
  );
}

/** A stop of the run among the outcomes (budget, retries, abort): it ends everything, so it is thrown first. */
function throwStop(settled: readonly Settled[]): void {
  const stop = settled.find((s) => !s.ok && isWorkflowStop(s.error));
  if (stop && !stop.ok) throw stop.error;
}

function defaultKey(value: unknown): string {
  return typeof value === "string" ? value.trim().toLowerCase() : canonicalJson(value);
}

/** Count the votes that came in; the majority, ties to the first given. Every voter failing is an error. */
function tally<T>(settled: readonly Settled[], key: (value: T) => string): VoteResult<T> {
  const counts: Record<string, number> = Object.create(null);
  const first = new Map<string, T>();
  for (const s of settled) {
    if (!s.ok) continue;
    const k = key(s.value as T);
    counts[k] = (counts[k] ?? 0) + 1;
    if (!first.has(k)) first.set(k, s.value as T);
  }
  if (first.size === 0) {
    const reasons = settled.map((s) => (s.ok ? "" : describeThrown(s.error))).join("; ");
    throw new Error(`parallel: every voter failed (${reasons})`);
  }
  let winner = [...first.keys()][0];
  for (const k of first.keys()) if (counts[k] > counts[winner]) winner = k;
  const total = Object.values(counts).reduce((a, n) => a + n, 0);
  return { value: first.get(winner)!, count: counts[winner], counts: { ...counts }, total };
}

/** The sections' outputs by name; any section that failed fails the whole (after all have finished). */
function collect(names: readonly string[], settled: readonly Settled[]): Record<string, unknown> {
  const failed = names.filter((_, i) => !settled[i].ok);
  if (failed.length > 0) {
    const detail = failed.map(
      (n) => `${n}: ${describeThrown((settled[names.indexOf(n)] as { error: unknown }).error)}`,
    );
    throw new Error(`parallel: section ${detail.join("; ")}`);
  }
  return Object.fromEntries(names.map((n, i) => [n, (settled[i] as { value: unknown }).value]));
}

/** The voters: the list given, or one step `count` times. */
function voterList<T>(votes: NonNullable<ParallelOptions<T>["votes"]>): readonly Step<unknown, T>[] {
  if (Array.isArray(votes)) {
    if (votes.length === 0) throw new TypeError("parallel: give at least one voter");
    return votes;
  }
  const { step, count } = votes as { step: Step<unknown, T>; count: number };
  if (step === undefined || !Number.isInteger(count) || count < 1)
    throw new TypeError("parallel: votes is a list of voters, or { step, count } with count >= 1");
  return Array.from({ length: count }, () => step);
}

/**
 * Parallelization: independent sub-calls on the same input, run concurrently up to `limit`, each isolated from the
 * others (its own prompt, no shared conversation). With one local model their model calls still go one at a time:
 * the value is isolation and a simpler prompt per call, not speed; a model server with several slots overlaps them.
 * `sections` returns the outputs by name (or as an array, for an array of sections), or what `merge` makes of them;
 * a failed section fails the whole once all have finished. `votes` returns the majority with the counts (a
 * `workflow-note` labelled `votes` records them). A stop of the run (budget, retries, abort) ends it at once.
 */
export function parallel<T = unknown>(options: ParallelOptions<T>): StepFunction {
  const { sections, votes } = options;
  if ((sections === undefined) === (votes === undefined)) throw new TypeError("parallel: give sections or votes");
  const limit = options.limit ?? DEFAULT_WORKFLOW_CONCURRENCY;
  if (!Number.isInteger(limit) || limit < 1) throw new TypeError("parallel: limit must be an integer >= 1");
  if (votes !== undefined) {
    const voters = voterList(votes);
    const key = options.key ?? defaultKey;
    return named("parallel", async (ctx: WorkflowContext, input: unknown) => {
      const settled = await runAll(ctx, voters, input, limit);
      throwStop(settled);
      const result = tally(settled, key);
      ctx.note("votes", `${result.count} of ${result.total} votes`, { counts: result.counts, total: result.total });
      return result;
    });
  }
  const list = Array.isArray(sections);
  const names = list ? sections.map((_, i) => String(i)) : Object.keys(sections!);
  const steps: Step[] = list ? [...sections] : names.map((n) => (sections as Record<string, Step>)[n]);
  if (steps.length === 0) throw new TypeError("parallel: give at least one section");
  return named("parallel", async (ctx: WorkflowContext, input: unknown) => {
    const settled = await runAll(ctx, steps, input, limit);
    throwStop(settled);
    const outputs = collect(names, settled);
    if (options.merge) return options.merge(outputs, ctx);
    return list ? names.map((n) => outputs[n]) : outputs;
  });
}
