/**
 * Failure profiles measured from a real run: the rates of the five failure kinds, per model call, taken from the run
 * records of an eval report (report.json), so `profile:fit:<report.json>` replays a model's measured failure mix
 * instead of an assumed one.
 */
import { z } from "zod";
import { EvalSetupError } from "../errors.js";
import type { EvalReport } from "../report/eval-report.js";
import type { RunRecord } from "../runner/run-record.js";
import { parseOrSetupError } from "../schema-issues.js";
import { checkFailureRates, FAILURE_KINDS, type FailureKind, type FailureRates } from "./failure-profiles.js";

/** What a fitted rate was computed from, so a profile file can be checked against its report. */
export interface FitBasis {
  /** The model's name in the report. */
  model: string;
  /** The budget whose runs were counted: the largest one at which the model made model calls. */
  budget: number;
  runs: number;
  /** The denominator of every rate: the model calls (RunRecord.iterations) of those runs. */
  modelCalls: number;
  /** Whether the measured replies were constrained by the action grammar (then malformed JSON cannot happen). */
  grammar: boolean;
  /** The counts behind each rate, before any scaling. */
  counts: Record<FailureKind, number>;
  /**
   * What the profile cannot reproduce, per model call: each validation error type that maps to no failure kind (a
   * custom validator's name). The profile's remainder takes these replies as correct steps.
   */
  unmodelled: Record<string, number>;
  /** The factor the rates were multiplied by so they sum to at most 1 (1 when they already did). */
  scale: number;
}

/** A failure profile with its provenance: what `profile:fit:` builds and what a `profile:file:` file holds. */
export interface FittedProfile {
  /** Names the profile in reports as `profile:<name>`; a fit is named `fit:<model>`. */
  name: string;
  /** One paragraph: measured from what, how many calls, what was left out or scaled. */
  description: string;
  /** Where the rates came from (the report file, or the report's title). */
  source: string;
  /** Per model call; they sum to at most 1, the rest is a correct step. */
  rates: FailureRates;
  basis?: FitBasis;
}

/** Options of {@link fitFailureProfile}. */
export interface FitOptions {
  /** Names the report in messages and in `source`. Default: the report's title. */
  source?: string;
  /** The profile's name. Default `fit:<model>`. */
  name?: string;
}

/**
 * Validation error types (the agent's `validationErrorsByType` keys) and the failure kind each counts as. Replies
 * that parse as JSON but hold neither `skill_name` nor `final_answer` (missing_field) are malformed output for the
 * loop just as unparseable JSON is (refused, fed back, retried), and a bad `$ref` (invalid_reference) is a bad
 * argument. Empty answers come from the `emptyAnswers` counter (their key `non_empty_final_answer` counts the same).
 */
const KIND_OF_VALIDATION_ERROR: Readonly<Record<string, FailureKind>> = {
  json_syntax: "malformed_json",
  missing_field: "malformed_json",
  unknown_skill: "unknown_skill",
  invalid_arguments: "invalid_arguments",
  invalid_reference: "invalid_arguments",
};
const EMPTY_ANSWER_KEY = "non_empty_final_answer";

const count = z.number().int().nonnegative();
const runSchema = z.looseObject({
  model: z.string(),
  success: z.boolean(),
  stopReason: z.string(),
  budget: z.number().int().positive(),
  iterations: count,
  validationErrorsByType: z.record(z.string(), count),
  toolErrors: count,
  emptyAnswers: count,
  repeatedCalls: count,
});
const reportSchema = z.looseObject({
  schemaVersion: z.literal(1),
  title: z.string(),
  models: z.array(z.string()),
  grammar: z.boolean(),
  interrupted: z.boolean(),
  runs: z.array(runSchema),
});

/**
 * Check that `data` (report.json, parsed) has what a fit reads: `schemaVersion` 1, `models`, `grammar` and the run
 * records with their counters. Throws `EvalSetupError("profile_invalid")` naming the first bad field.
 */
export function parseEvalReport(data: unknown, source = "report"): EvalReport {
  const report = parseOrSetupError(reportSchema, data, "profile_invalid", `${source} is not an eval report.json`);
  return report as unknown as EvalReport;
}

function pickModel(report: EvalReport, model: string | undefined, source: string): string {
  const models = report.models;
  if (model !== undefined) {
    if (models.includes(model)) return model;
    throw new EvalSetupError(
      "model_spec",
      `${source} has no model "${model}" (models: ${models.join(", ") || "none"})`,
    );
  }
  if (models.length === 1) return models[0];
  if (models.length === 0) throw new EvalSetupError("profile_invalid", `${source} holds no model`);
  throw new EvalSetupError(
    "model_spec",
    `${source} holds several models (${models.join(", ")}): pick one with ${source}#<model>`,
  );
}

/** Rounded down to 6 decimals, so rounding never lifts a sum above 1. */
const floor6 = (n: number) => Math.floor(n * 1e6) / 1e6;

/** A number as the description shows it: 4 decimals at most. */
const show = (n: number) => String(Math.round(n * 1e4) / 1e4);

function countFailures(runs: readonly RunRecord[]): {
  counts: Record<FailureKind, number>;
  other: Record<string, number>;
} {
  const counts = Object.fromEntries(FAILURE_KINDS.map((k) => [k, 0])) as Record<FailureKind, number>;
  const other: Record<string, number> = {};
  for (const run of runs) {
    counts.empty_answer += run.emptyAnswers;
    counts.repeated_call += run.repeatedCalls;
    // A call the skill or a guard refused cost the step and showed the model an error, as refused arguments do.
    counts.invalid_arguments += run.toolErrors;
    // A run that answered and was judged wrong gave up with a wrong answer.
    if (run.stopReason === "answer" && !run.success) counts.wrong_answer++;
    for (const [type, n] of Object.entries(run.validationErrorsByType)) {
      if (type === EMPTY_ANSWER_KEY) continue;
      const kind = Object.hasOwn(KIND_OF_VALIDATION_ERROR, type) ? KIND_OF_VALIDATION_ERROR[type] : undefined;
      if (kind) counts[kind] += n;
      else other[type] = (other[type] ?? 0) + n;
    }
  }
  return { counts, other };
}

/**
 * Fit a failure profile to one model of an eval report: each rate is a count over the model calls of the model's
 * runs under the report's largest budget (the budget with the most model calls; smaller budgets of a deterministic
 * model are replays of the same calls, so pooling budgets would count calls twice):
 * - `empty_answer`: `emptyAnswers` (a final answer that is empty);
 * - `malformed_json`: validation errors `json_syntax` + `missing_field`;
 * - `unknown_skill`: validation errors `unknown_skill`;
 * - `invalid_arguments`: validation errors `invalid_arguments` + `invalid_reference`, plus tool errors (a well-formed
 *   call that the skill or a guard refused: it costs the step and shows the model an error, as refused arguments do;
 *   the replay's refusal counts against the retry budget where a real tool error does not);
 * - `repeated_call`: `repeatedCalls` (calls identical to an earlier call of the run; counted per call, so a parallel
 *   reply can add several);
 * - `wrong_answer`: runs that ended with an answer judged wrong (once each): small models give up with a wrong answer
 *   (SmolLM2-135M answered "3" to 17% of 2,340 without a call), and a profile without it scored 97% at budget 12 where
 *   the model it was fitted to scored 0%;
 * each divided by the runs' `iterations` (model calls). Other validators' refusals have no kind and are listed in
 * `basis.unmodelled`. If the rates sum above 1 (possible only through parallel repeated calls) they
 * are scaled down proportionally and the description says so.
 *
 * `model` picks a model of a report that holds several; without it the report must hold exactly one. Throws
 * `EvalSetupError`: `model_spec` for a missing or unknown model, `profile_invalid` when the model made no model call.
 */
export function fitFailureProfile(report: EvalReport, model?: string, options: FitOptions = {}): FittedProfile {
  const source = options.source ?? `report "${report.title}"`;
  const chosen = pickModel(report, model, source);
  const ofModel = report.runs.filter((r) => r.model === chosen && r.iterations > 0);
  if (ofModel.length === 0)
    throw new EvalSetupError("profile_invalid", `${source}: model "${chosen}" made no model calls to fit a profile to`);
  const budget = Math.max(...ofModel.map((r) => r.budget));
  const runs = report.runs.filter((r) => r.model === chosen && r.budget === budget);
  const modelCalls = runs.reduce((a, r) => a + r.iterations, 0);
  const { counts, other } = countFailures(runs);
  const sum = FAILURE_KINDS.reduce((a, k) => a + counts[k], 0) / modelCalls;
  const scale = sum > 1 ? 1 / sum : 1;
  const rates = Object.fromEntries(FAILURE_KINDS.map((k) => [k, floor6((counts[k] / modelCalls) * scale)])) as Record<
    FailureKind,
    number
  >;
  checkFailureRates(rates);
  const unmodelled = Object.fromEntries(
    Object.entries(other)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => [k, floor6(n / modelCalls)]),
  );
  const notes = [
    `Measured, not assumed: model "${chosen}" of ${source}, its ${runs.length} runs under budget ${budget} (${modelCalls} model calls, grammar ${report.grammar ? "on" : "off"}).`,
    ...(scale < 1 ? [`The measured rates summed to ${show(sum)}; they are scaled by ${show(scale)} to sum to 1.`] : []),
    ...(Object.keys(unmodelled).length
      ? [
          `Not modelled (taken as correct steps), per model call: ${Object.entries(unmodelled)
            .map(([k, r]) => `${k} ${show(r)}`)
            .join(", ")}.`,
        ]
      : []),
    ...(report.interrupted ? ["The eval was interrupted: fewer runs than planned."] : []),
  ];
  return {
    name: options.name ?? `fit:${chosen}`,
    description: notes.join(" "),
    source,
    rates,
    basis: { model: chosen, budget, runs: runs.length, modelCalls, grammar: report.grammar, counts, unmodelled, scale },
  };
}
