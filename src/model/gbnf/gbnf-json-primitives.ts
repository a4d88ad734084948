import { MAX_INTEGER_DIGITS } from "./gbnf-integer-range.js";

/** Digits after the decimal point of an unbounded number: enough for a double, and a random model cannot run away. */
export const MAX_FRACTION_DIGITS = 16;

/** Characters JavaScript's `\s` matches: a non-blank string (`pattern: "\\S"`) must begin with none of them. */
const BLANK_CLASS = String.raw`\x00-\x20\x7F\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF`;

/** The fixed GBNF rules of compact JSON, by rule name: a grammar includes those its rules reach. */
export const PRIMITIVES: Record<string, string> = {
  char: String.raw`[^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})`,
  "nonblank-char": String.raw`[^"\\${BLANK_CLASS}] | "\\" ["\\/]`,
  string: String.raw`"\"" char* "\""`,
  "int-part": `"0" | [1-9] [0-9]{0,${MAX_INTEGER_DIGITS - 1}}`,
  number: `"-"? int-part ("." [0-9]{1,${MAX_FRACTION_DIGITS}})? ([eE] [-+]? [0-9]{1,2})?`,
  integer: `"-"? int-part`,
  boolean: `"true" | "false"`,
  null: `"null"`,
  value: `object | array | string | number | boolean | null`,
  object: String.raw`"{" (string ":" value ("," string ":" value)*)? "}"`,
  array: `"[" (value ("," value)*)? "]"`,
};

/** Which primitives each primitive needs. */
export const PRIMITIVE_DEPENDENCIES: Record<string, string[]> = {
  string: ["char"],
  number: ["int-part"],
  integer: ["int-part"],
  value: ["object", "array", "string", "number", "boolean", "null"],
  object: ["string", "value"],
  array: ["value"],
};
