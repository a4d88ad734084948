/**
 * The eval soak: ONE `gemma-agent eval` process (the built CLI) running `tasks x seeds` runs of evals/basic.json on a
 * GGUF model, as a BFCL sweep runs hundreds in one process. Its runs are counted as they land in its results file;
 * at evenly spaced counts the eval process and its model process are sampled from /proc (resident memory, open fds,
 * threads), with their heaps and the model's sequence pool from the probe preloaded into both (soak-probe.mjs), and
 * the prompt cache's folder (pointed at a temporary one with GEMMA_AGENT_PROMPT_CACHE: eval loads its model without
 * the cache, so it should stay empty).
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readSync } from "node:fs";
import { join, resolve } from "node:path";
import { childPids, probedEnv, processWarnings, readProbes, SoakSampler, type ProbeReport } from "./soak-sample.js";
import type { SoakSample } from "./soak-sample.js";

const CLI = resolve("dist/cli/main.js");
const SUITE = resolve("evals/basic.json");

export interface EvalSoakOptions {
  /** A GGUF path. */
  model: string;
  /** Tasks of the suite (its first N, up to 36) and seeds: `tasks x seeds` runs. */
  tasks: number;
  seeds: number;
  /** The iteration budget of each run. */
  budget: number;
  /** Runs at once on the model's sequences (`--parallel`). */
  parallel: number;
  /** How many samples to take, evenly spaced over the runs (plus the first, after run 1). */
  samples: number;
  /** A fresh folder for the results file, the probes and the prompt cache. */
  workDir: string;
  threads?: number;
  contextSize?: number;
  /** More eval flags (levers that shorten a run on the fixture model, ...). */
  extraArgs?: readonly string[];
  /** Each sample as it is taken (progress). */
  onSample?: (sample: SoakSample) => void;
  /** Killed past this. Default 2 hours. */
  timeoutMs?: number;
}

export interface EvalSoakResult {
  total: number;
  /** Runs in the results file when the eval ended. */
  finished: number;
  samples: SoakSample[];
  /** The eval's exit code (null when killed). */
  code: number | null;
  /** The last lines of its stderr. */
  stderr: string;
  /** Process warnings it printed (a MaxListenersExceededWarning is a listener leak). */
  warnings: string[];
  /** What each process's probe wrote last (at its exit): the model process's sequences after its very last call. */
  probes: ProbeReport[];
}

/**
 * Eval levers that make a run short on the fixture model, whose random weights would otherwise fill the thought and
 * answer to their limits: no thought, answers of 16 characters at most, the compact system prompt.
 */
export const FIXTURE_EVAL_LEVERS: readonly string[] = [
  "--thought",
  "none",
  "--max-answer-chars",
  "16",
  "--prompt-style",
  "compact",
];

/** Counts the lines of a file that only grows, reading only what was added since the last call. */
export function lineCounter(path: string): () => number {
  let offset = 0;
  let lines = 0;
  const buffer = Buffer.alloc(1 << 16);
  return () => {
    if (!existsSync(path)) return 0;
    const fd = openSync(path, "r");
    try {
      for (let read = readSync(fd, buffer, 0, buffer.length, offset); read > 0;) {
        for (let i = 0; i < read; i++) if (buffer[i] === 10) lines++;
        offset += read;
        read = readSync(fd, buffer, 0, buffer.length, offset);
      }
    } finally {
      closeSync(fd);
    }
    return lines;
  };
}

/** The eval's arguments. */
function evalArgs(options: EvalSoakOptions, results: string): string[] {
  const args = [CLI, "eval", SUITE, "--model", options.model, "--gpu", "off", "--budgets", String(options.budget)];
  args.push("--limit", String(options.tasks), "--seeds", String(options.seeds), "--parallel", String(options.parallel));
  if (options.threads) args.push("--threads", String(options.threads));
  if (options.contextSize) args.push("--context-size", String(options.contextSize));
  args.push("--results", results, "--quiet", ...(options.extraArgs ?? []));
  return args;
}

/** Run the eval soak; resolves when the eval process has exited. */
export function evalSoak(options: EvalSoakOptions): Promise<EvalSoakResult> {
  const total = options.tasks * options.seeds;
  const probeDir = join(options.workDir, "probes");
  const cacheDir = join(options.workDir, "prompt-cache");
  mkdirSync(probeDir, { recursive: true });
  const results = join(options.workDir, "results.jsonl");
  // the results file's first line is its header, each line after it a finished run
  const lines = lineCounter(results);
  const runs = () => Math.max(0, lines() - 1);
  const sampler = new SoakSampler({ probeDir, cacheDir, modelRole: "model" });
  const child = spawn(process.execPath, evalArgs(options, results), {
    env: probedEnv(probeDir, cacheDir),
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const warnings: string[] = [];
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
    warnings.push(...processWarnings(chunk.toString()));
  });
  const samples: SoakSample[] = [];
  const step = Math.max(1, Math.floor(total / options.samples));
  let next = 1;
  const poll = setInterval(() => {
    const pids = { eval: child.pid, model: childPids(child.pid!)[0] };
    const done = runs();
    if (done < next) return sampler.observe(pids);
    const sample = sampler.sample(pids, done);
    if (!sample.procs.eval || !sample.procs.model) return; // the eval is ending: its last sample was the one before
    samples.push(sample);
    options.onSample?.(sample);
    next = next === 1 ? step : (Math.floor(done / step) + 1) * step;
  }, 100);
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 2 * 3600_000);
  return new Promise((done, fail) => {
    child.on("error", fail);
    child.on("close", (code) => {
      clearInterval(poll);
      clearTimeout(timer);
      done({ total, finished: runs(), samples, code, stderr, warnings, probes: readProbes(probeDir) });
    });
  });
}
