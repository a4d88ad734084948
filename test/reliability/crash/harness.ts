/**
 * The crash-consistency harness (issue 42 item 3): the built CLI is started on a writer's work, SIGKILLed after a delay
 * drawn from a seeded random source, and what it left on disk is checked, then the next run. Each writer
 * (`eval-writer.ts`, `conversation-writer.ts`, ...) says how to start its work, how to draw the kill, and what counts as
 * a record lost, doubled or torn, or a partial state accepted; this file holds what they share: the child process and
 * its kill, the tally, the loop of trials. Used by `test/reliability/crash-consistency.test.ts` (a short seeded run) and
 * `scripts/crash-kills.ts` (hundreds of kills).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync, watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import { hashSeed, seededRandom, type Random } from "../../../src/random.js";
import { CLI } from "../../helpers/hostile-cli.js";
import { slowWritesPreload } from "./write-faults.js";

export { CLI };

/** The five writers of the CLI the harness kills. */
export const WRITER_NAMES = ["eval", "conversation", "trace", "prompt-cache", "download"] as const;
export type WriterName = (typeof WRITER_NAMES)[number];

/** What the kills of one writer found. Every count but `kills` and `midWrite` must stay 0. */
export interface KillTally {
  writer: WriterName;
  /** SIGKILLs that reached a running CLI (a run that ended before its kill is not counted). */
  kills: number;
  /** Kills that left a write under way: a torn last line, a partial `.part`, a state file half written. */
  midWrite: number;
  /** Records the CLI had finished (written whole, or reported done on stdout) missing afterwards. */
  lost: number;
  /** Records present twice after the next run. */
  doubled: number;
  /** Torn records read as records, or a torn tail that made a reader refuse the whole file. */
  torn: number;
  /** Partial states or files accepted: a half-written state loaded, a partial download reported done or named. */
  partialAccepted: number;
  /** Anything else that kept the next run from starting clean (a refusal, another answer), each said once. */
  failures: string[];
  /** Trials run (one trial: one to a few kills, then a run to the end). */
  trials: number;
}

export function emptyTally(writer: WriterName): KillTally {
  return { writer, kills: 0, midWrite: 0, lost: 0, doubled: 0, torn: 0, partialAccepted: 0, failures: [], trials: 0 };
}

/** A tally's one line: `eval: 100 kills (63 mid-write), 0 lost, 0 doubled, 0 torn, 0 partial accepted, 0 other`. */
export function tallyLine(t: KillTally): string {
  const other = t.failures.length ? `; other: ${t.failures.slice(0, 5).join(" | ")}` : "";
  return `${t.writer}: ${t.kills} kills in ${t.trials} trials (${t.midWrite} mid-write), ${t.lost} lost, ${t.doubled} doubled, ${t.torn} torn, ${t.partialAccepted} partial accepted, ${t.failures.length} other failures${other}`;
}

/** Every count that must be 0, summed. */
export function tallyFailures(t: KillTally): number {
  return t.lost + t.doubled + t.torn + t.partialAccepted + t.failures.length;
}

/** One CLI run, killed or not. */
export interface CrashRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  /** Ended by the harness's SIGKILL. */
  killed: boolean;
  stdout: string;
  stderr: string;
  ms: number;
}

/** How to start a CLI run. */
export interface StartOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, then stdin is closed. Default: closed at once. */
  input?: string;
  /** Writes of files under this path are slowed (see write-faults.ts), so that a kill lands inside one. */
  slowWritesUnder?: string;
  /** Bytes per piece of a slowed write. Default SLOW_PIECE_BYTES (64). */
  slowPieceBytes?: number;
  /** Another preload (`node --import`), e.g. killAtWritePreload with its env. */
  preload?: string;
  /** A run still going after this is killed and reported as a failure (hung). Default 60 s. */
  timeoutMs?: number;
  /** Watch this folder (recursively, made first) for the run's first change: see {@link StartedRun.firstChange}. */
  watch?: string;
}

/** A started CLI run: its process, its end, and the kill. */
export interface StartedRun {
  child: ChildProcess;
  /** When it was started (performance.now()). */
  startedAt: number;
  result: Promise<CrashRun>;
  /** ms after its start when the watched folder first changed (with `watch`; never resolves without a change). */
  firstChange: Promise<number>;
  /** SIGKILL it now, when it still runs. */
  kill(): void;
  /** SIGKILL it as drawn: `ms` after its start, or after the watched folder's first change. */
  killAt(draw: KillDraw): void;
}

/** Start `gemma-agent ARGS` (the CLI at `cli`). */
export function startCli(cli: string, args: readonly string[], options: StartOptions = {}): StartedRun {
  let changed: (ms: number) => void = () => {};
  const firstChange = new Promise<number>((resolve) => (changed = resolve));
  let watcher: FSWatcher | undefined;
  let startedAt = performance.now();
  if (options.watch !== undefined) {
    mkdirSync(options.watch, { recursive: true });
    watcher = watch(options.watch, { recursive: true }, () => {
      changed(performance.now() - startedAt);
      watcher?.close();
    });
  }
  const preload = [
    ...(options.slowWritesUnder === undefined ? [] : ["--import", slowWritesPreload]),
    ...(options.preload === undefined ? [] : ["--import", options.preload]),
  ];
  const child = spawn(process.execPath, [...preload, cli, ...args], {
    cwd: options.cwd,
    env: {
      ...process.env,
      ...options.env,
      ...(options.slowWritesUnder !== undefined && { CRASH_SLOW_WRITES_UNDER: options.slowWritesUnder }),
      ...(options.slowPieceBytes !== undefined && { CRASH_SLOW_WRITES_PIECE: String(options.slowPieceBytes) }),
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  startedAt = performance.now();
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin.on("error", () => {});
  child.stdin.end(options.input ?? "");
  let sentKill = false;
  let hung = false;
  const timers: NodeJS.Timeout[] = [];
  const kill = () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    sentKill = true;
    child.kill("SIGKILL");
  };
  timers.push(
    setTimeout(() => {
      hung = child.exitCode === null && child.signalCode === null;
      kill();
    }, options.timeoutMs ?? 60_000),
  );
  const result = new Promise<CrashRun>((resolve) =>
    child.on("close", (status, signal) => {
      for (const timer of timers) clearTimeout(timer);
      watcher?.close();
      resolve({
        status,
        signal,
        killed: sentKill && !hung && signal === "SIGKILL",
        stdout,
        stderr: hung ? `${stderr}\n(hung: killed after ${options.timeoutMs ?? 60_000} ms)` : stderr,
        ms: performance.now() - startedAt,
      });
    }),
  );
  return {
    child,
    startedAt,
    result,
    firstChange,
    kill,
    killAt(draw) {
      const at = (from: number) => {
        const wait = from + draw.ms - (performance.now() - startedAt);
        if (wait <= 0) kill();
        else timers.push(setTimeout(kill, wait));
      };
      if (draw.from === "start") at(0);
      else void firstChange.then(at);
    },
  };
}

/** Run the CLI to its end (no kill). */
export function runCli(cli: string, args: readonly string[], options: StartOptions = {}): Promise<CrashRun> {
  return startCli(cli, args, options).result;
}

/**
 * When a run writes: from its first change under the watched folder to its end, in ms after its start (a CLI spends
 * its first few hundred ms starting; a kill drawn there finds nothing written).
 */
export interface KillWindow {
  from: number;
  to: number;
}

/**
 * Run the CLI to its end once, watching `folder` (recursively; made first) for its first change: the run and its
 * {@link KillWindow}. A writer calibrates its kills with it.
 */
export async function calibrate(
  cli: string,
  args: readonly string[],
  folder: string,
  options: StartOptions = {},
): Promise<{ run: CrashRun; window: KillWindow }> {
  const started = startCli(cli, args, { ...options, watch: folder });
  let first: number | undefined;
  void started.firstChange.then((ms) => (first = ms));
  const run = await started.result;
  return { run, window: { from: Math.min(first ?? 0, run.ms), to: run.ms } };
}

/** When to kill a run: `ms` after its start, or after the first change in the folder it writes. */
export interface KillDraw {
  from: "start" | "first-change";
  ms: number;
}

/**
 * A kill drawn for a run that writes in `window`: mostly (85%) a delay after its first change, uniform over the time
 * it writes and a little past (the start takes a few hundred ms, and varies by more than a short run writes: counted
 * from the start, many kills would land before the first write or after the last); else a delay from the start,
 * uniform over its start (a kill before anything is written: the next run must start from nothing).
 */
export function drawKill(random: Random, window: KillWindow): KillDraw {
  if (random() < 0.15) return { from: "start", ms: between(random, 0, window.from) };
  return { from: "first-change", ms: between(random, 0, 1.03 * Math.max(window.to - window.from, 1)) };
}

/** `400-1300 ms`, for a log line. */
export function windowText(window: KillWindow): string {
  return `${window.from.toFixed(0)}-${window.to.toFixed(0)} ms`;
}

/** A uniform draw in [from, to). */
export function between(random: Random, from: number, to: number): number {
  return from + random() * (to - from);
}

/** A run's output for a failure line: its exit, and the start of its stderr. */
export function described(run: CrashRun): string {
  return `exit ${run.status ?? run.signal}: ${run.stderr.trim().slice(0, 300)}`;
}

/** What a trial is given. */
export interface TrialContext {
  /** The writer's seeded source: every delay and choice of the trial is drawn from it. */
  random: Random;
  /** A fresh folder of the trial's own. */
  dir: string;
  /** Kills this trial may still make (it makes at least one, at most this many). */
  killsLeft: number;
  tally: KillTally;
  /** Said once per trial, for a log (the script's --verbose). */
  log: (line: string) => void;
}

/** A writer prepared to be killed: its calibrated runs made. */
export interface PreparedWriter {
  /** One trial: one or more killed runs, each checked, then a run to the end, checked. */
  trial(context: TrialContext): Promise<void>;
  close(): Promise<void>;
}

/** A writer of the CLI: how to prepare its trials (calibrate, make the reference) in `work`. */
export interface CrashWriter {
  name: WriterName;
  prepare(work: string, cli: string, log: (line: string) => void): Promise<PreparedWriter>;
}

/** Options of {@link runKills}. */
export interface RunKillsOptions {
  /** Kills to deliver (trials run until this many landed). */
  kills: number;
  seed: number;
  /** A folder for the trials (made; each trial's subfolder removed after it unless it failed and `keepFailed`). */
  work: string;
  cli?: string;
  keepFailed?: boolean;
  log?: (line: string) => void;
}

/** Kill `writer` `kills` times (seeded), checking each time; the tally. */
export async function runKills(writer: CrashWriter, options: RunKillsOptions): Promise<KillTally> {
  const tally = emptyTally(writer.name);
  const work = join(options.work, writer.name);
  mkdirSync(work, { recursive: true });
  const log = options.log ?? (() => {});
  const prepared = await writer.prepare(join(work, "reference"), options.cli ?? CLI, log);
  const random = seededRandom(hashSeed(options.seed, writer.name));
  try {
    for (let trial = 1; tally.kills < options.kills; trial++) {
      if (trial > 3 * options.kills + 10) {
        tally.failures.push(`only ${tally.kills} of ${options.kills} kills landed in ${trial - 1} trials`);
        break;
      }
      const dir = join(work, `trial-${trial}`);
      mkdirSync(dir, { recursive: true });
      const before = tallyFailures(tally);
      tally.trials++;
      try {
        await prepared.trial({ random, dir, killsLeft: options.kills - tally.kills, tally, log });
      } catch (error) {
        tally.failures.push(`trial ${trial} threw: ${(error as Error).stack ?? String(error)}`);
      }
      const failed = tallyFailures(tally) > before;
      if (failed) log(`${writer.name} trial ${trial}: failed (kept in ${dir})`);
      if (!failed || !options.keepFailed) rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    await prepared.close();
  }
  return tally;
}
