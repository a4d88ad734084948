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
  // a 16-digit integer part begins with 1-8: at most UNBOUNDED_MAX, a safe integer (gbnf-integer-range.ts)
  "int-part": `"0" | [1-9] [0-9]{0,${MAX_INTEGER_DIGITS - 2}} | [1-8] [0-9]{${MAX_INTEGER_DIGITS - 1}}`,
  number: `"-"? int-part ("." [0-9]{1,${MAX_FRACTION_DIGITS}})? ([eE] [-+]? [0-9]{1,2})?`,
  integer: `"-"? int-part`,
  boolean: `"true" | "false"`,
  null: `"null"`,
  value: `object | array | string | number | boolean | null`,
  object: String.raw`"{" (string ":" value ("," string ":" value)*)? "}"`,
  array: `"[" (value ("," value)*)? "]"`,
  // string `format`s, as zod's JSON Schema reader checks them (the validator of skills' and BFCL's arguments)
  "hour-minute": `([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9]`,
  "leap-year": `[0-9] [0-9] ([2468] [048] | [13579] [26] | "0" [48]) | ([02468] [048] | [13579] [26]) "00"`,
  date: `leap-year "-02-29" | [0-9]{4} "-" (("0" [13578] | "1" [02]) "-" ("0" [1-9] | [12] [0-9] | "3" [01]) | ("0" [469] | "11") "-" ("0" [1-9] | [12] [0-9] | "30") | "02-" ("0" [1-9] | "1" [0-9] | "2" [0-8]))`,
  time: `hour-minute ":" [0-5] [0-9] ("." [0-9]{1,${MAX_FRACTION_DIGITS}})? ("Z" | [+-] hour-minute)`,
  "date-time": `date "T" time`,
  uuid: `[0-9a-fA-F]{8} "-" [0-9a-fA-F]{4} "-" [1-8] [0-9a-fA-F]{3} "-" [89abAB] [0-9a-fA-F]{3} "-" [0-9a-fA-F]{12} | "00000000-0000-0000-0000-000000000000" | "ffffffff-ffff-ffff-ffff-ffffffffffff"`,
};

/** The string `format`s the grammar enforces, each a rule of PRIMITIVES (the quotes around it added by its user). */
export const STRING_FORMATS = new Set(["date", "time", "date-time", "uuid"]);

/** Which primitives each primitive needs. */
export const PRIMITIVE_DEPENDENCIES: Record<string, string[]> = {
  string: ["char"],
  number: ["int-part"],
  integer: ["int-part"],
  value: ["object", "array", "string", "number", "boolean", "null"],
  object: ["string", "value"],
  array: ["value"],
  date: ["leap-year"],
  time: ["hour-minute"],
  "date-time": ["date", "time"],
};
