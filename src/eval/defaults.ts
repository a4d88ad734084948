/**
 * Every default of the eval harness that changes what a benchmark measures, in one place, with its reason.
 * The CLI flags override them per run.
 */

/** Iteration budgets of the convergence curve. 4 to 16 brackets what a 2-4-call task needs, with and without retries. */
export const DEFAULT_EVAL_BUDGETS: readonly number[] = [4, 8, 12, 16];
/** Seeds per (task, model, budget). 1: scripted models without a failure profile are deterministic anyway. */
export const DEFAULT_EVAL_SEEDS = 1;
/** The first seed; seeds run from here upwards, so `--seeds 3` means seeds 1, 2, 3. */
export const FIRST_SEED = 1;
/**
 * Runs of scripted models in flight at once. They cost microseconds of CPU each; 8 overlaps their awaits without
 * making the report order depend on timing (results are sorted before reporting).
 */
export const SCRIPTED_CONCURRENCY = 8;
/** GGUF runs go one at a time: one model per process, and the machine's cores belong to that one decode. */
export const GGUF_CONCURRENCY = 1;
/**
 * Runs in flight on each model server of a sweep unless `--concurrency` says more: one per server, as a llama-server
 * started without `-np` decodes one request at a time (more would only queue there).
 */
export const SERVER_CONCURRENCY = 1;
/**
 * The clock the built-in `datetime` skill sees during an eval, unless the suite sets `now`: a fixed instant, so that
 * the same seed gives the same report on any day.
 */
export const DEFAULT_EVAL_NOW = "2025-06-15T12:00:00Z";
/** Iteration budget of a BFCL question when none is given: room for a few sequential calls and the answer. */
export const DEFAULT_BFCL_BUDGETS: readonly number[] = [8];
/** A child-process model that has not answered a generate call in 10 minutes is treated as hung and killed. */
export const WORKER_GENERATE_TIMEOUT_MS = 600_000;
/** A child process gets 5 s to exit after `dispose` before it is killed. */
export const WORKER_EXIT_GRACE_MS = 5_000;
/** Off a terminal, a plain progress line at most this often: a sign of life in a long real-model eval's log. */
export const PLAIN_PROGRESS_EVERY_MS = 30_000;
/** Width of the stderr progress bar, in characters. */
export const PROGRESS_BAR_WIDTH = 28;
/**
 * The terminal progress bar is redrawn at most this often (ms): ten frames a second reads as live, and a scripted
 * eval's thousands of runs a second no longer flood the terminal (and block the process on a slow one).
 */
export const PROGRESS_REDRAW_EVERY_MS = 100;
/**
 * A results file (`--out DIR/results.jsonl`) is read whole on `--resume`: a run is one line of about 450 bytes, so the
 * 23,040-run sweeps measured so far take about 10 MB; 64 MiB leaves room for six times that while reading it, with its
 * records, stays under the 300 MB any single input may cost. A larger file is refused (split the sweep).
 */
export const MAX_RESULTS_FILE_BYTES = 64 << 20;
/**
 * A suite file (JSON or YAML) is read whole through the bounded reader (a FIFO or device refused, the size checked
 * before a byte is read). evals/basic.json holds 36 tasks in 24 KB; 2 MiB holds over 5,000 tasks. YAML is the costly
 * one: a 2 MiB YAML suite of 5,400 tasks peaks at 247 MB through `eval` (a 2 MiB JSON one, 126 MB), near the 300 MB
 * any single input may cost. Past it the suite is refused (split it).
 */
export const MAX_SUITE_FILE_BYTES = 2 << 20;
/**
 * A report.json (`profile:fit:`) or profile file (`profile:file:`) is read whole: the largest report measured, 400
 * BFCL questions under one model, is 0.7 MB, so 16 MiB is twenty times that; parsing 16 MiB of JSON peaks near
 * 135 MB (measured in bare Node).
 */
export const MAX_REPORT_FILE_BYTES = 16 << 20;
/**
 * A replay trace (`--model replay:FILE`, or each `<task-id>.jsonl` of a folder) is read whole: a scripted calculator
 * step takes about 330 bytes of trace, so 16 MiB holds some 50,000 steps; replaying a 16 MiB trace peaks at 176 MB.
 */
export const MAX_TRACE_FILE_BYTES = 16 << 20;
/**
 * A BFCL data file (`--bfcl DIR`: a category's questions or its possible answers) is read whole: the largest bundled
 * category, parallel_multiple, is 0.35 MB: 16 MiB is forty-five times that, and its JSON parses near 135 MB.
 */
export const MAX_BFCL_FILE_BYTES = 16 << 20;
