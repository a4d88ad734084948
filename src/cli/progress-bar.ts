import { PLAIN_PROGRESS_EVERY_MS, PROGRESS_BAR_WIDTH, PROGRESS_REDRAW_EVERY_MS } from "../eval/defaults.js";
import type { EvalProgress } from "../eval/runner/run-eval.js";

/**
 * A one-line progress bar on a terminal stream (`[#####-----] 40/100 profile:e2b-like`), redrawn in place. When the
 * stream is not a TTY (a pipe, a file, CI) it writes a plain `progress: 40/100 model` line at most every
 * `plainEveryMs` (default PLAIN_PROGRESS_EVERY_MS): a real-model eval runs for an hour, and a log with no sign of life
 * for that long looks hung; a scripted one finishes before the first line. `done()` clears the terminal line.
 *
 * On a terminal the bar is redrawn at most every `redrawEveryMs` (default PROGRESS_REDRAW_EVERY_MS), the first and
 * the last state always: a scripted eval finishes thousands of runs a second, and a redraw per run wrote megabytes to
 * the terminal; a slow terminal then blocked the process in its (synchronous) TTY writes, so Ctrl-C waited seconds.
 */
export function progressBar(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  options: { plainEveryMs?: number; redrawEveryMs?: number; now?: () => number } = {},
): { update(progress: EvalProgress): void; done(): void } {
  const now = options.now ?? (() => performance.now());
  if (!stream.isTTY) {
    const every = options.plainEveryMs ?? PLAIN_PROGRESS_EVERY_MS;
    let last = now();
    return {
      update({ done, total, model }) {
        if (now() - last < every) return;
        last = now();
        stream.write(`progress: ${done}/${total} ${model}\n`);
      },
      done() {},
    };
  }
  const every = options.redrawEveryMs ?? PROGRESS_REDRAW_EVERY_MS;
  let last = "";
  let drawnAt = -Infinity;
  return {
    update({ done, total, model }) {
      if (done < total && now() - drawnAt < every) return;
      const filled = total ? Math.round((done / total) * PROGRESS_BAR_WIDTH) : 0;
      const line = `[${"#".repeat(filled)}${"-".repeat(PROGRESS_BAR_WIDTH - filled)}] ${done}/${total} ${model}`;
      if (line === last) return;
      last = line;
      drawnAt = now();
      stream.write(`\r\x1b[2K${line}`);
    },
    done() {
      if (last) stream.write("\r\x1b[2K");
    },
  };
}
