import { PROGRESS_INTERVAL_MS } from "./constants.js";

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
}

/** Receives progress reports. */
export type PullProgressListener = (progress: PullProgress) => void;

/**
 * Throttles progress events (at most one per `PROGRESS_INTERVAL_MS`) and computes speed and ETA. A suppressed update
 * is sent when the interval is over, so the last bytes before a pause are always shown.
 */
export class ProgressMeter {
  private readonly started = Date.now();
  private lastReport = 0;
  private latest = 0;
  private trailing: NodeJS.Timeout | undefined;

  constructor(
    private readonly onProgress: PullProgressListener | undefined,
    private readonly startBytes: number,
    private readonly total: () => number | undefined,
  ) {}

  /** Records the bytes received so far; `final` sends the report now whatever the interval. */
  report(receivedBytes: number, final = false): void {
    if (!this.onProgress) return;
    this.latest = receivedBytes;
    const wait = this.lastReport + PROGRESS_INTERVAL_MS - Date.now();
    if (final || wait <= 0) return this.emit();
    this.trailing ??= setTimeout(() => this.emit(), wait);
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
    const totalBytes = this.total();
    const etaSeconds =
      totalBytes !== undefined && bytesPerSecond > 0 ? Math.max(totalBytes - this.latest, 0) / bytesPerSecond : undefined;
    this.onProgress?.({ receivedBytes: this.latest, totalBytes, bytesPerSecond, etaSeconds });
  }
}
