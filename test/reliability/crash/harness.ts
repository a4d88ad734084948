/**
 * The crash-consistency harness (issue 42 item 3): the built CLI is started on a writer's work, SIGKILLed after a delay
 * drawn from a seeded random source, and what it left on disk is checked, then the next run. Each writer
 * (`eval-writer.ts`, `conversation-writer.ts`, ...) says how to start its work, how to draw the kill, and what counts as
 * a record lost, doubled or torn, or a partial state accepted; this file holds what they share: the tally and the loop
 * of trials (the killable CLI run is in cli-run.ts, the seeded kill delays in kill-window.ts). Used by `test/reliability/crash-consistency.test.ts` (a short seeded run) and
 * `scripts/crash-kills.ts` (hundreds of kills).
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { hashSeed, seededRandom, type Random } from "../../../src/random.js";
import { CLI } from "../../helpers/hostile-cli.js";
export {
  described,
  runCli,
  startCli,
  type CrashRun,
  type KillDraw,
  type StartedRun,
  type StartOptions,
} from "./cli-run.js";
export { between, calibrate, drawKill, windowText, type KillWindow } from "./kill-window.js";

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
