import { z } from "zod";
import type { CallSkillAction, CallSkillsAction, SkillCall } from "../actions/action.js";
import { callDependencies, resolveReferences } from "../actions/call-references.js";
import { DEFAULT_MAX_CONCURRENCY } from "../defaults.js";
import { renderPrompt, promptText } from "../prompt-texts.js";
import { runSkill, type CallOutcome } from "../skills/run-skill.js";
import type { ApprovalHook, Guard } from "../skills/guards.js";
import type { Registry } from "../skills/registry.js";
import type { SkillRunState } from "../skills/skill.js";
import { describeThrown } from "../skills/render-result.js";
import type { AgentState } from "./agent-state.js";
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
 * A call that passed the guard chain: `arguments` as written (by the model, or by the approver when it corrected
 * them), `validated` as parsed by the skill's schema (defaults filled in: what the skill gets), and the model's own
 * arguments when the approver corrected them.
 */
type Cleared = {
  ok: true;
  arguments: Record<string, unknown>;
  validated: Record<string, unknown>;
  originalArguments?: Record<string, unknown>;
};
/** A call the guard chain stopped; `arguments`/`originalArguments` are set when the approver had corrected it first. */
type Refused = {
  ok: false;
  guard: string;
  message: string;
  arguments?: Record<string, unknown>;
  originalArguments?: Record<string, unknown>;
};

function runState(state: AgentState): SkillRunState {
  return { query: state.query, iterations: state.iterations };
}

/**
 * The guard chain, in order: argument validation (the skill's zod schema; an unknown skill fails as `scope`), the
 * approval hook (corrected arguments are validated again), then the custom guards, which see only validated arguments.
 */
async function runGuards(call: SkillCall, state: AgentState, ctx: DispatchContext): Promise<Cleared | Refused> {
  const skill = ctx.registry.get(call.skillName);
  if (!skill) return { ok: false, guard: "scope", message: `the skill "${call.skillName}" is not available here` };
  const validate = (args: unknown): z.ZodSafeParseResult<unknown> => skill.parameters.safeParse(args);
  let parsed = validate(call.arguments);
  if (!parsed.success)
    return { ok: false, guard: "arguments", message: `invalid arguments: ${z.prettifyError(parsed.error)}` };
  let validated = parsed.data as Record<string, unknown>;
  let written = call.arguments;
  let originalArguments: Record<string, unknown> | undefined;
  try {
    if (ctx.options.approve) {
      const decision = await ctx.options.approve({ skillName: call.skillName, arguments: validated }, runState(state));
      if (decision === "deny" || (typeof decision === "object" && decision.decision === "deny")) {
        const reason =
          typeof decision === "object" && decision.decision === "deny" && decision.reason
            ? decision.reason
            : "not approved";
        return { ok: false, guard: "approval", message: `denied: ${reason}` };
      }
      if (typeof decision === "object" && decision.decision === "correct") {
        parsed = validate(decision.arguments);
        // the call refused is the corrected one: its events show the arguments the user wrote
        const corrected = { arguments: decision.arguments, originalArguments: call.arguments };
        if (!parsed.success)
          return {
            ok: false,
            guard: "approval",
            message: `the corrected arguments are invalid: ${z.prettifyError(parsed.error)}`,
            ...corrected,
          };
        originalArguments = call.arguments;
        written = decision.arguments;
        validated = parsed.data as Record<string, unknown>;
      }
    }
    for (const guard of ctx.options.guards ?? []) {
      const verdict = await guard.check({ skillName: call.skillName, arguments: validated }, runState(state));
      if (!verdict.ok)
        return {
          ok: false,
          guard: guard.name,
          message: verdict.reason,
          ...(originalArguments && { arguments: written, originalArguments }),
        };
    }
  } catch (error) {
    return { ok: false, guard: "approval", message: `the approval check failed: ${describeThrown(error)}` };
  }
  return { ok: true, arguments: written, validated, ...(originalArguments && { originalArguments }) };
}

/** What one call produced: events to emit in call order, and its value for references. */
interface CallRecord {
  events: EventInput[];
  value?: unknown;
  failed: boolean;
  aborted?: boolean;
}

/**
 * Repetition control before a call runs: an exact repeat of a call that succeeded is answered with the earlier result
 * (and not run, unless the skill is `repeatable`); a call that failed the same way REPEAT_BLOCK_AT - 1 times is
 * blocked. Either asks the loop for a final round. Returns the call's record, or undefined when the call should run.
 */
function answerRepeat(
  call: SkillCall,
  indexed: { callIndex?: number },
  state: AgentState,
  ctx: DispatchContext,
  announce: Announce,
): CallRecord | undefined {
  const prior = state.repetition.prior(call);
  if (!prior) return undefined;
  state.stats.repeatedCalls++;
  if (prior.outcome.ok && !ctx.registry.get(call.skillName)?.repeatable) {
    announce(call.arguments, undefined, true);
    state.finalRoundRequested = true;
    const warning = promptText("repeat-answered");
    return {
      failed: false,
      value: prior.outcome.value,
      events: [{ type: "observation", skillName: call.skillName, result: prior.outcome.result, warning, ...indexed }],
    };
  }
  if (!prior.outcome.ok && state.repetition.blocked(call)) {
    announce(call.arguments);
    state.finalRoundRequested = true;
    state.stats.toolErrors++;
    const message = renderPrompt("repeat-blocked", { count: prior.count, message: prior.outcome.message });
    return {
      failed: true,
      events: [
        {
          type: "tool-error",
          skillName: call.skillName,
          message,
          availableSkills: ctx.registry.names(),
          guard: "repetition",
          ...indexed,
        },
      ],
    };
  }
  return undefined;
}

type Announce = (
  args: Record<string, unknown>,
  originalArguments?: Record<string, unknown>,
  repeated?: boolean,
) => void;

/** Repetition control, guards, execution: one call, from the model's arguments to its events. */
async function runOneCall(
  call: SkillCall,
  callIndex: number | undefined,
  state: AgentState,
  ctx: DispatchContext,
  announce: Announce,
): Promise<CallRecord> {
  const indexed = callIndex === undefined ? {} : { callIndex };
  const repeat = answerRepeat(call, indexed, state, ctx, announce);
  if (repeat) return repeat;
  const availableSkills = ctx.registry.names();
  const toolError = (message: string, guard?: string): CallRecord => {
    state.stats.toolErrors++;
    const again = state.repetition.record(call, { ok: false, message });
    const warning = again ? { warning: promptText("repeat-failed") } : {};
    return {
      failed: true,
      events: [
        {
          type: "tool-error",
          skillName: call.skillName,
          message,
          availableSkills,
          ...(guard && { guard }),
          ...warning,
          ...indexed,
        },
      ],
    };
  };
  const cleared = await runGuards(call, state, ctx);
  if (!cleared.ok) {
    announce(cleared.arguments ?? call.arguments, cleared.originalArguments);
    return toolError(cleared.message, cleared.guard);
  }
  announce(cleared.arguments, cleared.originalArguments);
  state.stats.skillCalls++;
  const outcome: CallOutcome = await runSkill(ctx.registry.get(call.skillName)!, cleared.validated, {
    registry: ctx.registry,
    signal: ctx.signal,
    state: runState(state),
    timeoutMs: ctx.options.skillTimeoutMs,
    maxResultChars: ctx.options.maxResultChars,
    depth: state.depth,
    forward: (event) => state.stream.push(event as AgentEvent),
  });
  if (!outcome.ok) return outcome.aborted ? { failed: true, aborted: true, events: [] } : toolError(outcome.message);
  const repeated = state.repetition.record(call, { ok: true, result: outcome.text, value: outcome.value });
  return {
    failed: false,
    value: outcome.value,
    events: [
      {
        type: "observation",
        skillName: call.skillName,
        result: outcome.text,
        ...(outcome.truncated && { truncated: true }),
        ...(repeated && { warning: promptText("repeat-warning") }),
        ...indexed,
      },
    ],
  };
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
  const deps = callDependencies(action.calls); // checked at parse time: backward references only
  const limit = Math.max(1, ctx.options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY);
  const records: (CallRecord | undefined)[] = action.calls.map(() => undefined);
  const finished: Promise<CallRecord>[] = [];
  let active = 0;
  const waiting: (() => void)[] = [];
  const acquire = () =>
    active < limit ? (active++, Promise.resolve()) : new Promise<void>((r) => waiting.push(() => (active++, r())));
  const release = () => {
    active--;
    waiting.shift()?.();
  };
  let flushed = 0;
  const flush = () => {
    while (flushed < records.length && records[flushed]) for (const e of records[flushed++]!.events) state.emit(e);
  };
  action.calls.forEach((call, i) => {
    finished[i] = (async (): Promise<CallRecord> => {
      const inputs = await Promise.all(deps[i].map((j) => finished[j]));
      const failedInput = deps[i].find((j, k) => inputs[k].failed);
      let record: CallRecord;
      if (ctx.signal?.aborted) record = { failed: true, aborted: true, events: [] };
      else if (failedInput !== undefined) {
        state.stats.toolErrors++;
        record = {
          failed: true,
          events: [
            {
              type: "tool-error",
              skillName: call.skillName,
              message: `skipped: it uses the result of calls[${failedInput}], which failed`,
              availableSkills: ctx.registry.names(),
              callIndex: i,
            },
          ],
        };
      } else {
        let resolved: SkillCall;
        try {
          resolved = {
            skillName: call.skillName,
            arguments: resolveReferences(
              call.arguments,
              records.map((r) => r?.value),
            ) as Record<string, unknown>,
          };
        } catch (error) {
          state.stats.toolErrors++;
          return (records[i] = {
            failed: true,
            events: [
              {
                type: "tool-error",
                skillName: call.skillName,
                message: describeThrown(error),
                availableSkills: ctx.registry.names(),
                callIndex: i,
              },
            ],
          });
        }
        await acquire();
        try {
          record = await runOneCall(resolved, i, state, ctx, (args, original, repeated) =>
            state.emit({
              type: "call-skill",
              skillName: call.skillName,
              arguments: args,
              raw: "",
              callIndex: i,
              ...(original && { originalArguments: original }),
              ...(repeated && { repeated }),
            }),
          );
        } finally {
          release();
        }
      }
      records[i] = record;
      flush();
      return record;
    })();
  });
  const all = await Promise.all(finished);
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
  const record = await runOneCall(action, undefined, state, ctx, (args, original, repeated) =>
    state.emit({
      ...action,
      arguments: args,
      ...(original && { originalArguments: original }),
      ...(repeated && { repeated }),
    }),
  );
  if (record.aborted) return "aborted";
  for (const event of record.events) state.emit(event);
  return "done";
}
