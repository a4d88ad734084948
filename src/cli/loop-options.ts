import { withoutUndefined } from "../without-undefined.js";
import { Command, Option } from "commander";
import type { LoopSettings } from "../agent/agent.js";
import { DEFAULT_DECISION, DEFAULT_GROUNDING, DEFAULT_THOUGHT_PLACEMENT } from "../defaults.js";
import { inSection, SECTION } from "./help-sections.js";
import { parseIntegerOption, parseListOption } from "./parse-options.js";
import { CliUsageError } from "./cli-io.js";
import { GROUNDING_LEVERS, type GroundingLever } from "../model/model-handle.js";
import { DECISION_LEVERS, type DecisionLever } from "../decision/step-decision.js";

/** The loop flags as commander parses them (`--no-final-round` gives finalRound: false, `--no-fit-context` fitContext: false). */
export interface LoopCommandOptions {
  /** `--no-grammar` sets it false. */
  grammar: boolean;
  finalRound?: boolean;
  thought?: "first" | "last" | "none";
  maxThoughtChars?: number;
  maxAnswerChars?: number;
  promptStyle?: "full" | "compact";
  exampleTrajectory?: boolean;
  paramDetails?: boolean;
  fitContext?: boolean;
  grounding?: "off" | "soft" | "strict";
  groundingLevers?: GroundingLever[];
  decision?: "off" | "scored";
  decisionLevers?: DecisionLever[];
}

/** `--grounding-levers copy,numbers`: some of GROUNDING_LEVERS, at least one. */
function parseGroundingLevers(value: string): GroundingLever[] {
  const items = parseListOption(value);
  const unknown = items.filter((item) => !(GROUNDING_LEVERS as readonly string[]).includes(item));
  if (items.length === 0 || unknown.length > 0)
    throw new CliUsageError(
      `--grounding-levers: give some of ${GROUNDING_LEVERS.join(", ")}, comma-separated${unknown.length ? ` (not ${unknown.join(", ")})` : ""}`,
    );
  return [...new Set(items as GroundingLever[])];
}

/** `--decision-levers fit,words`: some of DECISION_LEVERS, or `none` (offsets 0: the model alone, branches reported). */
function parseDecisionLevers(value: string): DecisionLever[] {
  const items = parseListOption(value);
  if (items.length === 1 && items[0] === "none") return [];
  const unknown = items.filter((item) => !(DECISION_LEVERS as readonly string[]).includes(item));
  if (items.length === 0 || unknown.length > 0)
    throw new CliUsageError(
      `--decision-levers: give some of ${DECISION_LEVERS.join(", ")}, comma-separated, or none${unknown.length ? ` (not ${unknown.join(", ")})` : ""}`,
    );
  return [...new Set(items as DecisionLever[])];
}

/**
 * Add the flags that shape the loop on a small model (each defaults to the agent's default, the measured best) and
 * `--no-grammar`: the levers section of the help.
 */
export function loopOptions(command: Command): Command {
  return inSection(command, SECTION.levers, (c) => loopLevers(c));
}

function loopLevers(command: Command): Command {
  return command
    .option(
      "--no-grammar",
      "do not constrain replies with the action grammar (measures the model writing JSON on its own)",
    )
    .option("--no-final-round", "let the last step of the budget, and the step after a repeated call, call skills too")
    .addOption(
      new Option(
        "--thought <where>",
        `where the action's thought goes (default: ${DEFAULT_THOUGHT_PLACEMENT})`,
      ).choices(["first", "last", "none"]),
    )
    .option(
      "--max-thought-chars <n>",
      "longest thought under the grammar, 0 = unbounded (default: 200)",
      parseIntegerOption(0),
    )
    .option(
      "--max-answer-chars <n>",
      "longest final answer under the grammar, 0 = unbounded (default: 300)",
      parseIntegerOption(0),
    )
    .addOption(
      new Option(
        "--prompt-style <style>",
        "system prompt: full (skills' JSON Schemas) or compact (signatures)",
      ).choices(["full", "compact"]),
    )
    .option("--example-trajectory", "show the model one worked example conversation (call, result, answer)")
    .option(
      "--param-details",
      "document skills' arguments one parameter a line (description, allowed values, default) instead of JSON Schemas",
    )
    .option("--no-param-details", "document skills' arguments as JSON Schemas (full style) or signatures (compact)")
    .option("--no-fit-context", "do not leave out old steps to keep the prompt inside the context")
    .addOption(
      new Option(
        "--grounding <mode>",
        `steer argument and answer values toward the question and the results: off, soft or strict (default: ${DEFAULT_GROUNDING}; over a model server, strict's limits go as the request's schema, soft falls back to them)`,
      ).choices(["off", "soft", "strict"]),
    )
    .option(
      "--grounding-levers <list>",
      `which parts of grounding act, to measure each alone: some of ${GROUNDING_LEVERS.join(", ")} (default: all)`,
      parseGroundingLevers,
    )
    .addOption(
      new Option(
        "--decision <mode>",
        `how a reply decides whether to call and which skill: off (the model alone) or scored (its probabilities plus each skill's fit to the question) (default: ${DEFAULT_DECISION}; over a model server, as the request's schema)`,
      ).choices(["off", "scored"]),
    )
    .option(
      "--decision-levers <list>",
      `which parts of the decision act, to measure each alone: some of ${DECISION_LEVERS.join(", ")}, or none (default: all)`,
      parseDecisionLevers,
    );
}

/** The agent's loop settings from the parsed flags: only those given (commander sets the `--no-` ones to true by default). */
export function loopSettings(options: LoopCommandOptions): LoopSettings {
  return withoutUndefined({
    finalRoundWithoutTools: options.finalRound === false ? false : undefined,
    thought: options.thought,
    maxThoughtChars: options.maxThoughtChars,
    maxAnswerChars: options.maxAnswerChars,
    promptStyle: options.promptStyle,
    exampleTrajectory: options.exampleTrajectory ? true : undefined,
    paramDetails: options.paramDetails,
    fitContext: options.fitContext === false ? false : undefined,
    grounding: options.grounding,
    groundingLevers: options.groundingLevers,
    decision: options.decision,
    decisionLevers: options.decisionLevers,
  });
}
