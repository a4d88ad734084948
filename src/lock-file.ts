import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, linkSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { openRegularFile, RegularFileError } from "./regular-file.js";

/**
 * Locks this process holds, with how many holders share each (one process may open the same file twice: the lock
 * keeps other processes out), removed when it exits (a `kill -9` leaves a stale one: the next taker takes it over).
 */
const held = new Map<string, number>();
let exitHook = false;

/** How long a taker keeps trying while other processes race it for a stale lock (or write theirs): then it refuses. */
const TAKE_MS = 3_000;

/** True when a process with this pid runs (EPERM: it runs as another user): whether a lock or leftover is stale. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Why a lock was not taken: another live process holds it (`pid`), or the lock file could not be made (`error`). */
export type LockRefusal = { pid: number } | { error: NodeJS.ErrnoException };

/**
 * What a lock file holds: the pid written in it (NaN when it is not one), the file's inode (which file it is) and its
 * age in milliseconds.
 */
interface LockContent {
  pid: number;
  ino: number;
  ageMs: number;
}

/** How long a lock without its pid counts as being written (made by an exclusive create, where there are no links). */
const UNWRITTEN_LOCK_MS = 2_000;

/** The lock file's pid and inode, or undefined when there is none. A lock that is not a small regular file throws. */
function readLock(path: string): LockContent | undefined {
  let fd: number;
  try {
    fd = openRegularFile(path, constants.O_RDONLY);
  } catch (error) {
    if (error instanceof RegularFileError && error.code === "not_found") return undefined;
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    const bytes = Buffer.alloc(64);
    const read = stat.size <= bytes.length ? readSync(fd, bytes, 0, bytes.length, 0) : 0;
    const text = bytes.subarray(0, read).toString("utf8").trim();
    return { pid: /^\d+$/.test(text) ? Number(text) : NaN, ino: stat.ino, ageMs: Date.now() - stat.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/** Link errors of a file system without hard links: the lock falls back to an exclusive create and a write. */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EMLINK"]);

/**
 * Make `path` holding this process's id, only when there is no such file: false when there is. The id is written to
 * a file aside and hard-linked in, so that no other process ever reads the lock without its pid (an empty lock would
 * look stale, and two takers would both hold it). Where the file system has no hard links: an exclusive create, then
 * the write.
 */
function createWithPid(path: string): boolean {
  const aside = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
  const fd = openSync(aside, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NONBLOCK, 0o644);
  try {
    writeSync(fd, String(process.pid));
  } catch (error) {
    closeSync(fd);
    rmSync(aside, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    linkSync(aside, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    if (code === "EEXIST") return false;
    if (!NO_HARD_LINKS.has(code)) throw error;
  } finally {
    rmSync(aside, { force: true });
  }
  let direct: number;
  try {
    direct = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NONBLOCK, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(direct, String(process.pid));
  } catch (error) {
    rmSync(path, { force: true }); // a lock without its pid (a full disk) would look stale to the next taker
    throw error;
  } finally {
    closeSync(direct);
  }
  return true;
}

/** A lock held by a process that no longer runs (or holding no pid): one left by a `kill -9`. */
function stale(lock: LockContent): boolean {
  return !(Number.isInteger(lock.pid) && lock.pid > 0 && lock.pid !== process.pid && processAlive(lock.pid));
}

/**
 * Remove the stale lock `seen`, if it is still the one at `lockPath`. Takers of a stale lock take turns through a
 * second lock, `<lock>.takeover`: without it, a taker that read the stale pid could remove the lock that another
 * taker had just made in its place, and both would hold it. The turn's holder removes the lock only when it is still
 * the same file; another taker finds the turn held and tries again. A turn left by a process that died in it (a window
 * of microseconds) is removed.
 */
function removeStale(lockPath: string, seen: LockContent): void {
  const turn = `${lockPath}.takeover`;
  if (!createWithPid(turn)) {
    const other = readLock(turn);
    if (other && stale(other)) rmSync(turn, { force: true });
    return;
  }
  try {
    const now = readLock(lockPath);
    if (now && now.ino === seen.ino && (now.pid === seen.pid || (Number.isNaN(now.pid) && Number.isNaN(seen.pid))))
      rmSync(lockPath, { force: true });
  } finally {
    rmSync(turn, { force: true });
  }
}

/** Wait about a millisecond without giving up the thread (the taker is synchronous; the wait is rare and short). */
function pause(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
}

/** Remove the lock at its release or the process's exit, only while it still holds this process's id. */
function removeOwn(lockPath: string): void {
  try {
    if (readLock(lockPath)?.pid === process.pid) rmSync(lockPath, { force: true });
  } catch {
    // not a lock file of ours any more: left as it is
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
    else if (held.delete(lockPath)) removeOwn(lockPath);
  };
}

/**
 * Take the lock `lockPath` (a file holding this process's id, made only where there is none) so that a second writer
 * of the same file refuses instead of interleaving with this one. A lock whose process no longer runs is taken over,
 * by one taker however many race for it. A lock that cannot be taken throws `refuse(why)`. Returns the release (also
 * done at the process's exit).
 */
export function takeLock(lockPath: string, refuse: (why: LockRefusal) => Error): () => void {
  const holders = held.get(lockPath);
  if (holders !== undefined) {
    held.set(lockPath, holders + 1);
    return releaser(lockPath);
  }
  const failed = (error: unknown) => refuse({ error: error as NodeJS.ErrnoException });
  const deadline = Date.now() + TAKE_MS;
  for (let attempt = 0; attempt === 0 || Date.now() < deadline; attempt++) {
    let made: boolean;
    try {
      made = createWithPid(lockPath);
    } catch (error) {
      throw failed(error);
    }
    if (made) {
      held.set(lockPath, 1);
      if (!exitHook) {
        exitHook = true;
        process.on("exit", () => {
          for (const path of held.keys()) removeOwn(path);
        });
      }
      return releaser(lockPath);
    }
    let lock: LockContent | undefined;
    try {
      lock = readLock(lockPath);
    } catch (failure) {
      // a lock that is not a small regular file is not ours to remove
      throw failed(Object.assign(new Error((failure as Error).message), { code: "EEXIST" }));
    }
    if (!lock) continue; // released between the two: try again
    if (!stale(lock)) throw refuse({ pid: lock.pid });
    if (Number.isNaN(lock.pid) && lock.ageMs < UNWRITTEN_LOCK_MS) {
      pause(); // being written by a taker on a file system without hard links
      continue;
    }
    try {
      removeStale(lockPath, lock);
    } catch (error) {
      throw failed(error);
    }
    if (attempt > 0) pause();
  }
  throw failed(Object.assign(new Error(`${lockPath} keeps being taken`), { code: "EAGAIN" }));
}
