/**
 * Every default of the agent runtime that changes behaviour, in one place, with its reason. Options and flags
 * override per call. The layers that can be used on their own keep theirs in one file each, beside their code:
 * src/model/defaults.ts (models directory, downloads, GGUF reading), src/model/llama/defaults.ts (context size, the
 * prompt cache), src/model/decoding/defaults.ts (sampling, grammar wrap-up, jump-forward, candidate sampling),
 * src/model/grounding/defaults.ts (grounding's strengths and bounds), src/model/http/defaults.ts (model servers: timeouts, retries and backoff, concurrency),
 * src/skills/builtin/defaults.ts (calculator, datetime, file limits) and src/eval/defaults.ts (budgets, seeds,
 * concurrency of evaluations).
 */

/** Model calls per run. 8 lets a small model chain 3-4 skill calls with room for a retry or two. */
export const DEFAULT_MAX_ITERATIONS = 8;
/** Validation errors tolerated per run (over the whole run). 3: a model that failed 4 times rarely recovers. */
export const DEFAULT_MAX_RETRIES = 3;
/**
 * Tokens one step may generate. An action JSON with a short thought fits in ~200; 512 leaves room for long answers.
 * Also the node-llama-cpp loader's default for a `generate` call without `maxTokens` (the ModelHandle contract's 512).
 */
export const DEFAULT_MAX_TOKENS_PER_STEP = 512;
/**
 * A step whose prompt leaves fewer tokens than this for the reply (after dropping every earlier step but the newest)
 * is a model error: a constrained call with a short thought needs about 40-80 tokens.
 */
export const MIN_REPLY_TOKENS = 64;
/**
 * When the context is that short, the room kept past the reply budget for a constrained reply's wrap-up shrinks to
 * this (closing a cut JSON string and its objects takes a few tokens). Measured: SmolLM2's first prompt on some
 * evals/basic.json tasks is 918-949 tokens, which with the full 128-token wrap-up left no reply in a 1,024 context.
 */
export const MIN_WRAP_UP_TOKENS = 32;
/** Keep prompt + reply inside the model's context by leaving out the oldest steps (when the model can count tokens). */
export const DEFAULT_FIT_CONTEXT = true;
/**
 * Where an action's thought goes (see AgentOptions.thought). "last": with jump-forward on (the default), a thought
 * written first steered both test models away from calling (BFCL simple_python, first 60, budget 2: Gemma 3 270M 13/60
 * thought first, 23/60 last, 23/60 none, 22/60 first without jump-forward; SmolLM2 11/60 first, 16/60 last), while
 * without jump-forward first and last were equal (issue 19's levers). See docs/results/levers.md, "Thought placement
 * with jump-forward".
 */
export const DEFAULT_THOUGHT_PLACEMENT: "first" | "last" | "none" = "last";
/**
 * How strongly the loop grounds argument and answer values in the question and the results (AgentOptions.grounding,
 * `--grounding`; issue 26). "soft": on every 10th even-numbered BFCL simple_python question (20; first call, budget
 * 1, all three modes in one process, `scripts/grounding-first-call.ts`, per-parameter detail on) the calls were as
 * often valid (Gemma 3 270M 11/10/10 of 20 off/soft/strict, SmolLM2-135M 9/9/9) while every 16-digit runaway number
 * went (4 and 1 off, 0 soft) and a step took a quarter of the time (11.7 s to 3.1 s, 10.2 s to 2.4 s a question:
 * no runaway to generate); answers after a repeated call carry the result (test/model/grounding-real.test.ts).
 * Against the prompt without per-parameter detail soft gained more (every 5th even question: 10 to 15 and 9 to 16
 * of 40). Soft only reorders what the grammar allows; strict was no better. Over a model server, which takes no
 * per-token bias, soft falls back to strict's limits written into each request's schema, narrowed per key by the rules
 * that read the question (grounded-schema.ts): chosen over off there on every 8th even-numbered simple_python question
 * (50, budget 4, llama-server; off 14 and 18 right), then its per-key reading and the decision over the first pass's
 * schema: Gemma 3 270M 22 -> 27, SmolLM2-135M 22 -> 27 right; on the odd half the server keeps 95% and 84% of the
 * in-process gain (docs/results/server-grounding.md).
 */
export const DEFAULT_GROUNDING: "off" | "soft" | "strict" = "soft";
/**
 * How a step's reply decides at its branch points (AgentOptions.decision, `--decision`; issues 39 and 40): "scored",
 * the model's log-probabilities plus each skill's fit to the question and the run's progress. Chosen on even-numbered
 * BFCL questions at budget 4 (Gemma 3 270M: irrelevance answered 0-13% -> 67-74%, multiple 36% -> 58%, simple_python
 * every 4th even question 68% -> 68% in 1.98 steps instead of 3.01; SmolLM2-135M: irrelevance 74%, multiple 55%,
 * simple 69% -> 68%); the odd halves are reported in docs/results/decision.md. Over a model server the same offsets'
 * ranking goes as each request's schema (decided-schema.ts: the branches it ranks low left out): measured on the
 * same even sample with the grounded schema's per-key reading (docs/results/server-grounding.md).
 */
export const DEFAULT_DECISION: "off" | "scored" = "scored";
/** A step's grounding source holds at most the 4 newest skill results: older ones are rarely what a value needs. */
export const GROUNDING_MAX_RESULTS = 4;
/**
 * A grounding source keeps at most 8,000 characters (the first text always, cut to it): the loader indexes it once per
 * call, and a value copies from the question and the newest results, not from a whole file a skill read.
 */
export const GROUNDING_MAX_SOURCE_CHARS = 8000;
/** Longest thought under the grammar: a reason in a sentence or two; SmolLM2 wrote 400-token repeating thoughts unbounded. */
export const DEFAULT_MAX_THOUGHT_CHARS = 200;
/** Longest final answer under the grammar: a few sentences. Unbounded, SmolLM2 repeated one sentence for 514 tokens (30 s on 1 thread) on "What is 17% of 2,340?". */
export const DEFAULT_MAX_ANSWER_CHARS = 300;
/**
 * Shortest final answer refused for repeating a piece of the prompt's text (an instruction, a skill's description,
 * feedback) that the question and results do not hold. Shorter answers ("Paris", "42") can sit in a description by
 * chance and still be right; the format's placeholders (`...`, `<your answer, in full sentences>`) are refused at any
 * length. Gemma 3 270M answered with the placeholder or a description's example (`15/100*80`, 9 characters).
 */
export const MIN_COPIED_ANSWER_CHARS = 8;
/** System prompt style (see AgentOptions.promptStyle). */
export const DEFAULT_PROMPT_STYLE: "full" | "compact" = "full";
/** Show a worked example conversation in the system prompt (see AgentOptions.exampleTrajectory); off until measured better. */
export const DEFAULT_EXAMPLE_TRAJECTORY = false;
/**
 * Document skills' arguments one parameter a line (description, allowed values, default) instead of their JSON Schema
 * (see SystemPromptOptions.paramDetails; issue 26 item 7). On, chosen on 20 even-numbered BFCL simple_python
 * questions at budget 4 (Gemma 3 270M 5/20 -> 11/20, SmolLM2-135M 3/20 -> 6/20); on the 20 odd-numbered ones held out
 * it neither gained nor lost (5/20 and 3/20 both ways), with 18-19% fewer prompt tokens (docs/results/grounding.md).
 */
export const DEFAULT_PARAM_DETAILS = true;
/** Constrain actions with the JSON-schema grammar unless told not to: it removes every syntax and schema error. */
export const DEFAULT_USE_GRAMMAR = true;

/** Replies longer than this are not parsed (a runaway or hostile generation); the model is told to be brief. */
export const MAX_ACTION_CHARS = 200_000;
/** JSON nesting deeper than this is refused before parsing: no action needs it and deep input can blow the stack. */
export const MAX_JSON_DEPTH = 64;
/** A model reply is shown back to the model capped at this many characters (keeps a runaway reply from eating the context). */
export const MAX_REPLY_CHARS_IN_PROMPT = 4_000;

/** A skill that has not finished in 30 s is cancelled through its AbortSignal and reported as a tool-error. */
export const DEFAULT_SKILL_TIMEOUT_MS = 30_000;
/** A skill result enters the prompt capped at 4,000 characters (about 1,000 tokens), with a note that says so. */
export const DEFAULT_MAX_RESULT_CHARS = 4_000;
/**
 * Most calls one `calls` action may hold (grammar and parser): four rounds of DEFAULT_MAX_CONCURRENCY, and room for
 * calls after the ten a `$ref` can name. A step that needs more is a runaway; unbounded, one reply of 10,000 calls
 * made a 2.48M-character prompt.
 */
export const MAX_CALLS_PER_ACTION = 16;
/** Parallel calls in one action run at most 4 at a time. */
export const DEFAULT_MAX_CONCURRENCY = 4;
/**
 * Parallel calls are off by default: small models do as well or better with one call a step. Measured with the
 * decision (docs/results/decision.md, odd BFCL ids, budget 4): SmolLM2-135M, one `calls` reply against one call a step,
 * `parallel` 5 -> 7 of 50 and `parallel_multiple` 2 -> 3 of 49, median seconds a question 3.1 -> 2.9 and 4.4 -> 3.7
 * (the list wrote more calls than the items: 2.62 a run against 2.08, 2.74 wanted); Gemma 3 270M on 7 + 7: 0 -> 1
 * and 1 -> 1. The eval's BFCL parallel categories still turn it on, as their format asks for one turn's calls.
 */
export const DEFAULT_PARALLEL_CALLS = false;
/** Nested agents (an agent used as a skill) stop at depth 3 to stop runaway delegation. */
export const DEFAULT_MAX_AGENT_DEPTH = 3;
/**
 * Repetition. An exact repeat of a call that succeeded is answered with the earlier result and does not run again.
 * A call failing the same way: warned at the 2nd time, blocked before it runs from the 3rd (measured on the real
 * test models: they resend a failing call until the budget runs out). Either ends in a final round (see below), and so
 * does one skill failing with one kind of error the 3rd time in a row whatever its values (the grounding keeps a value
 * that failed from being written again, so a small model varies it: "Lisbo", "Lisb", "Lisboa" for a unit).
 */
export const REPEAT_WARN_AT = 2;
export const REPEAT_BLOCK_AT = 3;
/**
 * The step after a repeat, and the last step of the budget (when the run has taken a step already), allow only a
 * final answer: the loop cannot end in a tool call. Issue 19: without it one more step of budget took both real test
 * models from 40-45% to 0% on BFCL simple_python (they call again instead of answering).
 */
export const DEFAULT_FINAL_ROUND_WITHOUT_TOOLS = true;

/**
 * A model handle without a tokenizer (`countTokens`) gets its memory budget counted at 3 characters a token, and says
 * so: Gemma's and Llama's tokenizers average about 4 characters a token on English, so the estimate over-counts and
 * an estimated budget errs on the side of fitting.
 */
export const ESTIMATED_CHARS_PER_TOKEN = 3;
/**
 * When a conversation outgrows its token budget, its history is trimmed to 3/4 of the budget, not just under it:
 * each trim makes the model evaluate the whole prompt again (the KV cache holds the old text), so trimming in large
 * chunks leaves room for the next turns to be appended without another.
 */
export const MEMORY_TRIM_TARGET = 0.75;
/** A summary of dropped turns (`trim_policy: summarize_oldest`) is at most 160 tokens: a few sentences of facts. */
export const MEMORY_SUMMARY_MAX_TOKENS = 160;

/**
 * Workflows (issue 15). Sections of `parallel` and the workers of `orchestratorWorkers` run at most 4 at a time: a
 * single local model serializes their model calls anyway (the value there is isolation, not speed), so more would
 * only queue; a model server with several slots overlaps up to this many.
 */
export const DEFAULT_WORKFLOW_CONCURRENCY = 4;
/** An orchestrator plans at most 4 subtasks: each costs a worker's calls, and a small model's longer plans repeat. */
export const DEFAULT_MAX_WORKERS = 4;
/** An evaluator-optimizer drafts and judges at most 3 rounds: drafts of a small model rarely improve after that. */
export const DEFAULT_MAX_ROUNDS = 3;

/**
 * Files the program reads (issue 29): each is opened as a regular file only and its size checked before a byte is
 * read (src/regular-file.ts). An agent definition, a SOUL.md or an output schema is a hand-written text: 1 MiB is
 * hundreds of pages, and reading it whole stays far under the 300 MB any single input may cost.
 */
export const MAX_DEFINITION_FILE_BYTES = 1 << 20;
/**
 * A conversation file is read whole when a conversation is continued. 64 MiB is about 16 million tokens, hundreds of
 * times any context its memory is trimmed to; past it the file is refused (start a new one) rather than read into
 * hundreds of MB of records.
 */
export const MAX_CONVERSATION_FILE_BYTES = 64 << 20;
/**
 * A script of replies (`--model script:FILE`, a JSON array) is read whole, through the bounded reader, before the run:
 * a calculator action is about 100 bytes, so 8 MiB holds some 80,000 replies (a 10,000-step script is under 1 MB);
 * `ask` with an 8 MiB script of 80,000 replies peaks at 134 MB, under the 300 MB any single input may cost.
 */
export const MAX_SCRIPT_FILE_BYTES = 8 << 20;
/**
 * Nested agent definitions one top file may reach, counted once per file (a file named twice is loaded once and
 * shared): 64 agents is far past any team a small model can delegate to, and bounds the work of a hostile fan-out.
 */
export const MAX_NESTED_DEFINITIONS = 64;
/** JSON nesting of an output schema: 64 levels, as for model replies (MAX_JSON_DEPTH); the checks that walk it recurse. */
export const MAX_OUTPUT_SCHEMA_DEPTH = 64;
/**
 * How long a user's regular expression (a definition's forbidden pattern, an output schema's `pattern`) may run on one
 * text: 1 s, as suites' regexes (SUITE_REGEX_TIMEOUT_MS). A catastrophic pattern then costs a refused answer, not a
 * hung run (JavaScript cannot stop a regex running on its own thread; the test runs in a worker).
 */
export const USER_REGEX_TIMEOUT_MS = 1_000;
