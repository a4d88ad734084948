import type { CallSkillAction, CallSkillsAction, SkillCall } from "../actions/action.js";
import { callDependencies, resolveReferences } from "../actions/call-references.js";
import { DEFAULT_MAX_CONCURRENCY, DEFAULT_MAX_RESULT_CHARS, REPEAT_BLOCK_AT } from "../defaults.js";
import { createLimiter, type Limiter } from "../promise-pool.js";
import { renderPrompt, promptText } from "../prompt-texts.js";
import { callRefusal, checkArguments, checkCall } from "../skills/check-call.js";
import { runSkill, type CallEnvironment, type CallOutcome } from "../skills/run-skill.js";
import type { ApprovalDecision, ApprovalHook, Guard } from "../skills/guards.js";
import type { Registry } from "../skills/registry.js";
import type { Skill, SkillRunState } from "../skills/skill.js";
import { describeThrown } from "../safe-stringify.js";
import { withoutUndefined } from "../without-undefined.js";
import type { AgentState } from "./agent-state.js";
import { capResult } from "./build-messages.js";
import type { AgentEvent, EventInput } from "./events.js";

/** Agent options that shape how skills run. */
export interface DispatchOptions {
  /** Per-skill timeout, ms. Default 30,000 (a skill's own `timeoutMs` wins). */
  skillTimeoutMs?: number;
  /** Results enter the prompt capped at this many characters. Default 4,000. */
  maxResultChars?: number;
  /** Parallel calls of one action run at most this many at a time. Default 4. */
  maxConcurrency?: number;
  /** Asked before each call, after argument validation and scope: allow, deny, or correct. Default: allow all. */
  approve?: ApprovalHook;
  /** Custom checks after approval, in order. Default: none. */
  guards?: Guard[];
}

/** What dispatch needs from the loop. */
export interface DispatchContext {
  registry: Registry;
  signal?: AbortSignal;
  options: DispatchOptions;
}

/**
 * What a call's `call-skill` event shows: `arguments` as written (by the model, or by the approver when it corrected
 * them), the model's own as `originalArguments` when the approver corrected them, and `repeated` when the call was
 * answered from an earlier identical one. Absent fields stay absent in the event.
 */
interface Announcement {
  arguments: Record<string, unknown>;
  originalArguments?: Record<string, unknown>;
  repeated?: true;
}

/** A call that passed the guard chain: the skill, and its arguments `validated` by the skill's schema (what it gets). */
type Cleared = { ok: true; skill: Skill; written: Announcement; validated: Record<string, unknown> };
/** A call the guard chain stopped; `written` shows the corrected arguments when the approver had corrected it first. */
type Refused = { ok: false; guard: string; message: string; written: Announcement };

/** What one call produced: events to emit in call order, and its value for references. */
interface CallRecord {
  events: EventInput[];
  value?: unknown;
  failed: boolean;
  aborted?: boolean;
}

/** One call to run: the call (its references resolved), its place in a parallel action, and its `call-skill` event. */
interface CallRun {
  call: SkillCall;
  /** Position inside a parallel-calls action; absent for a single call. */
  callIndex?: number;
  state: AgentState;
  ctx: DispatchContext;
  /** Emits the call's `call-skill` event, once the call is answered, refused or cleared to run. */
  announce: (announcement: Announcement) => void;
}

function runState(state: AgentState): SkillRunState {
  return { query: state.query, iterations: state.iterations };
}

function abortedRecord(): CallRecord {
  return { failed: true, aborted: true, events: [] };
}

/** A `tool-error` event; the optional fields are left out when undefined. */
function toolErrorEvent(
  skillName: string,
  message: string,
  registry: Registry,
  optional: { guard?: string; warning?: string; callIndex?: number },
): EventInput {
  return { type: "tool-error", skillName, message, availableSkills: registry.names(), ...withoutUndefined(optional) };
}

/** An `observation` event; the optional fields are left out when undefined. */
function observationEvent(
  skillName: string,
  result: string,
  optional: { truncated?: true; warning?: string; callIndex?: number },
): EventInput {
  return { type: "observation", skillName, result, ...withoutUndefined(optional) };
}

/** The tool-error message of a denied call: the approver's reason, or a plain "not approved". */
function denialMessage(decision: ApprovalDecision): string {
  const reason = typeof decision === "object" && decision.decision === "deny" ? decision.reason : undefined;
  return reason ? renderPrompt("tool-errors/denied", { reason }) : promptText("tool-errors/denied-without-reason");
}

/** The approval hook's ruling on a call whose arguments passed its schema; corrected arguments are validated again. */
async function askApproval(
  call: SkillCall,
  cleared: Cleared,
  state: AgentState,
  ctx: DispatchContext,
): Promise<Cleared | Refused> {
  if (!ctx.options.approve) return cleared;
  const decision = await ctx.options.approve(
    { skillName: call.skillName, arguments: cleared.validated },
    runState(state),
  );
  if (decision === "deny" || (typeof decision === "object" && decision.decision === "deny"))
    return { ok: false, guard: "approval", message: denialMessage(decision), written: cleared.written };
  if (typeof decision !== "object" || decision.decision !== "correct") return cleared;
  // the call refused or run is the corrected one: its events show the arguments the user wrote
  const written = { arguments: decision.arguments, originalArguments: call.arguments };
  const args = checkArguments(cleared.skill, decision.arguments);
  if (!args.ok) {
    const message = renderPrompt("tool-errors/invalid-correction", { detail: args.detail });
    return { ok: false, guard: "approval", message, written };
  }
  return { ok: true, skill: cleared.skill, written, validated: args.validated };
}

/** The custom guards, in order, on the validated arguments; the first refusal wins. */
async function runCustomGuards(
  call: SkillCall,
  cleared: Cleared,
  state: AgentState,
  ctx: DispatchContext,
): Promise<Refused | undefined> {
  for (const guard of ctx.options.guards ?? []) {
    const verdict = await guard.check({ skillName: call.skillName, arguments: cleared.validated }, runState(state));
    if (!verdict.ok) return { ok: false, guard: guard.name, message: verdict.reason, written: cleared.written };
  }
  return undefined;
}

/**
 * The guard chain, in order: the call check (an unknown skill fails as `scope`, arguments that fail the skill's zod
 * schema as `arguments`), the approval hook (corrected arguments are validated again), then the custom guards, which
 * see only validated arguments. An approver or guard that throws refuses the call as `approval`.
 */
async function runGuards(call: SkillCall, state: AgentState, ctx: DispatchContext): Promise<Cleared | Refused> {
  const asWritten: Announcement = { arguments: call.arguments };
  const checked = checkCall(ctx.registry, call);
  if (!checked.ok) return { ok: false, ...callRefusal(call, checked), written: asWritten };
  try {
    const cleared: Cleared = { ok: true, skill: checked.skill, written: asWritten, validated: checked.validated };
    const approved = await askApproval(call, cleared, state, ctx);
    if (!approved.ok) return approved;
    return (await runCustomGuards(call, approved, state, ctx)) ?? approved;
  } catch (error) {
    const message = renderPrompt("tool-errors/approval-failed", { detail: describeThrown(error) });
    return { ok: false, guard: "approval", message, written: asWritten };
  }
}

/**
 * Repetition control before a call runs: an exact repeat of a call that succeeded is answered with the earlier result
 * (and not run, unless the skill is `repeatable`); a call that failed the same way REPEAT_BLOCK_AT - 1 times is
 * blocked. Either asks the loop for a final round. Returns the call's record, or undefined when the call should run.
 */
function answerRepeat({ call, callIndex, state, ctx, announce }: CallRun): CallRecord | undefined {
  const prior = state.repetition.prior(call);
  if (!prior) return undefined;
  state.stats.repeatedCalls++;
  if (prior.outcome.ok && !ctx.registry.get(call.skillName)?.repeatable) {
    announce({ arguments: call.arguments, repeated: true });
    state.finalRoundRequested = true;
    const warning = promptText("repeat-answered");
    return {
      failed: false,
      value: prior.outcome.value,
      events: [observationEvent(call.skillName, prior.outcome.result, { warning, callIndex })],
    };
  }
  if (!prior.outcome.ok && state.repetition.blocked(call)) {
    announce({ arguments: call.arguments });
    state.finalRoundRequested = true;
    state.stats.toolErrors++;
    const message = renderPrompt("repeat-blocked", { count: prior.count, message: prior.outcome.message });
    return {
      failed: true,
      events: [toolErrorEvent(call.skillName, message, ctx.registry, { guard: "repetition", callIndex })],
    };
  }
  return undefined;
}

/** A call that failed (refused by a guard, or the skill failed): a tool-error, with a warning when it failed so before. */
function failedCall({ call, callIndex, state, ctx }: CallRun, message: string, guard?: string): CallRecord {
  state.stats.toolErrors++;
  const again = state.repetition.record(call, { ok: false, message });
  // the same skill failing the same way REPEAT_BLOCK_AT times in a row, whatever values it was given: a final round
  if (state.repetition.failureStreak(call, message) >= REPEAT_BLOCK_AT) state.finalRoundRequested = true;
  const warning = again ? promptText("repeat-failed") : undefined;
  return {
    failed: true,
    events: [toolErrorEvent(call.skillName, message, ctx.registry, { guard, warning, callIndex })],
  };
}

/** A call whose skill returned: its observation, with a warning when the same call gave the same result before. */
function succeededCall(
  { call, callIndex, state }: CallRun,
  outcome: { value: unknown; text: string; truncated: boolean },
): CallRecord {
  const repeated = state.repetition.record(call, { ok: true, result: outcome.text, value: outcome.value });
  const truncated = outcome.truncated ? true : undefined;
  const warning = repeated ? promptText("repeat-warning") : undefined;
  return {
    failed: false,
    value: outcome.value,
    events: [observationEvent(call.skillName, outcome.text, { truncated, warning, callIndex })],
  };
}

/** How a skill runs inside this agent's run: its signal, limits, depth, and the stream nested events go up to. */
function skillEnvironment(state: AgentState, ctx: DispatchContext): CallEnvironment {
  return {
    registry: ctx.registry,
    signal: ctx.signal,
    state: runState(state),
    timeoutMs: ctx.options.skillTimeoutMs,
    depth: state.depth,
    forward: (event) => state.stream.push(event as AgentEvent),
  };
}

/**
 * Run the cleared skill inside its `execute_tool` span when the run is traced (a nested agent's spans become its
 * children); the span is marked failed with the message the model sees.
 */
async function tracedSkill(run: CallRun, skill: Skill, args: Record<string, unknown>): Promise<CallOutcome> {
  const execute = () => runSkill(skill, args, skillEnvironment(run.state, run.ctx));
  const span = run.state.trace?.tool({
    name: skill.name,
    description: skill.description,
    callId: `${run.state.iterations}.${run.callIndex ?? 0}`,
  });
  if (!span) return execute();
  const outcome = await span.run(execute);
  span.finish(outcome.ok ? undefined : outcome.message);
  return outcome;
}

/** Repetition control, guards, execution: one call, from the model's arguments to its events. */
async function runOneCall(run: CallRun): Promise<CallRecord> {
  const repeat = answerRepeat(run);
  if (repeat) return repeat;
  const cleared = await runGuards(run.call, run.state, run.ctx);
  run.announce(cleared.written);
  if (!cleared.ok) return failedCall(run, cleared.message, cleared.guard);
  run.state.stats.skillCalls++;
  const outcome = await tracedSkill(run, cleared.skill, cleared.validated);
  const maxChars = run.ctx.options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  if (!outcome.ok)
    return outcome.aborted ? abortedRecord() : failedCall(run, capResult(outcome.message, maxChars).text);
  return succeededCall(run, { value: outcome.value, ...capResult(outcome.text, maxChars) });
}

/** One parallel action under way: the calls' dependencies and records, and how many records entered the stream. */
interface ParallelRun {
  state: AgentState;
  ctx: DispatchContext;
  deps: number[][];
  limit: Limiter;
  records: (CallRecord | undefined)[];
  finished: Promise<CallRecord>[];
  flushed: number;
}

/** Keep call `i`'s record, then emit the records now complete from the front: events enter in call order. */
function settle(run: ParallelRun, i: number, record: CallRecord): CallRecord {
  run.records[i] = record;
  while (run.flushed < run.records.length && run.records[run.flushed]) {
    for (const event of run.records[run.flushed++]!.events) run.state.emit(event);
  }
  return record;
}

/** A call of a parallel action that does not run (its input failed, or its references do not resolve). */
function notRun(run: ParallelRun, call: SkillCall, i: number, message: string): CallRecord {
  run.state.stats.toolErrors++;
  return { failed: true, events: [toolErrorEvent(call.skillName, message, run.ctx.registry, { callIndex: i })] };
}

/**
 * Call `i` of a parallel action: wait for the calls it references; skip it when one of them failed; resolve its
 * references; then run it when a slot is free. Its record is settled in every case.
 */
async function runParallelCall(run: ParallelRun, call: SkillCall, i: number): Promise<CallRecord> {
  const inputs = await Promise.all(run.deps[i].map((j) => run.finished[j]));
  const failedInput = run.deps[i].find((_, k) => inputs[k].failed);
  if (run.ctx.signal?.aborted) return settle(run, i, abortedRecord());
  if (failedInput !== undefined) {
    return settle(run, i, notRun(run, call, i, renderPrompt("tool-errors/input-failed", { index: failedInput })));
  }
  let resolved: SkillCall;
  try {
    const values = run.records.map((r) => r?.value);
    resolved = {
      skillName: call.skillName,
      arguments: resolveReferences(call.arguments, values) as Record<string, unknown>,
    };
  } catch (error) {
    return settle(run, i, notRun(run, call, i, describeThrown(error)));
  }
  const action: CallSkillAction = { type: "call-skill", ...resolved, raw: "" };
  const announce = (announcement: Announcement) => run.state.emit({ ...action, callIndex: i, ...announcement });
  return run.limit(async () =>
    settle(run, i, await runOneCall({ call: resolved, callIndex: i, state: run.state, ctx: run.ctx, announce })),
  );
}

/**
 * Run the calls of one parallel action: each waits for the calls it references, at most `maxConcurrency` run at once,
 * one failure does not stop the others (a call whose input failed is skipped with a tool-error), and the
 * observations enter the stream in call order.
 */
async function runCalls(
  action: CallSkillsAction,
  state: AgentState,
  ctx: DispatchContext,
): Promise<"done" | "aborted"> {
  const run: ParallelRun = {
    state,
    ctx,
    deps: callDependencies(action.calls), // checked at parse time: backward references only
    limit: createLimiter(ctx.options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY),
    records: action.calls.map(() => undefined),
    finished: [],
    flushed: 0,
  };
  // each call awaits the promises of the earlier calls it references, so they are made in call order
  for (const [i, call] of action.calls.entries()) run.finished[i] = runParallelCall(run, call, i);
  const all = await Promise.all(run.finished);
  return all.some((r) => r.aborted) ? "aborted" : "done";
}

/**
 * Run the calls of an action and put what came of them on the stream: the action (`call-skill`, or `call-skills`
 * followed by a `call-skill` per call), then an `observation` or `tool-error` per call. Returns "aborted" when the
 * run's signal stopped it.
 */
export async function dispatchAction(
  action: CallSkillAction | CallSkillsAction,
  state: AgentState,
  ctx: DispatchContext,
): Promise<"done" | "aborted"> {
  if (action.type === "call-skills") {
    state.emit(action);
    return runCalls(action, state, ctx);
  }
  const announce = (announcement: Announcement) => state.emit({ ...action, ...announcement });
  const record = await runOneCall({ call: action, state, ctx, announce });
  if (record.aborted) return "aborted";
  for (const event of record.events) state.emit(event);
  return "done";
}

/** What one call made by code (a workflow's `ctx.call`) came to: the skill's value and its text, a failure, or an abort. */
export type CallResult =
  | { status: "ok"; value: unknown; result: string }
  | { status: "failed"; message: string; guard?: string }
  | { status: "aborted" };

/**
 * One call that code makes, not the model (a workflow's `ctx.call`): the same repetition control, guards, approval,
 * timeout and result cap as the loop's calls, the same `call-skill` (marked `origin: "workflow"`, with no reply of
 * its own) and `observation` / `tool-error` events. Returns the skill's value (a repeat answered from an earlier
 * identical call returns that call's value), the failure as the model would have seen it, or "aborted".
 */
export async function dispatchCall(call: SkillCall, state: AgentState, ctx: DispatchContext): Promise<CallResult> {
  const action: CallSkillAction = { type: "call-skill", ...call, raw: "" };
  const announce = (announcement: Announcement) => state.emit({ ...action, ...announcement, origin: "workflow" });
  const record = await runOneCall({ call, state, ctx, announce });
  if (record.aborted) return { status: "aborted" };
  for (const event of record.events) state.emit(event);
  const outcome = record.events[0];
  if (outcome?.type === "observation" && !record.failed)
    return { status: "ok", value: record.value, result: outcome.result };
  if (outcome?.type === "tool-error") return { status: "failed", message: outcome.message, guard: outcome.guard };
  return { status: "failed", message: "the call produced no result" };
}
