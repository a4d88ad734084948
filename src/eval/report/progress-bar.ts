import { PROGRESS_BAR_WIDTH } from "../constants.js";
import type { EvalProgress } from "../runner/run-eval.js";

/**
 * A one-line progress bar on a terminal stream (`[#####-----] 40/100 profile:e2b-like`), redrawn in place. When the
 * stream is not a TTY (a pipe, a file, CI) it writes nothing at all. `done()` clears the line.
 */
export function progressBar(stream: NodeJS.WritableStream & { isTTY?: boolean }): { update(progress: EvalProgress): void; done(): void } {
  if (!stream.isTTY) return { update() {}, done() {} };
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
