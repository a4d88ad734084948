export { defineSkill, skillJsonSchema, type Skill, type SkillContext, type SkillRunState } from "./skill.js";
export { Registry } from "./registry.js";
export { executeCall, runSkill, type CallEnvironment, type CallOutcome } from "./run-skill.js";
export type { ApprovalDecision, ApprovalHook, Guard } from "./guards.js";
export { renderResult } from "./render-result.js";
export { safeStringify, describeThrown } from "../safe-stringify.js";
