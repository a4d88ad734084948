/**
 * Runtime defaults of the node-llama-cpp loader, each with its reason. Options of `loadModel` and `generate` override
 * them per handle or per call.
 */

/**
 * Context window (tokens) when `contextSize` is not given, capped at what the model was trained for. An agent run's
 * prompt (system text, skill list, 8-12 steps of history) fits in 8,192 tokens; its KV cache stays well under 1 GB for
 * Gemma E2B/E4B, where the trained 32k-128k would cost several GB on a laptop.
 */
export const DEFAULT_CONTEXT_SIZE = 8192;

/**
 * Sampling temperature when neither the handle nor the call sets one: 0 (greedy). A small model's tool calls are most
 * reliable at its most likely tokens, and greedy runs are reproducible.
 */
export const DEFAULT_TEMPERATURE = 0;

/** Top-k and top-p when sampling with a temperature: Gemma's recommended settings (64, 0.95). */
export const DEFAULT_TOP_K = 64;
export const DEFAULT_TOP_P = 0.95;

/**
 * Under a JSON-schema grammar, tokens allowed past `maxTokens` to close the JSON value in progress. When `maxTokens`
 * is reached the loader favours closing tokens among those the grammar allows (`"` inside a string, `}` / `]` between
 * values, then `,` to reach a required property), so the reply ends along a short path and always parses (a cut-off
 * action would cost the agent a retry). A value is usually closed in a handful of tokens.
 */
export const GRAMMAR_WRAP_UP_TOKENS = 128;

/**
 * Jump-forward under a grammar: text the grammar forces (an action's keys, separators, the rest of a unique skill
 * name) is evaluated in one batch, not sampled token by token. The grammar allows the same replies either way;
 * measured by `npm run bench:model` (fewer sampled tokens and shorter steps on the real test models), so on.
 */
export const DEFAULT_JUMP_FORWARD = true;

/**
 * Under a grammar, our GBNF matcher picks each token among the model's top GRAMMAR_CANDIDATES (llama.cpp's grammar
 * pass over the whole vocabulary runs only when none is allowed). Greedy replies are the same tokens llama.cpp's
 * grammar sampler gives (the best allowed token is the best allowed candidate); the pass is what it saves. See
 * docs/benchmarks.md, "Candidate sampling".
 */
export const DEFAULT_CANDIDATE_SAMPLING = true;

/**
 * Speculation under candidate sampling: the tokens jump-forward held back (the forced text's last tokens, left for the
 * model because free text may merge with them: `":"` before a string's content) are checked in the batch of the
 * tokens before them, at most SPECULATION_DRAFTS; each one the model's own pick confirms costs a batch position with
 * its logits instead of a decode. Drafts from the prompt (prompt-lookup decoding) were tried and cost more than they
 * saved: every checked position needs the output layer (see docs/benchmarks.md, "Speculation").
 */
export const DEFAULT_SPECULATION = true;
export const SPECULATION_DRAFTS = 2;
/** How many of the model's top tokens candidate sampling looks at (the sampling's own top-K: DEFAULT_TOP_K). */
export const GRAMMAR_CANDIDATES = DEFAULT_TOP_K;

/** Logit bias of closing tokens during the wrap-up: large enough to beat any logit a model produces. */
export const WRAP_UP_LOGIT_BIAS = 100;

/** Compiled grammars kept per handle (least recently used dropped first). An agent uses one schema per registry. */
export const GRAMMAR_CACHE_SIZE = 32;

/**
 * Prompt tokens evaluated per batch before the abort signal is checked again: node-llama-cpp's batch size. A long
 * prompt is evaluated in these slices so that an abort lands between two of them.
 */
export const PROMPT_EVALUATION_SLICE = 512;

/**
 * The prompt cache keeps at most this many bytes of saved states (least recently used go first): 1 GiB holds the
 * system prompts of dozens of agents on a small model (Gemma 3 270M: about 18 KB a token) and several on a larger one.
 */
export const DEFAULT_PROMPT_CACHE_MAX_BYTES = 1 << 30;

/** ... and at most this many entries: one per agent (system prompt) and model in practice. */
export const DEFAULT_PROMPT_CACHE_MAX_ENTRIES = 64;

/**
 * A shared prompt opening shorter than this many tokens is not worth a state file: loading one costs about as much
 * as evaluating a few dozen tokens.
 */
export const PROMPT_CACHE_MIN_TOKENS = 64;

/**
 * A constrained reply whose last LOOP_GUARD_MIN_TOKENS tokens (at least) are one stretch of at most
 * LOOP_GUARD_MAX_PERIOD tokens repeated LOOP_GUARD_MIN_REPEATS times or more is wrapped up (see loop-guard.ts): a
 * degenerate loop, not content. 24 tokens and 3 repeats leave room for real repetition in a value (a short list of
 * equal numbers) while stopping "0000…" after 24 tokens instead of 500.
 */
export const LOOP_GUARD_MIN_TOKENS = 24;
export const LOOP_GUARD_MIN_REPEATS = 3;
export const LOOP_GUARD_MAX_PERIOD = 24;

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
 * ... the malus of another item past the end of a list the question writes out ("'Age', 'Income' and 'Education'"):
 * twice the avoid malus, since a list's end in the question is firm (SmolLM2 went on past -4 with "FTSE 100", "DAX").
 */
export const GROUNDING_LIST_END_LOGIT = 2 * GROUNDING_AVOID_LOGIT;
/** ... the bonus of a token that copies a span of the results or the question into a final answer (prose: gentler). */
export const GROUNDING_ANSWER_COPY_LOGIT = 2;
/**
 * Strict mode: the bonus of a token allowed in an argument value (a span of the source, an enum or default value, a
 * numeral): as large as the wrap-up's, beyond any logit a model produces (the fixture model's random weights beat 30),
 * it restricts the value wherever the grammar allows an allowed token, and falls back to the model's own choice where
 * it allows none (a mask that cannot leave the grammar without a token).
 */
export const GROUNDING_STRICT_LOGIT = WRAP_UP_LOGIT_BIAS;
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
