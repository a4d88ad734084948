import { closeSync, constants, fstatSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import type { AgentEvent } from "../agent/events.js";
import { CliUsageError } from "./cli-io.js";

/**
 * Open the trace file now (a bad path fails before the model loads) and return a writer that appends each event and
 * a close. Only a regular file: a FIFO with no reader would block the run, a device would swallow it. An existing
 * file is kept unless `overwrite` (a second run must not silently destroy the first one's trace).
 */
export function openTrace(
  path: string | undefined,
  overwrite = false,
): { write: (event: AgentEvent) => void; close: () => void } | undefined {
  if (!path) return undefined;
  const notAFile = () =>
    new CliUsageError(`--trace: ${path} is not a regular file (a FIFO, device or folder): give the path of a file`);
  let fd: number;
  try {
    const existing = statSync(path, { throwIfNoEntry: false });
    if (existing && !existing.isFile()) throw notAFile();
    if (existing && !overwrite)
      throw new CliUsageError(
        `--trace: ${path} already exists; give a new path, or add --overwrite-trace to replace it`,
      );
    // O_EXCL: a file that appeared since the stat is not replaced; O_NONBLOCK: a FIFO put there cannot block the open
    const flags =
      constants.O_WRONLY |
      constants.O_CREAT |
      constants.O_NONBLOCK |
      (overwrite ? constants.O_TRUNC : constants.O_EXCL);
    fd = openSync(path, flags, 0o644);
  } catch (error) {
    if (error instanceof CliUsageError) throw error;
    throw new CliUsageError(`--trace: cannot write ${path}: ${(error as Error).message}`);
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw notAFile();
  }
  let written = 0;
  return {
    // one synchronous write per event: the trace is complete up to the last event even when the run is interrupted
    write: (event) => void (written += writeSync(fd, `${JSON.stringify(event)}\n`)),
    // a run that never started (the model did not load) leaves no empty file to refuse the next --trace
    close: () => {
      closeSync(fd);
      if (written === 0 && !overwrite) rmSync(path, { force: true });
    },
  };
}

/** The trace writer of `--trace`, when there is one. */
export type Trace = ReturnType<typeof openTrace>;
