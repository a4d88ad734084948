import type { RunRecord } from "../runner/run-record.js";
import type { Aggregate, ConvergenceSeries, EvalReport } from "./eval-report.js";

const round = (n: number, digits = 4) => Math.round(n * 10 ** digits) / 10 ** digits;

function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

function sorted(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

function sumOrNull(values: (number | null)[]): number | null {
  return values.some((v) => v === null) ? null : values.reduce<number>((a, v) => a + (v ?? 0), 0);
}

/** The median of some numbers (0 for none). */
function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sortedValues = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sortedValues.length / 2);
  return sortedValues.length % 2 ? sortedValues[middle] : (sortedValues[middle - 1] + sortedValues[middle]) / 2;
}

/** Runs that called where no call was wanted, and runs that answered without a call where one was (see Aggregate). */
function decisionCounts(runs: readonly RunRecord[]): { callsWhenNoneWanted: number; answersWhenCallWanted: number } {
  return {
    callsWhenNoneWanted: runs.filter((r) => r.expectedCalls === 0 && r.skillCalls > 0).length,
    answersWhenCallWanted: runs.filter(
      (r) => r.expectedCalls !== undefined && r.expectedCalls > 0 && r.skillCalls === 0 && r.stopReason === "answer",
    ).length,
  };
}

/** Totals of a group of runs (one model, one budget). */
export function aggregateRuns(model: string, budget: number, runs: readonly RunRecord[]): Aggregate {
  const successes = runs.filter((r) => r.success);
  const byType: Record<string, number> = {};
  const stopReasons: Record<string, number> = {};
  for (const r of runs) {
    addCounts(byType, r.validationErrorsByType);
    stopReasons[r.stopReason] = (stopReasons[r.stopReason] ?? 0) + 1;
  }
  const sum = (f: (r: RunRecord) => number) => runs.reduce((a, r) => a + f(r), 0);
  const modelCalls = sum((r) => r.iterations);
  const repeatedCalls = sum((r) => r.repeatedCalls);
  const emptyAnswers = sum((r) => r.emptyAnswers);
  const rate = (n: number) => (modelCalls ? round(n / modelCalls) : 0);
  return {
    model,
    budget,
    runs: runs.length,
    successes: successes.length,
    successRate: runs.length ? round(successes.length / runs.length) : 0,
    meanIterations: runs.length ? round(modelCalls / runs.length, 3) : 0,
    meanIterationsToSuccess: successes.length
      ? round(successes.reduce((a, r) => a + r.iterations, 0) / successes.length, 3)
      : null,
    medianIterations: median(runs.map((r) => r.iterations)),
    ...decisionCounts(runs),
    rightCallCount: runs.filter((r) => r.expectedCalls !== undefined && r.skillCalls === r.expectedCalls).length,
    expectedCalls: sum((r) => r.expectedCalls ?? 0),
    runsWithRepeats: runs.filter((r) => r.repeatedCalls > 0).length,
    stopReasons: sorted(stopReasons),
    modelCalls,
    skillCalls: sum((r) => r.skillCalls),
    validationErrors: sum((r) => r.validationErrors),
    validationErrorsByType: sorted(byType),
    toolErrors: sum((r) => r.toolErrors),
    emptyAnswers,
    repeatedCalls,
    ratesPerModelCall: {
      empty_answer: rate(emptyAnswers),
      malformed_json: rate(byType.json_syntax ?? 0),
      unknown_skill: rate(byType.unknown_skill ?? 0),
      invalid_arguments: rate(byType.invalid_arguments ?? 0),
      repeated_call: rate(repeatedCalls),
      wrong_answer: rate(runs.filter((r) => r.stopReason === "answer" && !r.success).length),
    },
    promptTokens: sumOrNull(runs.map((r) => r.promptTokens)),
    generatedTokens: sumOrNull(runs.map((r) => r.generatedTokens)),
    wallMs: round(
      sum((r) => r.wallMs),
      1,
    ),
  };
}

/** Aggregates for every model × budget, in the order given. */
export function aggregateAll(
  records: readonly RunRecord[],
  models: readonly string[],
  budgets: readonly number[],
): Aggregate[] {
  return models.flatMap((model) =>
    budgets.map((budget) =>
      aggregateRuns(
        model,
        budget,
        records.filter((r) => r.model === model && r.budget === budget),
      ),
    ),
  );
}

/** Success rate against budget, one series per model: the convergence curve, with the median steps at each point. */
export function convergence(aggregates: readonly Aggregate[], models: readonly string[]): ConvergenceSeries[] {
  return models.map((model) => ({
    model,
    points: aggregates
      .filter((a) => a.model === model)
      .map((a) => ({
        budget: a.budget,
        successRate: a.successRate,
        ...(a.runs > 0 && a.medianIterations !== undefined && { medianSteps: a.medianIterations }),
      })),
  }));
}

/** Success rate per category × model × budget, for runs that carry a category. */
export function categoryRates(
  records: readonly RunRecord[],
  models: readonly string[],
  budgets: readonly number[],
): EvalReport["categories"] {
  const categories = [...new Set(records.map((r) => r.category).filter((c): c is string => c !== undefined))];
  return categories.flatMap((category) =>
    models.flatMap((model) =>
      budgets.map((budget) => {
        const runs = records.filter((r) => r.category === category && r.model === model && r.budget === budget);
        return {
          category,
          model,
          budget,
          runs: runs.length,
          successRate: runs.length ? round(runs.filter((r) => r.success).length / runs.length) : 0,
          ...decisionCounts(runs),
        };
      }),
    ),
  );
}
