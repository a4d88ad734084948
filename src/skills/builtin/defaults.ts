/**
 * Every default of the built-in skills that changes behaviour, with its reason. (They live here rather than in
 * src/defaults.ts so that the skills stay one self-contained folder.)
 */

/**
 * Longest expression `calculator` accepts, in characters. Arithmetic a person asks about fits easily; a longer
 * string is almost always a model looping or pasting text, and the cap bounds parse time and recursion.
 */
export const CALCULATOR_MAX_EXPRESSION_LENGTH = 500;

/** Deepest nesting of parentheses, unary signs and `^` chains; keeps recursion far from the JS stack limit. */
export const CALCULATOR_MAX_DEPTH = 64;

/**
 * Significant digits a non-integer result is rounded to. Doubles carry 15-17; the last one or two hold binary
 * rounding noise (0.1 + 0.2 = 0.30000000000000004). 15 removes the noise and keeps everything a person can use.
 */
export const RESULT_SIGNIFICANT_DIGITS = 15;

/** Time zone `datetime` uses when none is given: UTC is the only zone that means the same on every machine. */
export const DATETIME_DEFAULT_TIME_ZONE = "UTC";

/** Unit `datetime` reports a difference in when none is given: days is what "how long between" usually means. */
export const DATETIME_DEFAULT_UNIT = "days";

/**
 * Bytes `read_file` returns at most by default (3,000). The dispatcher caps every result at 4,000 characters
 * (DEFAULT_MAX_RESULT_CHARS) and JSON escaping grows text: 3,000 bytes keep a read whole under that cap, with its
 * note saying the file was cut, instead of being cut again blindly. Small models' contexts are small anyway.
 */
export const READ_FILE_MAX_BYTES = 3_000;

/** Entries `list_files` shows at most; a huge directory would flood the prompt. */
export const LIST_FILES_MAX_ENTRIES = 200;
/**
 * Characters of entries `list_files` returns at most (3,000), for the reason READ_FILE_MAX_BYTES gives: the listing
 * stays whole under the dispatcher's 4,000-character cap, so its note says how many entries the model really sees
 * (200 entries were cut to about 20 by that cap while the note said 200).
 */
export const LIST_FILES_MAX_CHARS = 3_000;
