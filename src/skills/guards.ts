import type { SkillCall } from "./skill-call.js";
import type { SkillRunState } from "./skill.js";

/** What the approval hook decides for one call. */
export type ApprovalDecision =
  | "allow"
  | "deny"
  | { decision: "allow" }
  | { decision: "deny"; reason?: string }
  /** Run with these arguments instead (they are validated again against the skill's schema). */
  | { decision: "correct"; arguments: Record<string, unknown> };

/**
 * Asked before each call runs, after its arguments were validated: allow it, deny it (the model sees a tool-error
 * naming the guard `approval`), or correct its arguments. The CLI's `--approve` asks a person y / n / e(dit).
 */
export type ApprovalHook = (
  call: SkillCall,
  state: Readonly<SkillRunState>,
) => ApprovalDecision | Promise<ApprovalDecision>;

/** A custom check before a call runs; it sees only validated arguments. */
export interface Guard {
  readonly name: string;
  check(
    call: SkillCall,
    state: Readonly<SkillRunState>,
  ): { ok: true } | { ok: false; reason: string } | Promise<{ ok: true } | { ok: false; reason: string }>;
}
