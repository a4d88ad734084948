/**
 * The soak's samples over time, and its verdict: after the warm-up (the first `warmup` fraction of the runs or turns)
 * resident memory may grow by at most `maxRssGrowthPct`, and open file descriptors, threads and the model's live
 * sequences may not grow at all. Fds are judged by what stays open: the fewest seen in the last interval against the
 * most seen in the warm-up's last one, so a descriptor open for a moment when a sample falls (a cache file being
 * written, a pipe) is not a leak, while one left open every run or turn still shows many times over.
 */
import { textTable } from "../../src/text-table.js";
import type { SoakSample } from "./soak-sample.js";

/**
 * A watched process over the soak. Resident memory is judged by each interval's peak (polled between samples): the
 * highest up to the warm-up's end, against the last interval's.
 */
export interface RoleFigures {
  /** At the first sample (the first run or turn done). */
  rssStartMb: number;
  /** The highest interval peak up to the end of the warm-up (its last interval included). */
  rssWarmMb: number;
  /** The peak of the last interval. */
  rssEndMb: number;
  /** The highest peak after the warm-up. */
  rssPeakMb: number;
  /** (end - after warm-up) / after warm-up, in %. */
  rssGrowthPct: number;
  /** (end - at half the runs or turns) / at half, in %: the plateau, past any slow warm-up. */
  rssSecondHalfPct: number;
  fdsStart: number;
  fdsWarm: number;
  fdsEnd: number;
  /** The most fds seen open in the warm-up's last interval (polled). */
  fdsWarmMost: number;
  /** The fewest fds seen open in the last interval (polled). */
  fdsEndLeast: number;
  /** The most fds seen open after the warm-up (polled). */
  fdsMax: number;
  threadsWarm: number;
  threadsEnd: number;
}

export interface SoakVerdict {
  /** The sample the growth is measured from: the first at or after the warm-up. */
  warmDone: number;
  endDone: number;
  roles: Record<string, RoleFigures>;
  /** Sequences the model's context handed out, after warm-up and at the end (undefined without a GGUF model). */
  sequencesWarm?: number;
  sequencesEnd?: number;
  cacheWarm: { bytes: number; files: number };
  cacheEnd: { bytes: number; files: number };
  cacheMaxBytes: number;
  /** Each broken goal, in words; empty when the soak held. */
  failures: string[];
}

export interface VerdictOptions {
  /**
   * The fraction of the runs that is warm-up. Default 0.25: the eval process's V8 heap sizes itself up over its first
   * ~800 runs of 2,000 (+4.7 MB, then flat; docs/reliability.md), which a 10% warm-up counts as growth.
   */
  warmup?: number;
  /** Resident memory growth allowed after the warm-up, in %. Default 5. */
  maxRssGrowthPct?: number;
}

const mb = (kb: number) => Math.round(kb / 102.4) / 10;

const pct = (from: number, to: number) => Math.round(((to - from) / from) * 1000) / 10;

function roleFigures(
  samples: readonly SoakSample[],
  warm: SoakSample,
  half: SoakSample,
  role: string,
): RoleFigures | undefined {
  const seen = samples.flatMap((s) => s.procs[role] ?? []);
  const after = samples.filter((s) => s.done >= warm.done).flatMap((s) => s.procs[role] ?? []);
  const second = samples.filter((s) => s.done >= half.done).flatMap((s) => s.procs[role] ?? []);
  if (seen.length === 0 || after.length === 0 || second.length === 0) return undefined;
  const [start, warmed, end] = [seen[0], after[0], after.at(-1)!];
  // the highest interval peak up to the warm-up's end: a sample that falls just after a major collection is no base
  // (a CI run failed on "+17.9%" from a warm-up sample of 72.1 MB after peaks of 86.6)
  const warmPeak = Math.max(
    ...samples.filter((s) => s.done <= warm.done).flatMap((s) => s.procs[role]?.peakRssKb ?? []),
  );
  return {
    rssStartMb: mb(start.rssKb),
    rssWarmMb: mb(warmPeak),
    rssEndMb: mb(end.peakRssKb),
    rssPeakMb: mb(Math.max(...after.map((p) => p.peakRssKb))),
    rssGrowthPct: pct(warmPeak, end.peakRssKb),
    rssSecondHalfPct: pct(second[0].peakRssKb, end.peakRssKb),
    fdsStart: start.fds,
    fdsWarm: warmed.fds,
    fdsEnd: end.fds,
    fdsWarmMost: warmed.peakFds,
    fdsEndLeast: end.lowFds,
    fdsMax: Math.max(...after.map((p) => p.peakFds)),
    threadsWarm: warmed.threads,
    threadsEnd: end.threads,
  };
}

/** The verdict on `samples` (in the order taken; `total` runs or turns in all). */
export function soakVerdict(samples: readonly SoakSample[], total: number, options: VerdictOptions = {}): SoakVerdict {
  const warmup = options.warmup ?? 0.25;
  const maxGrowth = options.maxRssGrowthPct ?? 5;
  if (samples.length < 2) throw new Error(`soak: ${samples.length} sample(s); a verdict needs at least two`);
  const warm = samples.find((s) => s.done >= total * warmup) ?? samples.at(-1)!;
  const half = samples.find((s) => s.done >= total / 2) ?? samples.at(-1)!;
  const end = samples.at(-1)!;
  const failures: string[] = [];
  const roles: Record<string, RoleFigures> = {};
  for (const role of Object.keys(samples[0].procs)) {
    const figures = roleFigures(samples, warm, half, role);
    if (!figures) {
      failures.push(`${role}: no sample after the warm-up`);
      continue;
    }
    roles[role] = figures;
    if (figures.rssGrowthPct > maxGrowth)
      failures.push(`${role}: RSS grew ${figures.rssGrowthPct}% after the warm-up (goal <= ${maxGrowth}%)`);
    if (figures.fdsEndLeast > figures.fdsWarmMost)
      failures.push(
        `${role}: open fds grew after the warm-up: at least ${figures.fdsEndLeast} open in the last interval, at most ${figures.fdsWarmMost} in the warm-up's last`,
      );
    if (figures.threadsEnd > figures.threadsWarm)
      failures.push(`${role}: threads grew from ${figures.threadsWarm} to ${figures.threadsEnd} after the warm-up`);
  }
  const withSequences = samples.filter((s) => s.sequences && s.done >= warm.done);
  const sequencesWarm = withSequences[0]?.sequences?.obtained;
  const sequencesEnd = withSequences.at(-1)?.sequences?.obtained;
  if (sequencesWarm !== undefined && sequencesEnd! > sequencesWarm)
    failures.push(`live sequences grew from ${sequencesWarm} to ${sequencesEnd} after the warm-up`);
  return {
    warmDone: warm.done,
    endDone: end.done,
    roles,
    ...(sequencesWarm !== undefined && { sequencesWarm, sequencesEnd }),
    cacheWarm: warm.cache,
    cacheEnd: end.cache,
    cacheMaxBytes: Math.max(...samples.map((s) => s.cache.bytes)),
    failures,
  };
}

/**
 * The samples as a table: per role the peak RSS since the sample before (MiB), fds now and the JS heap (MiB); the
 * model's sequences; the cache; prompt tokens.
 */
export function renderSamples(samples: readonly SoakSample[], unit: string): string {
  const roles = Object.keys(samples[0]?.procs ?? {});
  const header = [
    unit,
    "s",
    ...roles.flatMap((r) => [`${r} peak RSS MB`, `${r} fds`, `${r} heap MB`]),
    "sequences (obtained/busy/waiting)",
    "cache KB (files)",
    "prompt tok",
  ];
  const rows = samples.map((s) => [
    String(s.done),
    s.seconds.toFixed(0),
    ...roles.flatMap((r) => {
      const p = s.procs[r];
      return [p ? mb(p.peakRssKb).toFixed(1) : "-", p ? String(p.fds) : "-", s.heapMb[r]?.toFixed(1) ?? "-"];
    }),
    s.sequences ? `${s.sequences.obtained}/${s.sequences.busy}/${s.sequences.waiting}` : "-",
    `${(s.cache.bytes / 1024).toFixed(0)} (${s.cache.files})`,
    s.promptTokens === undefined ? "-" : String(s.promptTokens),
  ]);
  return textTable(header, rows, { numbersRight: true });
}

const signed = (n: number) => `${n >= 0 ? "+" : ""}${n}`;

/** The verdict in a few lines: per role RSS start / after warm-up / end and growth, fds, sequences, cache; then the goals. */
export function renderVerdict(verdict: SoakVerdict, unit: string): string {
  const lines = [`warm-up: the first ${verdict.warmDone} ${unit}; end: ${verdict.endDone} ${unit}`];
  for (const [role, f] of Object.entries(verdict.roles))
    lines.push(
      `${role}: RSS ${f.rssStartMb} MB at start; interval peaks ${f.rssWarmMb} MB up to the warm-up's end, ${f.rssEndMb} MB at end (highest ${f.rssPeakMb}): ${signed(f.rssGrowthPct)}% (second half ${signed(f.rssSecondHalfPct)}%); fds ${f.fdsStart} -> ${f.fdsWarm} -> ${f.fdsEnd} (max ${f.fdsMax}); threads ${f.threadsWarm} -> ${f.threadsEnd}`,
    );
  if (verdict.sequencesWarm !== undefined)
    lines.push(`live sequences: ${verdict.sequencesWarm} after warm-up, ${verdict.sequencesEnd} at end`);
  lines.push(
    `prompt cache: ${verdict.cacheWarm.bytes} B (${verdict.cacheWarm.files} files) after warm-up, ${verdict.cacheEnd.bytes} B (${verdict.cacheEnd.files} files) at end, max ${verdict.cacheMaxBytes} B`,
  );
  lines.push(verdict.failures.length === 0 ? "verdict: FLAT" : `verdict: GROWS\n  ${verdict.failures.join("\n  ")}`);
  return lines.join("\n");
}
