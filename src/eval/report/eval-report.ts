import type { LoopSettings } from "../../agent/agent.js";
import type { RunCounters, RunRecord } from "../runner/run-record.js";

/** The failure kinds of the profiles, measured per model call, so a real model's run calibrates a profile. */
export interface FailureRatesMeasured {
  empty_answer: number;
  malformed_json: number;
  unknown_skill: number;
  invalid_arguments: number;
  repeated_call: number;
  /** Runs that ended with an answer judged wrong, per model call. */
  wrong_answer: number;
}

/** Totals over the runs of one model under one budget (the counters summed). */
export interface Aggregate extends RunCounters {
  model: string;
  budget: number;
  runs: number;
  successes: number;
  successRate: number;
  /** Mean model calls per run. */
  meanIterations: number;
  /** Mean model calls of the successful runs (null when none succeeded). */
  meanIterationsToSuccess: number | null;
  stopReasons: Record<string, number>;
  modelCalls: number;
  ratesPerModelCall: FailureRatesMeasured;
  /** The median of the runs' model calls (steps). */
  medianIterations: number;
  /**
   * Runs that made a skill call where the task wants none (BFCL irrelevance, a suite's no-tool tasks), and runs that
   * answered without any call where the task wants one; counted over the runs that know their expected calls.
   */
  callsWhenNoneWanted: number;
  answersWhenCallWanted: number;
  /** Runs that made as many calls as the task wants (where it says), whether or not they were right. */
  rightCallCount: number;
  /** The tasks' expected calls summed (the runs that know theirs), against `skillCalls`. */
  expectedCalls: number;
  /** Runs with at least one exact repeat of an earlier call. */
  runsWithRepeats: number;
  /** Sums over the runs; null when the model reports no token counts. */
  promptTokens: number | null;
  generatedTokens: number | null;
  wallMs: number;
}

/**
 * One line of the convergence chart: a model's success rate at each budget, and the median steps (model calls) its
 * runs took there (absent in reports written before it was counted).
 */
export interface ConvergenceSeries {
  model: string;
  points: { budget: number; successRate: number; medianSteps?: number }[];
}

/** A question left out of a BFCL score, and why. */
export interface ExcludedQuestion {
  id: string;
  reason: string;
}

/** What a BFCL eval adds to the report. */
export interface BfclSection {
  category: string;
  checkKind: string;
  questions: number;
  /** Questions scored: all but the dataset inconsistencies and the functions that do not convert. */
  scored: number;
  /** Ground truth that does not fit its own function schema: listed, not scored, never made to pass. */
  inconsistencies: ExcludedQuestion[];
  /** Questions whose functions do not convert to skills. */
  unconvertible: ExcludedQuestion[];
}

/**
 * One model server of a sweep (`--model http://host:port/v1#name`; several URLs with one model name share its runs):
 * what it did, and when it was taken out.
 */
export interface ServerThroughput {
  /** The model (as the report names it) this server served. */
  model: string;
  /** `http://host:port/v1#name`. */
  server: string;
  dialect: string;
  /** Runs it was given at once. */
  concurrency: number;
  /** Runs that ended on it. */
  runs: number;
  /** Model calls it answered. */
  calls: number;
  /** Requests retried (connection errors, 429, 503). */
  retries: number;
  /** Runs in flight on it that moved to another server when it failed. */
  movedAway: number;
  /** From its first run's start to its last run's end, ms. */
  busyMs: number;
  /** Runs that ended on it per minute of busyMs. */
  runsPerMinute: number;
  /** Why and when it was taken out of the sweep (absent: it served to the end). */
  down?: string;
}

/** Means over the runs of one runner (the loop, or a workflow) for one model and budget. */
export interface RunnerStats {
  runs: number;
  successes: number;
  successRate: number;
  /** Mean model calls per run (a workflow's nested agents' included). */
  meanSteps: number;
  meanSkillCalls: number;
  /** Mean tokens per run; null when the model reports none (scripted models). */
  meanPromptTokens: number | null;
  meanGeneratedTokens: number | null;
  meanWallMs: number;
}

/** The loop and a workflow on the same tasks (`--compare-loop`), for one model and budget. */
export interface WorkflowComparison {
  model: string;
  budget: number;
  /** The workflow's name. */
  workflow: string;
  /** Tasks compared: those that name this workflow. */
  tasks: number;
  loop: RunnerStats;
  workflowRuns: RunnerStats;
}

/** report.json. */
export interface EvalReport {
  schemaVersion: 1;
  kind: "suite" | "bfcl";
  title: string;
  source: string;
  models: string[];
  budgets: number[];
  seeds: number[];
  /** Tasks run (after `--limit`). */
  tasks: number;
  /** With `--limit`: how many tasks the suite or category holds (the run took the first `tasks` of them). */
  sampledFrom?: number;
  /** Whether replies were constrained by the action grammar. */
  grammar: boolean;
  /** Loop settings given to the agent (absent: the agent's defaults of the version that ran). */
  loop?: LoopSettings;
  interrupted: boolean;
  aggregates: Aggregate[];
  convergence: ConvergenceSeries[];
  /** Success rate per category, model and budget (suites whose tasks have categories). */
  categories: {
    category: string;
    model: string;
    budget: number;
    runs: number;
    successRate: number;
    /** See Aggregate. Absent in reports of earlier versions. */
    callsWhenNoneWanted?: number;
    answersWhenCallWanted?: number;
  }[];
  bfcl?: BfclSection;
  /**
   * With `--compare-loop`: the loop against each workflow on the tasks that name it (the loop runs, `<id>@loop`, are
   * in `runs` with `baselineOf`, and are left out of `aggregates`, `convergence` and `categories`).
   */
  workflowComparison?: WorkflowComparison[];
  /** Model servers: each one's share of the runs and its throughput (evals of models on servers only). */
  servers?: ServerThroughput[];
  /** Runs taken from an earlier, interrupted sweep's results file (`--resume`) instead of being run again. */
  resumedRuns?: number;
  runs: RunRecord[];
  /** When and how long: the only part (with each run's wallMs) that differs between two runs of the same eval. */
  timing: { startedAt: string; wallMs: number };
}
