import { DEFAULT_SKILL_TIMEOUT_MS } from "../defaults.js";
import type { SkillCall } from "./skill-call.js";
import type { Registry } from "./registry.js";
import type { Skill, SkillRunState } from "./skill.js";
import { renderResult } from "./render-result.js";
import { describeThrown } from "../safe-stringify.js";
import { abortError, raceAbort } from "../abort.js";
import { renderPrompt } from "../prompt-texts.js";
import { callRefusal, checkCall } from "./check-call.js";

/** What one call needs from its run. */
export interface CallEnvironment {
  registry: Registry;
  /** The run's signal: aborting it cancels the skill at once. */
  signal?: AbortSignal;
  state: SkillRunState;
  /** Default 30 s; a skill's own `timeoutMs` wins. */
  timeoutMs?: number;
  /** Nesting depth of the calling agent (for skills that run agents). Default 0. */
  depth?: number;
  /** Passes events of a nested run up to the calling agent's stream. */
  forward?: (event: { type: string; depth?: number }) => void;
}

/**
 * How a call ended: the value and its text, or the failure's message (neither capped: the agent caps what enters the
 * prompt). `guard` names what refused it, when something did.
 */
export type CallOutcome =
  { ok: true; value: unknown; text: string } | { ok: false; message: string; guard?: string; aborted?: boolean };

/**
 * Run `fn` with a signal that aborts on the run's signal or after `timeoutMs`, and settle as soon as either fires,
 * even when `fn` ignores its signal (the skill is abandoned, never awaited past that).
 */
async function runWithSignal<T>(
  fn: (signal: AbortSignal) => T | Promise<T>,
  outer: AbortSignal | undefined,
  timeoutMs: number,
): Promise<T> {
  const controller = new AbortController();
  const timedOut = () => new Error(renderPrompt("tool-errors/timed-out", { timeout_ms: timeoutMs }));
  const timer = setTimeout(() => controller.abort(timedOut()), timeoutMs);
  const onOuterAbort = () => controller.abort(abortError(outer?.reason));
  if (outer?.aborted) onOuterAbort();
  else outer?.addEventListener("abort", onOuterAbort, { once: true });
  try {
    return await raceAbort(
      Promise.resolve().then(() => fn(controller.signal)),
      controller.signal,
    );
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onOuterAbort);
  }
}

/**
 * Run a skill with arguments that already passed its schema: with an AbortSignal and a timeout; its result rendered
 * as text. Never throws: a failure is an outcome the model will see.
 */
export async function runSkill(skill: Skill, args: unknown, env: CallEnvironment): Promise<CallOutcome> {
  try {
    const value = await runWithSignal(
      (signal) =>
        skill.run(args, {
          signal,
          state: Object.freeze({ ...env.state }),
          depth: env.depth ?? 0,
          ...(env.forward && { forward: env.forward }),
        }),
      env.signal,
      skill.timeoutMs ?? env.timeoutMs ?? DEFAULT_SKILL_TIMEOUT_MS,
    );
    return { ok: true, value, text: renderResult(value) };
  } catch (error) {
    if (env.signal?.aborted) return { ok: false, aborted: true, message: "aborted" };
    return { ok: false, message: describeThrown(error) };
  }
}

/**
 * Run one call: the skill must be in the registry (a scoped view holds only what may run) and its arguments must
 * pass its zod schema (the skill gets the parsed values); then {@link runSkill}. Never throws.
 */
export async function executeCall(call: SkillCall, env: CallEnvironment): Promise<CallOutcome> {
  const checked = checkCall(env.registry, call);
  if (!checked.ok) return { ok: false, ...callRefusal(call, checked) };
  return runSkill(checked.skill, checked.validated, env);
}
