import { Worker } from "node:worker_threads";

/** How long one suite regex may run on one answer (a catastrophic-backtracking pattern runs for ever). */
export const SUITE_REGEX_TIMEOUT_MS = 1_000;
/** How long a fresh worker may take to start before the test is given up. */
const WORKER_START_MS = 10_000;

const IDLE = 0;
const STARTED = 1;
const NO_MATCH = 2;
const MATCH = 3;
const FAILED = 4;

/** The worker: takes {source, flags, texts} messages, says it started, tests, stores the outcome and wakes the caller. */
const WORKER_CODE = `
const { parentPort, workerData } = require("node:worker_threads");
const state = new Int32Array(workerData);
parentPort.on("message", ({ source, flags, texts }) => {
  Atomics.store(state, 0, ${STARTED});
  Atomics.notify(state, 0);
  let outcome = ${NO_MATCH};
  try {
    const regex = new RegExp(source, flags);
    for (const text of texts) {
      regex.lastIndex = 0;
      if (regex.test(text)) { outcome = ${MATCH}; break; }
    }
  } catch { outcome = ${FAILED}; }
  Atomics.store(state, 0, outcome);
  Atomics.notify(state, 0);
});
`;

let worker: { thread: Worker; state: Int32Array } | undefined;

/**
 * Does `source` (with `flags`) match `text`, within `timeoutMs`? The test runs in a worker thread that this thread
 * waits for synchronously, so a pattern with catastrophic backtracking costs at most the time limit: the worker is
 * then terminated (a new one serves the next test) and the answer is "timeout". JavaScript's own RegExp, so suites
 * keep lookarounds and backreferences that a linear-time engine would refuse.
 */
export function testRegexBounded(
  source: string,
  flags: string,
  text: string,
  timeoutMs = SUITE_REGEX_TIMEOUT_MS,
): boolean | "timeout" {
  return testRegexOnAll(source, flags, [text], timeoutMs);
}

/**
 * {@link testRegexBounded} on several texts in one worker call: whether any matches, or "timeout" when testing them
 * all took longer than `timeoutMs` (one bound for the lot).
 */
export function testRegexOnAll(
  source: string,
  flags: string,
  texts: readonly string[],
  timeoutMs = SUITE_REGEX_TIMEOUT_MS,
): boolean | "timeout" {
  if (!worker) {
    const state = new Int32Array(new SharedArrayBuffer(4));
    const thread = new Worker(WORKER_CODE, { eval: true, workerData: state.buffer });
    thread.unref();
    worker = { thread, state };
  }
  const { thread, state } = worker;
  Atomics.store(state, 0, IDLE);
  thread.postMessage({ source, flags, texts });
  if (Atomics.wait(state, 0, IDLE, WORKER_START_MS) === "timed-out") return giveUp();
  if (Atomics.load(state, 0) === STARTED && Atomics.wait(state, 0, STARTED, timeoutMs) === "timed-out") return giveUp();
  const outcome = Atomics.load(state, 0);
  if (outcome === FAILED) throw new SyntaxError(`invalid regular expression /${source}/${flags}`);
  return outcome === MATCH;
}

function giveUp(): "timeout" {
  void worker?.thread.terminate();
  worker = undefined;
  return "timeout";
}
