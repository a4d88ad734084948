/**
 * Start llama.cpp's own `llama-server` on 127.0.0.1 (the binary scripts/build-llama-server.sh builds and caches), for
 * the real-server tests (test/http/llama/) and the throughput benchmark (scripts/bench-servers.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";

/** Where scripts/build-llama-server.sh caches the binary (keep in step with its PACKAGE and VERSION). */
export function cachedLlamaServer(env: NodeJS.ProcessEnv = process.env): string {
  const dir =
    env.GEMMA_AGENT_LLAMA_SERVER_CACHE ??
    join(homedir(), ".cache", "gemma-agent", "llama-server", "llama-cpp-python-0.3.36");
  return join(dir, "bin", "llama-server");
}

/** A free port on 127.0.0.1 (taken and given back: the server binds it next). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export interface LlamaServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseURL: string;
  port: number;
  process: ChildProcess;
  /** The server's log (stderr), for a failing test's message. */
  log(): string;
  /** SIGKILL, as a crash would. */
  kill(): void;
  stop(): Promise<void>;
}

export interface LlamaServerOptions {
  binary: string;
  model: string;
  /** Default 1: the machine's cores are shared. */
  threads?: number;
  /** Parallel slots (requests decoded at once). Default 1. */
  slots?: number;
  /** Context of each slot, tokens. Default 4096 (the local tests' context). */
  contextSize?: number;
  port?: number;
  /** The name `/v1/models` lists. Default `gemma-3-270m`. */
  alias?: string;
  /** Don't wait for /health (a test that starts its request first). */
  noWait?: boolean;
}

async function waitHealthy(baseURL: string, child: ChildProcess, log: () => string): Promise<void> {
  const health = baseURL.replace(/\/v1$/, "/health");
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`llama-server exited (${child.exitCode}):\n${log()}`);
    const ok = await fetch(health)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`llama-server did not become healthy in 120 s:\n${log()}`);
}

/** Start llama-server on 127.0.0.1 serving `model`, and wait until it answers /health. */
export async function startLlamaServer(options: LlamaServerOptions): Promise<LlamaServer> {
  const port = options.port ?? (await freePort());
  const threads = String(options.threads ?? 1);
  const slots = options.slots ?? 1;
  const args = ["-m", options.model, "--host", "127.0.0.1", "--port", String(port), "-t", threads, "-tb", threads];
  args.push("-np", String(slots), "-c", String((options.contextSize ?? 4096) * slots));
  args.push("--alias", options.alias ?? "gemma-3-270m", "--no-webui", "--no-warmup");
  const child = spawn(options.binary, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr = (stderr + String(d)).slice(-20_000)));
  const log = () => stderr;
  const baseURL = `http://127.0.0.1:${port}/v1`;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const server: LlamaServer = {
    baseURL,
    port,
    process: child,
    log,
    kill: () => void child.kill("SIGKILL"),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
  if (!options.noWait) {
    try {
      await waitHealthy(baseURL, child, log);
    } catch (error) {
      await server.stop();
      throw error;
    }
  }
  return server;
}
