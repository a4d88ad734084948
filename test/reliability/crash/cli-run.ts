/**
 * A CLI run the crash harness can kill: started with its output captured, killed by SIGKILL when drawn (after its
 * start, or after the first change in the folder it writes), optionally under a write-fault preload.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, watch, type FSWatcher } from "node:fs";
import { slowWritesPreload } from "./write-faults.js";

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

/** When to kill a run: `ms` after its start, or after the first change in the folder it writes. */
export interface KillDraw {
  from: "start" | "first-change";
  ms: number;
}

/** A run's output for a failure line: its exit, and the start of its stderr. */
export function described(run: CrashRun): string {
  return `exit ${run.status ?? run.signal}: ${run.stderr.trim().slice(0, 300)}`;
}
