import { PLAIN_PROGRESS_EVERY_MS, PROGRESS_BAR_WIDTH } from "../eval/constants.js";
import type { EvalProgress } from "../eval/runner/run-eval.js";

/**
 * A one-line progress bar on a terminal stream (`[#####-----] 40/100 profile:e2b-like`), redrawn in place. When the
 * stream is not a TTY (a pipe, a file, CI) it writes a plain `progress: 40/100 model` line at most every
 * `plainEveryMs` (default PLAIN_PROGRESS_EVERY_MS): a real-model eval runs for an hour, and a log with no sign of life
 * for that long looks hung; a scripted one finishes before the first line. `done()` clears the terminal line.
 */
export function progressBar(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  options: { plainEveryMs?: number; now?: () => number } = {},
): { update(progress: EvalProgress): void; done(): void } {
  if (!stream.isTTY) {
    const every = options.plainEveryMs ?? PLAIN_PROGRESS_EVERY_MS;
    const now = options.now ?? (() => performance.now());
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
  let last = "";
  return {
    update({ done, total, model }) {
      const filled = total ? Math.round((done / total) * PROGRESS_BAR_WIDTH) : 0;
      const line = `[${"#".repeat(filled)}${"-".repeat(PROGRESS_BAR_WIDTH - filled)}] ${done}/${total} ${model}`;
      if (line === last) return;
      last = line;
      stream.write(`\r\x1b[2K${line}`);
    },
    done() {
      if (last) stream.write("\r\x1b[2K");
    },
  };
}
