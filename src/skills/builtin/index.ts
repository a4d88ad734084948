import type { Skill } from "../skill.js";
import { calculatorSkill } from "./calculator.js";
import { convertUnitsSkill } from "./convert-units.js";
import { createDatetimeSkill, datetimeSkill } from "./datetime.js";
import { createFileSkills } from "./file-skills.js";

export { calculatorSkill } from "./calculator.js";
export { convertUnits, convertUnitsSkill, type ConversionResult } from "./convert-units.js";
export {
  createDatetimeSkill,
  datetimeSkill,
  DATETIME_UNITS,
  type DatetimeDifference,
  type DatetimeNow,
  type DatetimeSkillOptions,
  type DatetimeUnit,
} from "./datetime.js";
export {
  evaluateExpression,
  ExpressionError,
  EXPRESSION_CONSTANTS,
  EXPRESSION_FUNCTIONS,
  type EvaluateExpressionOptions,
} from "./evaluate-expression.js";
export type { ExpressionErrorCode } from "./expression-lexer.js";
export {
  AllowDirError,
  FileAccessError,
  type AllowDirErrorCode,
  type FileAccessErrorCode,
} from "./file-access-error.js";
export {
  createFileSkills,
  type FileContent,
  type FileEntry,
  type FileListing,
  type FileSkillsOptions,
} from "./file-skills.js";
export {
  CALCULATOR_MAX_DEPTH,
  CALCULATOR_MAX_EXPRESSION_LENGTH,
  DATETIME_DEFAULT_TIME_ZONE,
  DATETIME_DEFAULT_UNIT,
  LIST_FILES_MAX_ENTRIES,
  READ_FILE_MAX_BYTES,
  RESULT_SIGNIFICANT_DIGITS,
} from "./defaults.js";
export { tidyNumber } from "./tidy-number.js";

/** Names of every built-in skill, in the order `builtinSkills` returns them. */
export const BUILTIN_SKILL_NAMES = ["calculator", "datetime", "convert_units", "list_files", "read_file"] as const;
/** The built-ins that exist only when a directory is allowed. */
export const FILE_SKILL_NAMES = ["list_files", "read_file"] as const;

/** Options of `builtinSkills`. */
export interface BuiltinSkillsOptions {
  /**
   * The directory `list_files` and `read_file` may read. Default: none, and then those two skills are not created
   * at all (safe by default: no file access unless the user asks with `--allow-dir`).
   */
  allowDir?: string;
  /** The clock of `datetime`; default the system clock. */
  now?: () => Date;
}

/**
 * The built-in skills: `calculator`, `datetime`, `convert_units`, plus `list_files` and `read_file` when `allowDir`
 * is given. Throws `AllowDirError` (code `not_found` / `not_a_directory`) when `allowDir` cannot be used.
 */
export function builtinSkills(options: BuiltinSkillsOptions = {}): Skill[] {
  const skills: Skill[] = [
    calculatorSkill,
    options.now ? createDatetimeSkill({ now: options.now }) : datetimeSkill,
    convertUnitsSkill,
  ];
  if (options.allowDir !== undefined) {
    const { listFiles, readFile } = createFileSkills({ allowDir: options.allowDir });
    skills.push(listFiles, readFile);
  }
  return skills;
}
