import type { JsonSchema } from "../../json-schema.js";
import {
  MAX_REFERENCE_KEY_LENGTH,
  MAX_REFERENCE_PATH_SEGMENTS,
  parseCallReferencePattern,
} from "../../call-reference-pattern.js";
import { gbnfLiteral, repetition, seq, type GbnfRules } from "./gbnf-rules.js";
import { STRING_FORMATS } from "./gbnf-json-primitives.js";
import { finiteNumber, JsonSchemaGrammarError, own } from "./json-schema-keywords.js";

/** `pattern`s that mean "contains a non-whitespace character"; any other pattern is not enforced by the grammar. */
const NON_BLANK_PATTERNS = new Set([
  String.raw`\S`,
  String.raw`\S+`,
  String.raw`.*\S.*`,
  String.raw`^.*\S.*$`,
  String.raw`[^\s]`,
  String.raw`^(?!\s*$).+`,
]);

/** `"calls[i].result.key[0]..."` with i below `earlierCalls` (see call-reference-pattern.ts). */
function compileCallReference(rules: GbnfRules, earlierCalls: number, hint: string): string {
  const key = `[A-Za-z_$] [A-Za-z0-9_$-]{0,${MAX_REFERENCE_KEY_LENGTH - 1}}`;
  const segment = `("." ${key} | "[" [0-9]{1,6} "]")`;
  return rules.rule(
    hint,
    `"\\"calls[" [0-${earlierCalls - 1}] "].result" ${segment}{0,${MAX_REFERENCE_PATH_SEGMENTS}} "\\""`,
  );
}

/**
 * A string schema: `minLength` / `maxLength`, a non-blank `pattern` (met by starting with a non-blank character),
 * the call-reference pattern of parallel calls, and the `format`s `date`, `time`, `date-time` and `uuid` (as zod
 * checks them: a date-time or time with seconds and `Z` or an offset; the length bounds are then not enforced);
 * other patterns and formats are not enforced.
 */
export function compileString(rules: GbnfRules, schema: JsonSchema, hint: string): string {
  const format = own<string>(schema, "format");
  if (typeof format === "string" && STRING_FORMATS.has(format))
    return rules.rule(`${format}-string`, seq(`"\\""`, rules.primitive(format), `"\\""`));
  const minLength = Math.max(0, Math.floor(finiteNumber(own(schema, "minLength")) ?? 0));
  const maxRaw = finiteNumber(own(schema, "maxLength"));
  const maxLength = maxRaw === undefined ? undefined : Math.floor(maxRaw);
  const pattern = own<string>(schema, "pattern");
  const earlierCalls = typeof pattern === "string" ? parseCallReferencePattern(pattern) : undefined;
  if (earlierCalls !== undefined) return compileCallReference(rules, earlierCalls, hint);
  const nonBlank = typeof pattern === "string" && NON_BLANK_PATTERNS.has(pattern);
  if (maxLength !== undefined && (maxLength < minLength || (nonBlank && maxLength < 1))) {
    throw new JsonSchemaGrammarError(
      "unsatisfiable",
      `jsonSchemaToGbnf: string at "${hint}" cannot satisfy its length bounds`,
    );
  }
  if (!nonBlank && minLength === 0 && maxLength === undefined) return rules.primitive("string");
  if (maxLength === 0) return rules.rule(hint, gbnfLiteral('""'));
  rules.primitive("char");
  if (!nonBlank) return rules.rule(hint, `"\\"" char${repetition(minLength, maxLength)} "\\""`);
  rules.primitive("nonblank-char");
  const rest =
    maxLength === 1
      ? ""
      : `char${repetition(Math.max(0, minLength - 1), maxLength === undefined ? undefined : maxLength - 1)}`;
  return rules.rule(hint, seq(`"\\""`, "nonblank-char", rest, `"\\""`));
}
