/**
 * Defaults of constrained decoding (sampling, the grammar's wrap-up, jump-forward, candidate sampling, speculation,
 * the loop guard), each with its reason. Options of `loadModel` and `generate` override them per handle or per call.
 */

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
 * A constrained reply whose last LOOP_GUARD_MIN_TOKENS tokens (at least) are one stretch of at most
 * LOOP_GUARD_MAX_PERIOD tokens repeated LOOP_GUARD_MIN_REPEATS times or more is wrapped up (see loop-guard.ts): a
 * degenerate loop, not content. 24 tokens and 3 repeats leave room for real repetition in a value (a short list of
 * equal numbers) while stopping "0000…" after 24 tokens instead of 500.
 */
export const LOOP_GUARD_MIN_TOKENS = 24;
export const LOOP_GUARD_MIN_REPEATS = 3;
export const LOOP_GUARD_MAX_PERIOD = 24;
