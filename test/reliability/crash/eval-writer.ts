/**
 * Crash trials of an eval sweep's results file (`eval --out DIR`, `--resume`): the heuristic model on
 * evals/basic.json with 3 seeds (432 runs, one line each), killed at a random point of a fresh sweep and of up to two
 * resumes after it, half the trials with the file's writes slowed. After each kill, the whole lines of the file are
 * the runs finished before it; then a resume to the end must keep each of them once, byte for byte, never read a
 * torn line as a record, count them (`resumedRuns`), and end with the same runs as an uninterrupted sweep.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  calibrate,
  described,
  drawKill,
  windowText,
  runCli,
  startCli,
  type CrashWriter,
  type KillWindow,
  type PreparedWriter,
  type TrialContext,
} from "./harness.js";

const SUITE = fileURLToPath(new URL("../../../evals/basic.json", import.meta.url));
const SEEDS = "3";
const RUNS = 36 * 4 * 3;

/** A run's key in the results file (model, budget, seed, task). */
const keyOf = (run: { model: string; budget: number; seed: number; taskId: string }) =>
  `${run.model}/${run.budget}/${run.seed}/${run.taskId}`;

/** A record without its timing (the only field that differs between two sweeps of the heuristic model). */
function stable(run: Record<string, unknown>): string {
  const { wallMs: _wallMs, ...rest } = run;
  return JSON.stringify(rest);
}

/** The file's bytes up to its last newline, as lines (header first), and whether bytes followed (a torn tail). */
function wholeLines(bytes: Buffer): { lines: string[]; torn: boolean } {
  const end = bytes.lastIndexOf(0x0a) + 1;
  const lines = bytes.subarray(0, end).toString("utf8").split("\n");
  lines.pop();
  return { lines, torn: end < bytes.length };
}

/** A line's run record, or undefined when it is not one. */
function runOf(line: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(line) as { run?: Record<string, unknown> };
    return typeof value?.run?.taskId === "string" ? value.run : undefined;
  } catch {
    return undefined;
  }
}

export const evalWriter: CrashWriter = {
  name: "eval",
  async prepare(work, cli, log) {
    const args = (out: string, ...flags: string[]) => [
      "eval",
      SUITE,
      "--model",
      "heuristic",
      "--seeds",
      SEEDS,
      "--out",
      out,
      "--quiet",
      ...flags,
    ];
    // the reference: an uninterrupted sweep (its runs), and when a sweep writes, plain and with slow writes
    const plain = await calibrate(cli, args(join(work, "plain", "out")), join(work, "plain"));
    const slow = await calibrate(cli, args(join(work, "slow", "out")), join(work, "slow"), { slowWritesUnder: work });
    for (const { run } of [plain, slow]) if (run.status !== 0) throw new Error(`reference sweep: ${described(run)}`);
    log(`eval: a sweep writes from ${windowText(plain.window)}, slowed ${windowText(slow.window)}`);
    const reference = new Map<string, string>();
    for (const line of wholeLines(readFileSync(join(work, "plain", "out", "results.jsonl"))).lines.slice(1)) {
      const run = runOf(line)!;
      reference.set(keyOf(run as never), stable(run));
    }
    if (reference.size !== RUNS) throw new Error(`reference sweep: ${reference.size} runs, not ${RUNS}`);
    const trial = (context: TrialContext) =>
      evalTrial(context, { cli, args, reference, plain: plain.window, slow: slow.window });
    return { trial, close: async () => {} } satisfies PreparedWriter;
  },
};

interface EvalSetup {
  cli: string;
  args: (out: string, ...flags: string[]) => string[];
  reference: Map<string, string>;
  plain: KillWindow;
  slow: KillWindow;
}

async function evalTrial(context: TrialContext, setup: EvalSetup): Promise<void> {
  const { random, dir, tally } = context;
  const out = join(dir, "out");
  const path = join(out, "results.jsonl");
  const slow = random() < 0.5;
  const kills = 1 + Math.floor(random() * Math.min(3, context.killsLeft));
  /** Each kill's whole lines: the runs finished before it, which every later state must keep. */
  const kept: string[][] = [];
  const resumeFlags = () => (existsSync(path) ? ["--resume"] : []);
  for (let k = 0; k < kills; k++) {
    const run = startCli(setup.cli, setup.args(out, ...resumeFlags()), {
      watch: dir,
      ...(slow && { slowWritesUnder: dir }),
    });
    run.killAt(drawKill(random, slow ? setup.slow : setup.plain));
    const ended = await run.result;
    if (!ended.killed) {
      if (ended.status !== 0) tally.failures.push(`a run after a kill: ${described(ended)}`);
      break; // it finished before its kill: the final checks follow
    }
    tally.kills++;
    if (!existsSync(path)) continue;
    const { lines, torn } = wholeLines(readFileSync(path));
    if (torn) tally.midWrite++;
    checkLines(context, lines, "after a kill");
    kept.push(lines.slice(1));
  }
  // the runs the resume must find: the distinct records of the file's whole lines
  const held = existsSync(path)
    ? new Set(
        wholeLines(readFileSync(path))
          .lines.slice(1)
          .flatMap((line) => {
            const run = runOf(line);
            return run ? [keyOf(run as never)] : [];
          }),
      ).size
    : 0;
  const final = await runCli(setup.cli, setup.args(out, ...resumeFlags()));
  if (final.status !== 0) {
    tally.failures.push(`the resume after ${kept.length} kill(s): ${described(final)}`);
    return;
  }
  checkFinal(context, setup, path, kept, held);
}

/** Whole lines after a kill: the header, then records only, each run once. */
function checkLines(context: TrialContext, lines: string[], when: string): Set<string> {
  const { tally } = context;
  const keys = new Set<string>();
  if (lines.length > 0 && !lines[0].includes('"gemma-agent-eval-results"')) {
    tally.torn++;
    tally.failures.push(`${when}: the first line is not the header`);
  }
  for (const line of lines.slice(1)) {
    const run = runOf(line);
    if (!run) {
      tally.torn++;
      continue;
    }
    const key = keyOf(run as never);
    if (keys.has(key)) tally.doubled++;
    keys.add(key);
  }
  return keys;
}

function checkFinal(context: TrialContext, setup: EvalSetup, path: string, kept: string[][], held: number): void {
  const { tally } = context;
  const { lines, torn } = wholeLines(readFileSync(path));
  if (torn) tally.torn++;
  const keys = checkLines(context, lines, "after the resume");
  const present = new Set(lines.slice(1));
  // every run finished before a kill is still there, byte for byte
  for (const before of kept) for (const line of before) if (!present.has(line)) tally.lost++;
  for (const key of setup.reference.keys()) if (!keys.has(key)) tally.lost++;
  let differs = 0;
  for (const line of lines.slice(1)) {
    const run = runOf(line);
    if (run && setup.reference.get(keyOf(run as never)) !== stable(run)) differs++;
  }
  if (differs) tally.failures.push(`${differs} runs differ from an uninterrupted sweep's`);
  // the report: the same runs as an uninterrupted sweep, the runs found in the file counted once
  const report = JSON.parse(readFileSync(join(path, "..", "report.json"), "utf8")) as {
    runs: Record<string, unknown>[];
    resumedRuns?: number;
    interrupted?: boolean;
  };
  const reportKeys = report.runs.map((run) => keyOf(run as never));
  if (report.interrupted) tally.failures.push("the final report says interrupted");
  if (new Set(reportKeys).size !== reportKeys.length) tally.doubled += reportKeys.length - new Set(reportKeys).size;
  const same =
    reportKeys.length === setup.reference.size &&
    report.runs.every((run) => setup.reference.get(keyOf(run as never)) === stable(run));
  if (!same) tally.failures.push(`the report's ${reportKeys.length} runs are not an uninterrupted sweep's`);
  if ((report.resumedRuns ?? 0) !== held)
    tally.failures.push(`resumedRuns ${report.resumedRuns}, not the ${held} runs the file held`);
}
