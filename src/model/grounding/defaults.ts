/**
 * Defaults of grounding (the steer of argument and answer values toward the question and the results), each with its
 * reason. GenerateOptions.grounding chooses the mode per call; these are its strengths and bounds.
 */

/**
 * Grounding (issue 26; GenerateOptions.grounding), soft mode: the logit bonus of a token that copies the next piece
 * of a span of the source into an argument value, or the next digits of one of its numerals. A small model's top
 * tokens inside a value are a few logits apart: 4 lifts a copied token over the description's or the key's wording
 * without overruling a model that is sure of something else.
 */
export const GROUNDING_COPY_LOGIT = 4;
/** ... the bonus of closing a value that is a whole span of the source ending at a boundary (or a whole numeral). */
export const GROUNDING_CLOSE_LOGIT = 2;
/**
 * ... the bonus of a token that goes on with a word of the source the value is in the middle of ("Yellow" of
 * "Yellowstone", where the value is no whole word yet): four times the copy bonus. Past a word's first letters the copy
 * is under way, and a small model's own word can be more than 8 logits stronger (Gemma 3 270M wrote "Yellowak" past
 * +8 on "stone"; SmolLM2 "Manchester" for Manhattan, "Mario…" for Magnus). Chosen on BFCL's even half: 4 and 8 gained
 * less.
 */
export const GROUNDING_MID_WORD_LOGIT = 4 * GROUNDING_COPY_LOGIT;
/** ... the malus of a token that copies on a span of the instructions, the runtime's notes or the key's own name. */
export const GROUNDING_AVOID_LOGIT = -4;
/**
 * ... the malus of a token that goes on with a final answer the run refused already as the prompt's own text: three
 * times the avoid malus, since the model chose that text once against the avoid malus (Gemma answered "no more skill
 * calls" in all three final rounds of a run; "no" begins the results' "note" too).
 */
export const GROUNDING_REFUSED_LOGIT = 3 * GROUNDING_AVOID_LOGIT;
/**
 * ... the malus of a token that begins another item's value in a call of a `calls` list over the question's items:
 * twice the avoid malus (Gemma wrote the first item's 'Hello World' into the second call, for "and translate
 * 'Goodbye' from French to English", against the avoid malus).
 */
export const GROUNDING_OTHER_ITEM_LOGIT = 2 * GROUNDING_AVOID_LOGIT;
/**
 * ... the malus of another item past the end of a list the question writes out ("'Age', 'Income' and 'Education'"):
 * twice the avoid malus, since a list's end in the question is firm (SmolLM2 went on past -4 with "FTSE 100", "DAX").
 */
export const GROUNDING_LIST_END_LOGIT = 2 * GROUNDING_AVOID_LOGIT;
/** ... the bonus of a token that copies a span of the results or the question into a final answer (prose: gentler). */
export const GROUNDING_ANSWER_COPY_LOGIT = 2;
/**
 * Strict mode: the bonus of a token allowed in an argument value (a span of the source, an enum or default value, a
 * numeral): as large as the wrap-up's (decoding/defaults.ts WRAP_UP_LOGIT_BIAS), beyond any logit a model produces (the fixture model's random weights beat 30),
 * it restricts the value wherever the grammar allows an allowed token, and falls back to the model's own choice where
 * it allows none (a mask that cannot leave the grammar without a token).
 */
export const GROUNDING_STRICT_LOGIT = 100;
/**
 * An argument number may have the source's longest numeral's digits plus 2 (a unit conversion, a product of two
 * numbers of the question) before it is closed: Gemma 3 270M wrote `5000000000000000` for 50, 16 digits to the cap.
 */
export const GROUNDING_NUMBER_DIGIT_MARGIN = 2;
/**
 * A run of one repeated digit longer than the source's longest (and at least 3) closes the number: `5000…` for 50.
 */
export const GROUNDING_MIN_DIGIT_RUN = 3;
/**
 * An argument string without its own bound is closed at the longest source text's length, and at least 32
 * characters: a value copied from the question is never longer than the question; a runaway one ("New York, NY, you
 * should format it as City, State, …") ran to the grammar's cap.
 */
export const GROUNDING_MIN_STRING_CHARS = 32;
/** Spans followed at most per token (a one-letter value can sit in hundreds of places; the first 64 decide). */
export const GROUNDING_MAX_POSITIONS = 64;
/**
 * A grounded schema (a model server's strict grounding, grounded-schema.ts): the most words one span of the source
 * may hold to be offered as a string value. BFCL's longest grounded values ("Law of Universal Gravitation", a
 * formula's terms) hold under 8; spans past 12 words are sentences, not values.
 */
export const GROUNDED_SPAN_MAX_WORDS = 12;
/** ... the most characters of one offered span (a value the question writes is rarely longer). */
export const GROUNDED_SPAN_MAX_CHARS = 120;
/**
 * ... the most string values one request's schema offers (all its string arguments share them: a `$defs` entry).
 * Past it, the source's shorter spans are kept first, the question's before the results'. A real llama-server's step
 * grows with the enum (scripts/grounded-schema-limit.ts, docs/results/grounded-schema-limit.txt, Gemma 3 270M, 2
 * cores: 64 values 1.4-1.6x an unconstrained step, 256 2.4-2.9x, 1,024 6-7x, 4,096 22-27x; none refused up to 11,037):
 * 256 keeps a step under three times, and is more than any BFCL simple_python, multiple or irrelevance question offers
 * (at most 204 spans; median 29); the long parallel questions are cut.
 */
export const GROUNDED_SCHEMA_MAX_VALUES = 256;
/** ... the most bytes of those values together (JSON-encoded): 256 values of a BFCL question take under 8 KiB. */
export const GROUNDED_SCHEMA_MAX_BYTES = 16 * 1024;
/**
 * A decided schema (a model server's decision, decided-schema.ts): a branch of the action (answer, a skill, a list of
 * calls) stays in the request's schema while its decision offset is within this many logits of the best; the model
 * chooses among those. In process the reply takes the largest log-probability plus offset, and the model's own
 * log-probability at these branches is a few logits at most where it tells anything (docs/results/decision.md): 8 is
 * one point of a skill's fit (DECISION_WEIGHTS.scale), so two skills a point apart both stay, and answer against call
 * (30 logits a point) is the decision's alone.
 */
export const DECISION_SCHEMA_MARGIN = 8;
