import {
  HttpModelError,
  openAICompatibleModel,
  formatServerModel,
  type OpenAICompatibleModel,
  type OpenAICompatibleModelOptions,
  type ServerModelRef,
} from "../../model/http/index.js";
import { EvalSetupError } from "../errors.js";
import type { ServerThroughput } from "../report/eval-report.js";

/** How a sweep uses model servers. */
export interface ServerProviderOptions {
  /** Runs in flight on each server at once (`--concurrency`). Default 1: one run per server slot. */
  concurrency?: number;
  /** Options every server's handle gets (timeout, retries, prompt mode, structured output, temperature, seed). */
  handle?: PoolHandleOptions;
}

/** One server of a pool and what it did. */
export interface PoolServer {
  readonly ref: ServerModelRef;
  readonly label: string;
  readonly handle: OpenAICompatibleModel;
  readonly limit: number;
  busy: number;
  runs: number;
  movedAway: number;
  /** When it was taken out of the pool, and why. */
  down?: string;
  firstAt?: number;
  lastAt?: number;
}

/** How a pool's handles are made: the options every server's handle shares (the URL and model come from each ref). */
export type PoolHandleOptions = Omit<OpenAICompatibleModelOptions, "baseURL" | "model">;

/** A failure that means the server, not the model: it is taken out and the run goes on elsewhere. */
export function isServerFailure(error: unknown): error is HttpModelError {
  return error instanceof HttpModelError && (error.code === "unreachable" || error.code === "timeout");
}

/**
 * The servers that serve one model in a sweep, each with its own limit of runs in flight. A run takes the least busy
 * server that has room (ties: the one that finished fewer runs); a server that fails (no connection, silence, after
 * its handle's retries) is taken out, and runs in flight on it move to the others.
 */
export class ServerPool {
  readonly servers: PoolServer[];
  readonly #waiting: (() => void)[] = [];
  #started = performance.now();

  constructor(refs: readonly ServerModelRef[], concurrency: number, options: PoolHandleOptions) {
    this.servers = refs.map((ref) => ({
      ref,
      label: formatServerModel(ref),
      handle: openAICompatibleModel({ ...options, baseURL: ref.baseURL, model: ref.model }),
      limit: Math.max(1, concurrency),
      busy: 0,
      runs: 0,
      movedAway: 0,
    }));
  }

  /** Runs in flight at most, over the servers up. */
  get capacity(): number {
    return this.servers.reduce((sum, s) => sum + (s.down ? 0 : s.limit), 0);
  }

  /**
   * Connect to every server. One that cannot be reached is taken out (the report says so); a server without the
   * model, or none reachable at all, stops the sweep before it starts (a setup error).
   */
  async connect(signal?: AbortSignal): Promise<void> {
    this.#started = performance.now();
    const results = await Promise.allSettled(this.servers.map((s) => s.handle.connect(signal)));
    results.forEach((result, i) => {
      if (result.status === "rejected" && isServerFailure(result.reason)) this.markDown(this.servers[i], result.reason);
      else if (result.status === "rejected") throw result.reason;
    });
    const up = this.servers.filter((s) => !s.down);
    if (up.length === 0)
      throw new EvalSetupError(
        "model_spec",
        `no model server could be reached: ${this.servers.map((s) => s.down).join("; ")}`,
      );
    const formats = new Set(up.map((s) => s.handle.chatFormat.name));
    if (formats.size > 1)
      throw new EvalSetupError(
        "model_spec",
        `the servers of one model render prompts differently (${[...formats].join(", ")})`,
      );
  }

  /** A server with room (the least busy, then the one with fewer runs), waiting for one when all are full. */
  async take(except?: PoolServer): Promise<PoolServer> {
    for (;;) {
      const up = this.servers.filter((s) => !s.down && s !== except && s.busy < s.limit);
      if (up.length > 0) {
        const chosen = up.reduce((a, b) => (b.busy < a.busy || (b.busy === a.busy && b.runs < a.runs) ? b : a));
        chosen.busy++;
        chosen.firstAt ??= performance.now();
        return chosen;
      }
      if (!this.servers.some((s) => !s.down && s !== except)) throw this.#allDown();
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }

  /** Any server that is up, other than `except` (a call made outside a run's slot). */
  anyUp(except?: PoolServer): PoolServer {
    const up = this.servers.find((s) => !s.down && s !== except);
    if (!up) throw this.#allDown();
    return up;
  }

  /** A run let go of `server` (`finished`: it ended there, and counts for that server). */
  give(server: PoolServer, finished: boolean): void {
    server.busy--;
    server.lastAt = performance.now();
    if (finished) server.runs++;
    for (const wake of this.#waiting.splice(0)) wake();
  }

  /** Take `server` out for the rest of the sweep, saying why; runs waiting for a slot look again. */
  markDown(server: PoolServer, error: HttpModelError): void {
    if (server.down) return;
    const at = ((performance.now() - this.#started) / 1000).toFixed(1);
    server.down = `taken out at ${at} s: ${error.message}`;
    for (const wake of this.#waiting.splice(0)) wake();
  }

  #allDown(): HttpModelError {
    return new HttpModelError(
      "unreachable",
      `every server of this model is down: ${this.servers.map((s) => `${s.label} (${s.down ?? "busy"})`).join("; ")}`,
    );
  }

  /** Each server's share of the sweep, for the report. */
  report(model: string): ServerThroughput[] {
    return this.servers.map((s) => {
      const busyMs = s.firstAt !== undefined && s.lastAt !== undefined ? s.lastAt - s.firstAt : 0;
      return {
        model,
        server: s.label,
        dialect: s.handle.info.dialect,
        concurrency: s.limit,
        runs: s.runs,
        calls: s.handle.callsMade,
        retries: s.handle.retriesMade,
        movedAway: s.movedAway,
        busyMs: Math.round(busyMs),
        runsPerMinute: busyMs > 0 ? Number(((s.runs * 60_000) / busyMs).toFixed(2)) : 0,
        down: s.down,
      };
    });
  }
}
