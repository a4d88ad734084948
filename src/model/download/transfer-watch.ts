import { DOWNLOAD_WAIT_REPORT_MS } from "../defaults.js";

/**
 * The clocks of one transfer: the stall timer (no answer, or no byte, for `stallTimeoutMs` aborts `signal`) and the
 * wait ticker (every second of silence past DOWNLOAD_WAIT_REPORT_MS, `onWaiting` reports it).
 */
export class TransferWatch {
  readonly #stall = new AbortController();
  readonly #stallTimeoutMs: number;
  readonly #onWaiting: () => void;
  #stallTimer: NodeJS.Timeout | undefined;
  #waitTicker: NodeJS.Timeout | undefined;
  /** When the server last answered or sent bytes (ms since the epoch). */
  lastActivity = Date.now();

  constructor(stallTimeoutMs: number, onWaiting: () => void) {
    this.#stallTimeoutMs = stallTimeoutMs;
    this.#onWaiting = onWaiting;
  }

  /** Aborts when the transfer stalled. */
  get signal(): AbortSignal {
    return this.#stall.signal;
  }

  /** Whether the transfer was given up as stalled. */
  get stalled(): boolean {
    return this.#stall.signal.aborted;
  }

  /** Something just came: note it and start the stall timer over. */
  touch(): void {
    this.lastActivity = Date.now();
    this.armStallTimer();
  }

  /** Start (or start over) the stall timer. */
  armStallTimer(): void {
    this.clearStallTimer();
    this.#stallTimer = setTimeout(() => this.#stall.abort(new Error("stalled")), this.#stallTimeoutMs);
  }

  /** Stop the stall timer. */
  clearStallTimer(): void {
    if (this.#stallTimer) clearTimeout(this.#stallTimer);
    this.#stallTimer = undefined;
  }

  /** Every second of a wait (no answer yet, or no byte for a second), a report saying so. */
  startWaitTicker(): void {
    this.stopWaitTicker();
    this.#waitTicker = setInterval(() => {
      if (Date.now() - this.lastActivity >= DOWNLOAD_WAIT_REPORT_MS) this.#onWaiting();
    }, DOWNLOAD_WAIT_REPORT_MS);
    this.#waitTicker.unref();
  }

  /** Stop the wait ticker. */
  stopWaitTicker(): void {
    if (this.#waitTicker) clearInterval(this.#waitTicker);
    this.#waitTicker = undefined;
  }
}
