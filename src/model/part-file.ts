import type { Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { DownloadError } from "./errors.js";
import { isGgufMagic } from "./gguf-header.js";

/* File steps of a pull: writing, hashing and checking a `.part`; file-system failures become `disk` errors. */

/** Writes all of `bytes` at the handle's position (a single `write` may write less). */
export async function write(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written);
    written += bytesWritten;
  }
}

/** True when the file at `path` starts with the GGUF magic. */
export async function startsWithGguf(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return bytesRead === 4 && isGgufMagic(head);
  } finally {
    await handle.close();
  }
}

/** Feeds the whole file at `path` into `hash` (to continue hashing a resumed `.part`). */
export async function hashFile(hash: Hash, path: string): Promise<void> {
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
}

/** Runs a file-system step, turning its failure (ENOSPC, EACCES, …) into `DownloadError("disk")`. */
export async function disk<T>(what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DownloadError("disk", `Could not ${what}${code ? ` (${code})` : ""}: ${(error as Error).message}`, { cause: error });
  }
}
