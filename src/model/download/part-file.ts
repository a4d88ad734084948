import { processAlive } from "../../lock-file.js";
import type { Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, readFile, rm, stat, writeFile, type FileHandle } from "node:fs/promises";
import { DownloadError } from "../errors.js";

/* File steps of a pull: writing, hashing and checking a `.part`; file-system failures become `disk` errors. */

/** Writes all of `bytes` at the handle's position (a single `write` may write less). */
export async function writeFully(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written);
    written += bytesWritten;
  }
}

/** Feeds the whole file at `path` into `hash` (to continue hashing a resumed `.part`). */
export async function hashFile(hash: Hash, path: string): Promise<void> {
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
}

/** Runs a file-system step, turning its failure (ENOSPC, EACCES, …) into `DownloadError("disk")`. */
export async function withDiskError<T>(what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DownloadError("disk", `Could not ${what}${code ? ` (${code})` : ""}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** The lock a pull holds on its `.part`: `<file>.part.lock`, holding the puller's pid. */
function lockPathOf(partPath: string): string {
  return `${partPath}.lock`;
}

/**
 * Takes the lock on a `.part` so that a second pull of the same file refuses instead of writing into it too (two
 * pulls at once once made a 73.8 MB source a 74.8 MB file). A lock left by a process that no longer runs is taken
 * over. Returns its release.
 */
export async function lockPart(partPath: string, fileName: string): Promise<() => Promise<void>> {
  const lockPath = lockPathOf(partPath);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockPath, "wx");
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
        throw new DownloadError("disk", `Could not create ${lockPath}: ${(error as Error).message}`, { cause: error });
      }
      const pid = Number((await readFile(lockPath, "utf8").catch(() => "")).trim());
      if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) {
        throw new DownloadError(
          "in_progress",
          `Another pull of ${fileName} is running (process ${pid}); wait for it to finish, or stop it and pull again.`,
        );
      }
      await rm(lockPath, { force: true }); // left by a pull that died: take it over
    }
  }
  throw new DownloadError("in_progress", `Another pull of ${fileName} keeps taking its lock (${lockPath}); try again.`);
}

/**
 * Removes what a pull killed between its rename and its cleanup left beside a finished file: the `.part`'s validator
 * (when there is no `.part`) and its lock (when its process no longer runs). A `.part` and a live pull's lock stay.
 */
export async function removePartLeftovers(partPath: string): Promise<void> {
  if (await stat(partPath).catch(() => undefined)) return;
  await rm(validatorPathOf(partPath), { force: true });
  const pid = Number((await readFile(lockPathOf(partPath), "utf8").catch(() => "")).trim());
  if (!(Number.isInteger(pid) && pid > 0 && processAlive(pid))) await rm(lockPathOf(partPath), { force: true });
}

/** What identifies the version of the file a `.part` holds: the first response's ETag or Last-Modified. */
export interface PartValidator {
  etag?: string;
  lastModified?: string;
}

/** `<file>.part.validator`: the validator of the response a `.part` was started from. */
function validatorPathOf(partPath: string): string {
  return `${partPath}.validator`;
}

/** The validator saved with a `.part`, if any. */
export async function readPartValidator(partPath: string): Promise<PartValidator | undefined> {
  try {
    const value = JSON.parse(await readFile(validatorPathOf(partPath), "utf8")) as PartValidator;
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Saves (or, with `undefined`, removes) the validator of a `.part`. */
export async function writePartValidator(partPath: string, validator: PartValidator | undefined): Promise<void> {
  if (!validator || (!validator.etag && !validator.lastModified)) return rm(validatorPathOf(partPath), { force: true });
  await writeFile(validatorPathOf(partPath), JSON.stringify(validator));
}
