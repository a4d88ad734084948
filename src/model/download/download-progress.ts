import { PROGRESS_INTERVAL_MS } from "../defaults.js";

/** What a pull is doing: waiting for the server's answer, or receiving the file. */
export type PullPhase = "connecting" | "receiving";

/** One progress report of a pull. */
export interface PullProgress {
  /** Bytes of the file on disk so far, a resumed `.part` included. */
  receivedBytes: number;
  /** Size of the whole file, when the server says. */
  totalBytes?: number;
  /** Average speed of this transfer (resumed bytes excluded). */
  bytesPerSecond: number;
  /** Seconds left at that speed, when the total is known and the speed is not 0. */
  etaSeconds?: number;
  /** `connecting`: the request is out and the server has not answered yet; `receiving`: the answer is streaming in. */
  phase: PullPhase;
  /** Milliseconds since the last byte arrived (since the request went out, while connecting). */
  idleMs: number;
  /** The transfer gives up once it has received nothing for this long. */
  stallTimeoutMs: number;
  /** The host the bytes come from. */
  host: string;
}

/** Receives progress reports. */
export type PullProgressListener = (progress: PullProgress) => void;

/** What the meter asks of its transfer at each report. */
export interface TransferState {
  phase: PullPhase;
  /** `Date.now()` of the last byte (of the request, before any byte). */
  lastActivity: number;
  total: number | undefined;
  stallTimeoutMs: number;
  host: string;
}

/**
 * Throttles progress events (at most one per `PROGRESS_INTERVAL_MS`) and computes speed and ETA. A suppressed update
 * is sent when the interval is over, so the last bytes before a pause are always shown. {@link ProgressMeter.waiting}
 * reports a wait (no answer, no byte) as it goes on.
 */
export class ProgressMeter {
  private readonly started = Date.now();
  private lastReport = 0;
  private latest: number;
  private trailing: NodeJS.Timeout | undefined;

  constructor(
    private readonly onProgress: PullProgressListener | undefined,
    private readonly startBytes: number,
    private readonly state: () => TransferState,
  ) {
    this.latest = startBytes;
  }

  /** Records the bytes received so far; `final` sends the report now whatever the interval. */
  report(receivedBytes: number, final = false): void {
    if (!this.onProgress) return;
    this.latest = receivedBytes;
    const wait = this.lastReport + PROGRESS_INTERVAL_MS - Date.now();
    if (final || wait <= 0) return this.emit();
    this.trailing ??= setTimeout(() => this.emit(), wait);
  }

  /** Sends a report now: the transfer is waiting (for the answer, or for the next byte). */
  waiting(): void {
    if (this.onProgress) this.emit();
  }

  /** Stops a pending update (the transfer ended or failed). */
  stop(): void {
    clearTimeout(this.trailing);
    this.trailing = undefined;
  }

  private emit(): void {
    this.stop();
    const now = Date.now();
    this.lastReport = now;
    const seconds = Math.max((now - this.started) / 1000, 1e-3);
    const bytesPerSecond = (this.latest - this.startBytes) / seconds;
    const { phase, lastActivity, total: totalBytes, stallTimeoutMs, host } = this.state();
    const etaSeconds =
      totalBytes !== undefined && bytesPerSecond > 0
        ? Math.max(totalBytes - this.latest, 0) / bytesPerSecond
        : undefined;
    this.onProgress?.({
      receivedBytes: this.latest,
      totalBytes,
      bytesPerSecond,
      etaSeconds,
      phase,
      idleMs: Math.max(0, now - lastActivity),
      stallTimeoutMs,
      host,
    });
  }
}
