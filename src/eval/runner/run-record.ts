import type { RunStats, StopReason } from "../../agent/events.js";

/** Why a run ended: the agent's stop reason, or `harness_error` when the run could not be made at all. */
export type RunStopReason = StopReason | "harness_error";

/**
 * Everything measured about one run of one task (one model, budget and seed). The counters are the agent's own
 * RunStats: skill calls (parallel calls one by one), validation errors (by type), tool errors, empty answers,
 * repeated calls (identical to an earlier call of the run).
 */
/** The agent's counters that every run record (and every aggregate of them) carries. */
export type RunCounters = Pick<
  RunStats,
  "skillCalls" | "validationErrors" | "validationErrorsByType" | "toolErrors" | "emptyAnswers" | "repeatedCalls"
>;

export interface RunRecord extends RunCounters {
  model: string;
  taskId: string;
  category?: string;
  /** The workflow the run used instead of the loop (the task's `workflow`); absent: the loop. */
  workflow?: string;
  /**
   * This run is the loop on the task of that id, made to compare with its workflow (`--compare-loop`; its `taskId`
   * is that id with `@loop`): left out of the aggregates, compared in the report's `workflowComparison`.
   */
  baselineOf?: string;
  budget: number;
  seed: number;
  success: boolean;
  /** Why the run did not succeed, one line each (empty on success). */
  failures: string[];
  /** A machine-readable failure kind when the judge has one (BFCL's error types). */
  errorType?: string;
  stopReason: RunStopReason;
  /** Model calls made. */
  iterations: number;
  /**
   * Skill calls the task's correct trajectory makes (BFCL's ground truth, a suite's trajectory): 0 where no call is
   * wanted. Absent without a trajectory, and in reports of earlier versions.
   */
  expectedCalls?: number;
  /** Token counts, when the model reports them (real models); null for scripted models. */
  promptTokens: number | null;
  evaluatedPromptTokens: number | null;
  generatedTokens: number | null;
  answer?: string;
  /** Final rounds held (the answer-only steps; see FinalRoundEvent). Absent in reports of earlier versions. */
  finalRounds?: number;
  /** Steps before which old steps were left out to fit the context. Absent in reports of earlier versions. */
  contextTrims?: number;
  /** Wall time of the run, ms (the only field that differs between two runs with the same seed). */
  wallMs: number;
  /**
   * Set when this run was not made on its own but played back from the first calls of the run under this larger
   * budget (a deterministic model; see budget-prefix.ts). `wallMs` is then the recorded time of those calls.
   */
  derivedFrom?: number;
}
