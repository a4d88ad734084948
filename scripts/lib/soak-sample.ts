/**
 * What the soak (scripts/soak.ts) samples, read from outside the processes it watches: a process's resident memory
 * (VmRSS), open file descriptors and threads from /proc, a folder's size on disk, and what the soak's probe
 * (soak-probe.mjs, preloaded into the process) last wrote: its heap and the sequence pool of the model it holds.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { LiveSequences } from "../../src/model/llama/index.js";

/** The environment variable naming the folder the probe writes to (one `<pid>.json` per process). */
export const PROBE_DIR_ENV = "GEMMA_AGENT_SOAK_PROBE_DIR";
/** The probe, preloaded with `--import` (a file URL). */
export const PROBE_MODULE = new URL("./soak-probe.mjs", import.meta.url).href;

/**
 * The environment of a soaked command: the probe preloaded into it (and into the model process it forks), writing to
 * `probeDir`, and the prompt cache pointed at `cacheDir`.
 */
export function probedEnv(probeDir: string, cacheDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    [PROBE_DIR_ENV]: probeDir,
    GEMMA_AGENT_PROMPT_CACHE: cacheDir,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${PROBE_MODULE}`.trim(),
  };
}

/** One process at one moment, from /proc. */
export interface ProcSample {
  pid: number;
  /** Resident memory, KiB (VmRSS). */
  rssKb: number;
  /** Open file descriptors (entries of /proc/PID/fd). */
  fds: number;
  threads: number;
}

/** A process now, and its peaks since the sample before. */
export interface PeakedProcSample extends ProcSample {
  peakRssKb: number;
  peakFds: number;
  /** The fewest fds seen open since the sample before (polled): a descriptor open for a moment is not held. */
  lowFds: number;
}

/** What the probe of a process last wrote (see soak-probe.mjs). */
export interface ProbeReport {
  pid: number;
  /** Model calls it saw end (a process without a GGUF model sees none). */
  calls: number;
  /** The model's sequences after the latest call, or null before any. */
  sequences: LiveSequences | null;
  promptTokens: number;
  maxPromptTokens: number;
  /** The last few calls' prompt tokens: [call number (1-based), tokens]. */
  recent: [number, number][];
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** When it was written (ms since the epoch). */
  at: number;
}

/** The process `pid` now, or undefined when it is gone. */
export function procSample(pid: number): ProcSample | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? NaN);
    return { pid, rssKb: field("VmRSS"), fds: readdirSync(`/proc/${pid}/fd`).length, threads: field("Threads") };
  } catch {
    return undefined;
  }
}

/** The child processes of `pid` (of all its threads), now. */
export function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ").filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** The first process at or below `root` (breadth first) that runs `script` (its argv[1]: `node SCRIPT ...`). */
export function findProcess(root: number, script: string): number | undefined {
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[1] === script) return pid;
    } catch {
      continue;
    }
    queue.push(...childPids(pid));
  }
  return undefined;
}

/** Bytes and files under `dir` (0 and 0 when it does not exist). */
export function folderSize(dir: string): { bytes: number; files: number } {
  if (!existsSync(dir)) return { bytes: 0, files: 0 };
  let bytes = 0;
  let files = 0;
  for (const name of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const info = lstatSync(join(dir, name), { throwIfNoEntry: false });
    if (!info?.isFile()) continue;
    bytes += info.size;
    files++;
  }
  return { bytes, files };
}

/** What the probe of `pid` last wrote into `probeDir`, if anything. */
export function readProbe(probeDir: string, pid: number): ProbeReport | undefined {
  try {
    return JSON.parse(readFileSync(join(probeDir, `${pid}.json`), "utf8")) as ProbeReport;
  } catch {
    return undefined;
  }
}

/** Every probe report in `probeDir`, by pid (the processes that ran, gone or not). */
export function readProbes(probeDir: string): ProbeReport[] {
  return readdirSync(probeDir)
    .filter((name) => /^\d+\.json$/.test(name))
    .flatMap((name) => readProbe(probeDir, Number.parseInt(name, 10)) ?? []);
}

/** One moment of a soak. */
export interface SoakSample {
  /** Runs (eval) or turns (chat) finished when it was taken. */
  done: number;
  seconds: number;
  /** Each watched process by its role (`eval`, `model`, `chat`), with its peaks since the sample before; undefined once it is gone. */
  procs: Record<string, PeakedProcSample | undefined>;
  /** Each watched process's JS heap in use (MiB), from its probe. */
  heapMb: Record<string, number | undefined>;
  /** The model's sequences after its latest call (the probe of the process that holds the model). */
  sequences?: LiveSequences;
  /** The prompt cache's folder. */
  cache: { bytes: number; files: number };
  /** Prompt tokens of the latest model call. */
  promptTokens?: number;
}

/** Where the watched processes' probes and the prompt cache write, and which process holds the model. */
export interface SampleTargets {
  probeDir: string;
  cacheDir: string;
  /** The role of the process that holds the model (its probe reports the sequences and prompt tokens). */
  modelRole: string;
}

/**
 * Takes the soak's samples. Between two samples `observe` reads /proc on every poll and keeps each process's peak
 * resident memory and fds (and its fewest fds), which the next sample carries: a process whose memory saws up and down between garbage
 * collections is judged by its peaks, not by where one instant happens to fall.
 */
export class SoakSampler {
  readonly #targets: SampleTargets;
  readonly #started = Date.now();
  #peaks: Record<string, { rssKb: number; fds: number; lowFds: number }> = {};

  constructor(targets: SampleTargets) {
    this.#targets = targets;
  }

  /** Read every process now, keeping its peaks since the last sample. */
  observe(pids: Record<string, number | undefined>): void {
    for (const [role, pid] of Object.entries(pids)) {
      const now = pid === undefined ? undefined : procSample(pid);
      if (!now || !Number.isFinite(now.rssKb)) continue;
      const peak = this.#peaks[role];
      this.#peaks[role] = {
        rssKb: Math.max(peak?.rssKb ?? 0, now.rssKb),
        fds: Math.max(peak?.fds ?? 0, now.fds),
        lowFds: Math.min(peak?.lowFds ?? Infinity, now.fds),
      };
    }
  }

  /** A sample of every process (undefined for one that is gone), with its peaks since the last one; `done` runs or turns. */
  sample(pids: Record<string, number | undefined>, done: number): SoakSample {
    this.observe(pids);
    const procs: SoakSample["procs"] = {};
    const heapMb: SoakSample["heapMb"] = {};
    for (const [role, pid] of Object.entries(pids)) {
      const now = pid === undefined ? undefined : procSample(pid);
      const peak = this.#peaks[role];
      procs[role] =
        now && Number.isFinite(now.rssKb) && peak
          ? { ...now, peakRssKb: peak.rssKb, peakFds: peak.fds, lowFds: Math.min(peak.lowFds, now.fds) }
          : undefined;
      const probe = pid === undefined ? undefined : readProbe(this.#targets.probeDir, pid);
      heapMb[role] = probe && Math.round(probe.heapUsed / 104_857.6) / 10;
    }
    this.#peaks = {};
    const pid = pids[this.#targets.modelRole];
    const model = pid === undefined ? undefined : readProbe(this.#targets.probeDir, pid);
    return {
      done,
      seconds: (Date.now() - this.#started) / 1000,
      procs,
      heapMb,
      ...(model?.sequences && { sequences: model.sequences }),
      cache: folderSize(this.#targets.cacheDir),
      ...(model && { promptTokens: model.promptTokens }),
    };
  }
}

/** Node's process warnings in `text` (`(node:PID) MaxListenersExceededWarning: ...`): a leak of listeners shows so. */
export function processWarnings(text: string): string[] {
  return [...text.matchAll(/\(node:\d+\) [A-Za-z]*Warning: [^\r\n]*/g)].map((m) => m[0]);
}
