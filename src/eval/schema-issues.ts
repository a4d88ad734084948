import type { z } from "zod";
import { formatIssuePath } from "../issue-path.js";
import { EvalSetupError, type EvalSetupErrorCode } from "./errors.js";

/** `tasks[3].expected.matches` from a zod issue path (the root leaf src/issue-path.ts, shared with definitions). */
export { formatIssuePath };

/** One line per issue: `path: message`, at most `limit` of them. */
export function formatIssues(error: z.ZodError, limit = 10): string {
  const lines = error.issues.slice(0, limit).map((issue) => `  ${formatIssuePath(issue.path)}: ${issue.message}`);
  if (error.issues.length > limit) lines.push(`  ... and ${error.issues.length - limit} more`);
  return lines.join("\n");
}

/**
 * `data` as `schema` parses it; data that does not fit is an `EvalSetupError(code)` naming its first bad field:
 * `<notA> (rates.wrong_answer: Too big: expected number to be <=1)`.
 */
export function parseOrSetupError<T>(schema: z.ZodType<T>, data: unknown, code: EvalSetupErrorCode, notA: string): T {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new EvalSetupError(code, `${notA} (${formatIssuePath(issue.path)}: ${issue.message})`);
}
