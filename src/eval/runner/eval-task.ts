import type { SkillCall } from "../../actions/action.js";
import type { AgentState } from "../../agent/agent-state.js";
import type { WorkflowLike } from "../../agent/workflow/workflow.js";
import type { Registry } from "../../skills/registry.js";
import type { HeuristicLookup } from "../models/heuristic-model.js";
import type { TrajectoryAction } from "../models/trajectory-model.js";

/** What a judge sees of a finished run. */
export interface RunOutcome {
  answer: string | undefined;
  /** The skill calls the model made, in order (parallel calls flattened), whatever came of them. */
  calls: SkillCall[];
  state: AgentState;
}

/** A judge's verdict: success, and why not. */
export interface Verdict {
  success: boolean;
  failures: string[];
  /** A machine-readable failure kind, when the judge has one (BFCL's error type). */
  errorType?: string;
}

/**
 * One task as the runner sees it, whatever it came from (a suite task, a BFCL question): the query, the skills, how
 * to judge a run, and what the scripted models need (the correct trajectory, the lookup tables).
 */
export interface EvalTask {
  id: string;
  category?: string;
  query: string;
  registry: Registry;
  /** Caps the budget: a run gets min(budget, maxIterations). */
  maxIterations?: number;
  /** Let the model make several calls in one step (`{"calls": [...]}`). */
  parallelCalls?: boolean;
  trajectory?: readonly TrajectoryAction[];
  lookups?: readonly HeuristicLookup[];
  /** Run this workflow instead of the loop (a suite task's `workflow`). */
  workflow?: { name: string; run: WorkflowLike };
  /**
   * This is the loop run on the task of that id, made to compare with its workflow (`compareLoop`): its records are
   * left out of the aggregates and compared in the report's loop-vs-workflow section.
   */
  baselineOf?: string;
  judge(outcome: RunOutcome): Verdict;
}
