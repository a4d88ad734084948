/**
 * Runs the built CLI (dist/) on a hostile input the way the reliability suites of issue 29 judge it: with a time bound
 * (a run still going is killed and reported as hung), its peak RSS (read from the child itself at exit), and what it
 * printed. `judge` turns one run into the failures the suites count: a hang, a native abort, peak memory over 300 MB,
 * an "unexpected error", a refusal that is not one line with exit 2.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

/** Peak memory any single hostile input may cost the process. */
export const MAX_PEAK_MB = 300;

/** One run of the CLI: exit code or signal, output, time, peak RSS. */
export interface CliRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** Peak RSS of the process in MB (NaN when it died before saying). */
  peakMb: number;
  /** Killed at the time bound. */
  hung: boolean;
}

/** The largest peak RSS and the slowest run of this file's CLI runs, for its printed line. */
const seen = { maxPeakMb: 0, slowestMs: 0 };

const PRELOAD =
  'data:text/javascript,import{writeFileSync}from"node:fs";process.on("exit",()=>{try{writeFileSync(process.env.GA_PEAK_FILE,String(process.resourceUsage().maxRSS))}catch{}})';

/** Options of {@link runHostile}. */
export interface HostileRunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Killed (SIGKILL) past this. Default 20 s. */
  timeoutMs?: number;
  /** Written to stdin, then stdin is closed. Default: stdin closed at once. */
  input?: string;
  /** Called once the child started (to signal it, to swap files under it). */
  started?: (child: ReturnType<typeof spawn>) => void;
}

/** Run `gemma-agent ARGS` (the built CLI) under a time bound, measuring its peak RSS. */
export async function runHostile(args: readonly string[], options: HostileRunOptions = {}): Promise<CliRun> {
  const scratch = mkdtempSync(join(tmpdir(), "ga-peak-"));
  const peakFile = join(scratch, "peak");
  const start = performance.now();
  const child = spawn(process.execPath, ["--import", PRELOAD, CLI, ...args], {
    cwd: options.cwd,
    env: { ...process.env, GEMMA_AGENT_PROMPT_CACHE: join(scratch, "cache"), ...options.env, GA_PEAK_FILE: peakFile },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  child.stdin.on("error", () => {});
  child.stdin.end(options.input ?? "");
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    child.kill("SIGKILL");
  }, options.timeoutMs ?? 20_000);
  options.started?.(child);
  const [status, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on("close", (code, sig) => resolve([code, sig])),
  );
  clearTimeout(timer);
  let peakMb = NaN;
  try {
    peakMb = Number(readFileSync(peakFile, "utf8")) / 1024;
  } catch {
    // killed before its exit handler ran
  }
  rmSync(scratch, { recursive: true, force: true });
  const ms = performance.now() - start;
  if (peakMb > seen.maxPeakMb) seen.maxPeakMb = peakMb;
  if (ms > seen.slowestMs) seen.slowestMs = ms;
  return { status, signal, stdout, stderr, ms, peakMb, hung };
}

/** What is wrong with a run that should have been refused (one line on stderr, exit 2), or an empty list. */
export function refusalFailures(run: CliRun): string[] {
  const failures = generalFailures(run);
  if (run.status !== 2) failures.push(`exit ${run.status} (expected 2)`);
  const lines = run.stderr.split("\n").filter((line) => line.trim() !== "");
  if (lines.length !== 1) failures.push(`${lines.length} lines on stderr (expected 1): ${run.stderr.slice(0, 300)}`);
  return failures;
}

/** What is wrong with any run: a hang, a signal (a native abort), peak memory over the bound, an unexpected error. */
export function generalFailures(run: CliRun): string[] {
  const failures: string[] = [];
  if (run.hung) failures.push(`still running after ${Math.round(run.ms)} ms`);
  else if (run.signal) failures.push(`ended by ${run.signal}`);
  if (run.peakMb > MAX_PEAK_MB) failures.push(`peak RSS ${run.peakMb.toFixed(0)} MB`);
  if (/unexpected error|Aborted|GGML_ASSERT|core dumped/.test(run.stderr))
    failures.push(`stderr: ${run.stderr.slice(0, 300)}`);
  return failures;
}

/** Tallies probes for a suite's one printed line: tried, held, and each failure named. */
export class Tally {
  tried = 0;
  readonly failed: string[] = [];
  /** Count one probe; `failures` empty means it held. */
  record(name: string, failures: readonly string[]): void {
    this.tried++;
    if (failures.length > 0) this.failed.push(`${name}: ${failures.join("; ")}`);
  }
  get held(): number {
    return this.tried - this.failed.length;
  }
  /** `name: N probes, N held`, the largest peak RSS and slowest CLI run, and the failures. */
  line(name: string): string {
    const worst =
      seen.slowestMs > 0
        ? ` (CLI runs: peak RSS at most ${seen.maxPeakMb.toFixed(0)} MB, slowest ${(seen.slowestMs / 1000).toFixed(1)} s)`
        : "";
    return `${name}: ${this.tried} probes, ${this.held} held${worst}${this.failed.length ? `; failed: ${this.failed.join(" | ")}` : ""}`;
  }
}
