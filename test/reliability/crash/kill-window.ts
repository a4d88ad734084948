/**
 * The crash harness's kill delays: a writer calibrates when a run writes (one uninterrupted run, watched), and each
 * kill is drawn from the writer's seeded source over that window.
 */
import type { Random } from "../../../src/random.js";
import { startCli, type CrashRun, type KillDraw, type StartOptions } from "./cli-run.js";

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
