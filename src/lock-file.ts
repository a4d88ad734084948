import { closeSync, constants, openSync, rmSync, writeSync } from "node:fs";
import { readRegularText, RegularFileError } from "./regular-file.js";

/**
 * Locks this process holds, with how many holders share each (one process may open the same file twice: the lock
 * keeps other processes out), removed when it exits (a `kill -9` leaves a stale one: the next taker takes it over).
 */
const held = new Map<string, number>();
let exitHook = false;

/** True when a process with this pid runs (EPERM: it runs as another user): whether a lock or leftover is stale. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A release that counts once however often it is called. */
function releaser(lockPath: string): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const holders = (held.get(lockPath) ?? 1) - 1;
    if (holders > 0) held.set(lockPath, holders);
    else if (held.delete(lockPath)) rmSync(lockPath, { force: true });
  };
}

/** Why a lock was not taken: another live process holds it (`pid`), or the lock file could not be made (`error`). */
export type LockRefusal = { pid: number } | { error: NodeJS.ErrnoException };

/**
 * Take the lock `lockPath` (a file created with O_EXCL holding this process's id) so that a second writer of the
 * same file refuses instead of interleaving with this one. A lock whose process no longer runs is taken over. A lock
 * that cannot be taken throws `refuse(why)`. Returns the release (also done at the process's exit).
 */
export function takeLock(lockPath: string, refuse: (why: LockRefusal) => Error): () => void {
  const holders = held.get(lockPath);
  if (holders !== undefined) {
    held.set(lockPath, holders + 1);
    return releaser(lockPath);
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(lockPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NONBLOCK, 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw refuse({ error: error as NodeJS.ErrnoException });
      let pid = NaN;
      try {
        pid = Number(readRegularText(lockPath, 64, "a lock file").trim());
      } catch (failure) {
        // a lock that is not a small regular file is not ours to remove
        if (failure instanceof RegularFileError && failure.code !== "not_found")
          throw refuse({ error: Object.assign(new Error(failure.message), { code: "EEXIST" }) });
      }
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) throw refuse({ pid });
      rmSync(lockPath, { force: true }); // left by a process that died: take it over
      continue;
    }
    try {
      writeSync(fd, String(process.pid));
    } catch (error) {
      rmSync(lockPath, { force: true }); // a lock without its pid (a full disk) would look stale to the next taker
      throw refuse({ error: error as NodeJS.ErrnoException });
    } finally {
      closeSync(fd);
    }
    held.set(lockPath, 1);
    if (!exitHook) {
      exitHook = true;
      process.on("exit", () => {
        for (const path of held.keys()) rmSync(path, { force: true });
      });
    }
    return releaser(lockPath);
  }
  throw refuse({ error: Object.assign(new Error(`${lockPath} keeps being taken`), { code: "EAGAIN" }) });
}
