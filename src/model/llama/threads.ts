import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

/** CPUs a Linux cgroup (v2) quota allows this process, or undefined when there is no quota or no cgroup. */
function cgroupCpuLimit(): number | undefined {
  try {
    const [quota, period] = readFileSync("/sys/fs/cgroup/cpu.max", "utf8").trim().split(/\s+/);
    if (quota === "max" || !quota || !period) return undefined;
    const cpus = Number(quota) / Number(period);
    return Number.isFinite(cpus) && cpus > 0 ? Math.max(1, Math.ceil(cpus)) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Threads for token evaluation when the caller gives none: the CPUs this process may really use (its affinity mask
 * through `os.availableParallelism()`, a container's CPU quota), and no more than `mathCores` (llama.cpp's count of
 * cores worth using for math, node-llama-cpp's `llama.cpuMathCores`) when given.
 *
 * Why not node-llama-cpp's default: it can pick more threads than the process has cores; oversubscribed, llama.cpp's
 * threads spin against each other (measured on a 2-core machine: ~400 ms per token instead of ~10 ms).
 */
export function defaultThreadCount(mathCores?: number): number {
  let threads = availableParallelism();
  const quota = cgroupCpuLimit();
  if (quota !== undefined) threads = Math.min(threads, quota);
  if (mathCores !== undefined && mathCores > 0) threads = Math.min(threads, mathCores);
  return Math.max(1, threads);
}
