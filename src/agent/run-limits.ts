import { testRegexBounded } from "../bounded-regex.js";
import { USER_REGEX_TIMEOUT_MS } from "../defaults.js";
import { describeThrown } from "../safe-stringify.js";
import type { AgentState } from "./agent-state.js";

/**
 * What a run may spend and say (a definition's `constraints`). Local models have no money cost: tokens and time are
 * the budget. Exceeding one ends the run with `stopReason: "constraint_violated"` and a `constraint-violated` event.
 */
export interface AgentConstraints {
  /** Wall time of the whole run, ms: a run still going then is stopped (the model call or skill under way included). */
  maxLatencyMs?: number;
  /** Prompt plus generated tokens over the run's model calls (as the model counts them, or estimated without stats). */
  maxTotalTokens?: number;
  /**
   * An answer matching one of these ends the run instead of answering: a text matches when it contains the pattern,
   * case-insensitive; a pattern written `/.../` is a regular expression (flag `i` added).
   */
  forbiddenPatterns?: readonly string[];
}

/**
 * The abort reason of a run stopped by its latency limit. Not a CodedError: a run that hits its limit ends with
 * `constraint_violated` (ask exits 1), not as a setup error (the CLI reports any CodedError as one, exit 2); callers
 * tell it by `instanceof` and read `limitMs` / `elapsedMs`, and there is one kind.
 */
export class LatencyExceeded extends Error {
  override readonly name = "LatencyExceeded";
  constructor(
    readonly limitMs: number,
    readonly elapsedMs: number,
  ) {
    super(`the run took longer than its limit of ${limitMs} ms (max_latency_ms)`);
  }
}

/**
 * A forbidden pattern as a case-insensitive test: `/body/flags` is a regular expression (compiled now, so a bad one
 * throws here), anything else a substring. A regular expression runs in a worker under USER_REGEX_TIMEOUT_MS
 * (testRegexBounded): one that takes longer on a text answers "timeout" instead of holding the run.
 */
export function forbiddenPatternTest(pattern: string): (text: string) => boolean | "timeout" {
  const regex = /^\/(.+)\/([a-z]*)$/s.exec(pattern);
  if (regex) {
    const flags = regex[2].includes("i") ? regex[2] : `${regex[2]}i`;
    new RegExp(regex[1], flags);
    return (text) => testRegexBounded(regex[1], flags, text, USER_REGEX_TIMEOUT_MS);
  }
  const needle = pattern.toLowerCase();
  return (text) => text.toLowerCase().includes(needle);
}

/** Throws (a caller bug) for limits that are not positive integers or patterns that are not valid. */
export function checkConstraints(constraints: AgentConstraints | undefined): void {
  if (!constraints) return;
  for (const key of ["maxLatencyMs", "maxTotalTokens"] as const) {
    const value = constraints[key];
    if (value !== undefined && !(Number.isInteger(value) && value >= 1))
      throw new RangeError(`Agent: constraints.${key} must be an integer >= 1 (got ${String(value)})`);
  }
  for (const pattern of constraints.forbiddenPatterns ?? []) {
    if (typeof pattern !== "string" || pattern === "")
      throw new TypeError("Agent: constraints.forbiddenPatterns must be non-empty strings");
    try {
      forbiddenPatternTest(pattern);
    } catch (error) {
      throw new TypeError(
        `Agent: forbidden pattern ${pattern} is not a valid regular expression (${describeThrown(error)})`,
      );
    }
  }
}

/**
 * The run's signal with its latency limit: aborted with {@link LatencyExceeded} once `maxLatencyMs` has passed since
 * the run started. `dispose` clears the timer.
 */
export function withLatencyLimit(
  state: AgentState,
  constraints: AgentConstraints | undefined,
  signal: AbortSignal | undefined,
): { signal: AbortSignal | undefined; dispose(): void } {
  const limit = constraints?.maxLatencyMs;
  if (limit === undefined) return { signal, dispose: () => {} };
  const controller = new AbortController();
  let timer: NodeJS.Timeout;
  // a timer may fire a fraction of a millisecond early: check, and wait out the rest
  const fire = () => {
    const elapsed = state.elapsed();
    if (elapsed < limit) timer = setTimeout(fire, Math.ceil(limit - elapsed));
    else controller.abort(new LatencyExceeded(limit, Math.round(elapsed)));
  };
  timer = setTimeout(fire, Math.max(0, Math.ceil(limit - state.elapsed())));
  return {
    signal: signal ? AbortSignal.any([signal, controller.signal]) : controller.signal,
    dispose: () => clearTimeout(timer),
  };
}

/** End an aborted run: by its latency limit (`constraint_violated`), or as aborted by its caller. */
export function stopAborted(state: AgentState, signal: AbortSignal | undefined): void {
  const reason: unknown = signal?.reason;
  if (reason instanceof LatencyExceeded) {
    state.emit({
      type: "constraint-violated",
      constraint: "max_latency_ms",
      limit: reason.limitMs,
      actual: reason.elapsedMs,
      message: `${reason.message}: stopped after ${reason.elapsedMs} ms`,
    });
    return state.finish("constraint_violated");
  }
  state.emit({ type: "aborted", reason: describeThrown(reason ?? "aborted") });
  state.finish("aborted");
}

/** After a model call: end the run when its tokens so far exceed `maxTotalTokens`. Returns whether it ended. */
export function stopOverTokens(state: AgentState, constraints: AgentConstraints | undefined): boolean {
  const limit = constraints?.maxTotalTokens;
  const used = state.usage.inputTokens + state.usage.outputTokens;
  if (limit === undefined || used <= limit) return false;
  state.emit({
    type: "constraint-violated",
    constraint: "max_total_tokens",
    limit,
    actual: used,
    message: `the run used ${used} tokens${state.usage.estimated ? " (estimated)" : ""}, over its limit of ${limit} (max_total_tokens)`,
  });
  state.finish("constraint_violated");
  return true;
}

/** On a final answer: end the run when the answer matches a forbidden pattern. Returns whether it ended. */
export function stopOnForbiddenAnswer(
  state: AgentState,
  answer: string,
  constraints: AgentConstraints | undefined,
): boolean {
  let pattern: string | undefined;
  let outcome: boolean | "timeout" = false;
  for (const candidate of constraints?.forbiddenPatterns ?? []) {
    outcome = forbiddenPatternTest(candidate)(answer);
    if (outcome !== false) {
      pattern = candidate;
      break;
    }
  }
  if (pattern === undefined) return false;
  state.emit({
    type: "constraint-violated",
    constraint: "forbidden_pattern",
    limit: pattern,
    answer,
    message:
      outcome === "timeout"
        ? `the forbidden pattern ${JSON.stringify(pattern)} took over ${USER_REGEX_TIMEOUT_MS} ms on the answer (forbidden_patterns): the answer is not given`
        : `the answer matches the forbidden pattern ${JSON.stringify(pattern)} (forbidden_patterns)`,
  });
  state.finish("constraint_violated");
  return true;
}
