import type { ChatFormat } from "../../prompt/chat-format.js";
import type { GenerateOptions, GenerationStats, ModelHandle, ModelInfo } from "../../model/model-handle.js";
import type { OpenAICompatibleModel } from "../../model/http/index.js";
import { isServerFailure, type PoolServer, type ServerPool } from "./server-pool.js";

/**
 * One run's hold on a server of a {@link ServerPool}: a ModelHandle that sends each step to its server (so the
 * server's KV cache serves the whole run) and, when that server fails after its retries, takes it out of the pool and
 * sends the step to another one (every prompt holds the whole run, so the run goes on where it was). Its stats are
 * its own (a fork of the server's handle per server it used).
 */
export class ServerLease implements ModelHandle {
  readonly #pool: ServerPool;
  #server: PoolServer;
  #handle: OpenAICompatibleModel;
  #released = false;
  /** Set when the run lost its server and no other could take it: the run measured the servers, not the model. */
  #serverFailure: string | undefined;
  /** Servers this run moved away from, in order. */
  readonly moves: string[] = [];

  constructor(pool: ServerPool, server: PoolServer) {
    this.#pool = pool;
    this.#server = server;
    this.#handle = server.handle.fork();
  }

  get chatFormat(): ChatFormat {
    return this.#handle.chatFormat;
  }

  get info(): ModelInfo {
    return this.#handle.info;
  }

  get stats(): GenerationStats {
    return this.#handle.stats;
  }

  get contextSize(): number | undefined {
    return this.#handle.contextSize;
  }

  /** Whether the decision crosses to the server (as the request's schema: see OpenAICompatibleModel). */
  get scoresDecisions(): boolean {
    return this.#handle.scoresDecisions;
  }

  countTokens(prompt: string): Promise<number> {
    return this.#onAServer((handle) => handle.countTokens(prompt), undefined);
  }

  /** Why the run could not be finished on any server (undefined: it was). */
  get serverFailure(): string | undefined {
    return this.#serverFailure;
  }

  generate(prompt: string, options?: GenerateOptions): Promise<string> {
    return this.#onAServer((handle) => handle.generate(prompt, options), options?.signal);
  }

  /** `request` on this run's server; when the server fails, on the next one. */
  async #onAServer<T>(request: (handle: OpenAICompatibleModel) => Promise<T>, signal: AbortSignal | undefined) {
    for (;;) {
      try {
        return await request(this.#handle);
      } catch (error) {
        if (!isServerFailure(error) || signal?.aborted) throw error;
        this.#pool.markDown(this.#server, error);
        await this.#move(error);
      }
    }
  }

  /**
   * Give the failed server back and take another (after the run was released, for a budget's replayed last call: any
   * server up, without a slot); none left: the run ends with the error, marked a server failure.
   */
  async #move(error: Error): Promise<void> {
    const from = this.#server;
    from.movedAway++;
    this.moves.push(from.label);
    try {
      if (this.#released) this.#server = this.#pool.anyUp(from);
      else {
        this.#pool.give(from, false);
        this.#server = await this.#pool.take(from);
      }
    } catch (noneLeft) {
      this.#released = true;
      this.#serverFailure = `${error.message}; ${(noneLeft as Error).message}`;
      throw noneLeft;
    }
    this.#handle = this.#server.handle.fork();
  }

  /** The run is over: its server takes the next run. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#pool.give(this.#server, true);
  }
}
