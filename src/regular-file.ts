import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readSync,
  statSync,
  writeSync,
} from "node:fs";
import { CodedError } from "./coded-error.js";

/** Why a file was not read: not there, not a regular file (a FIFO, device, socket or folder), too large, or an OS error. */
export type RegularFileErrorCode = "not_found" | "not_a_file" | "too_large" | "unreadable";

/**
 * A file the program was given that it will not read or write: the message names the file and why, in one line.
 * Readers (definitions, conversations, results, the prompt cache) turn it into their own errors or warnings.
 */
export class RegularFileError extends CodedError<RegularFileErrorCode> {
  override readonly name = "RegularFileError";
  constructor(
    code: RegularFileErrorCode,
    message: string,
    readonly path: string,
  ) {
    super(code, message);
  }
}

function notAFile(path: string): RegularFileError {
  return new RegularFileError(
    "not_a_file",
    `${path} is not a regular file (a FIFO, device, socket or folder): give the path of a file`,
    path,
  );
}

function fromErrno(path: string, error: unknown): RegularFileError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return new RegularFileError("not_found", `${path}: no such file`, path);
  // ENXIO: a FIFO opened for writing with no reader (O_NONBLOCK); EISDIR: a folder opened for writing
  if (code === "ENXIO" || code === "EISDIR") return notAFile(path);
  return new RegularFileError("unreadable", `${path}: ${(error as Error).message}`, path);
}

/**
 * Open `path` with `flags` (node:fs `constants`) as a regular file only, and return the descriptor. The path is
 * checked before the open (a FIFO, device or folder is refused without opening it), the open is non-blocking (a path
 * swapped for a FIFO after the check cannot hold the process in `open()` waiting for a peer: SIGTERM and Ctrl-C stay
 * able to end it), and what was opened is checked again. Errors are {@link RegularFileError}s.
 */
export function openRegularFile(path: string, flags: number, mode = 0o644): number {
  let fd: number;
  try {
    const before = statSync(path, { throwIfNoEntry: false });
    if (before && !before.isFile()) throw notAFile(path);
    fd = openSync(path, flags | constants.O_NONBLOCK, mode);
  } catch (error) {
    throw error instanceof RegularFileError ? error : fromErrno(path, error);
  }
  let isFile = false;
  try {
    isFile = fstatSync(fd).isFile();
  } finally {
    if (!isFile) closeSync(fd);
  }
  if (!isFile) throw notAFile(path);
  return fd;
}

/** The size of the regular file open at `fd`, refused past `maxBytes` before anything is read. */
function boundedSize(fd: number, path: string, maxBytes: number, what: string): number {
  const size = fstatSync(fd).size;
  if (size > maxBytes)
    throw new RegularFileError(
      "too_large",
      `${path}: ${size} bytes, over the ${maxBytes}-byte limit of ${what}: is it the right file?`,
      path,
    );
  return size;
}

/**
 * The bytes of a regular file of at most `maxBytes` (`what` names the kind of file in the message: "an agent
 * definition"). Refused before reading: a FIFO, device or folder (`not_a_file`: `/dev/zero` never ends, a FIFO
 * blocks), a file over the bound (`too_large`). A file that grows while read is read up to its size when opened.
 */
export function readRegularFile(path: string, maxBytes: number, what = "such a file"): Buffer {
  const fd = openRegularFile(path, constants.O_RDONLY);
  try {
    const size = boundedSize(fd, path, maxBytes, what);
    const buffer = Buffer.alloc(size);
    let done = 0;
    while (done < size) {
      const read = readSync(fd, buffer, done, size - done, done);
      if (read === 0) break;
      done += read;
    }
    return buffer.subarray(0, done);
  } catch (error) {
    throw error instanceof RegularFileError ? error : fromErrno(path, error);
  } finally {
    closeSync(fd);
  }
}

/**
 * Check `path` as {@link readRegularFile} would before reading it (a regular file, at most `maxBytes`) without reading
 * a byte, and return its size: for a file read later, so that a bad one is refused before work starts on it.
 */
export function checkRegularFile(path: string, maxBytes: number, what = "such a file"): number {
  const fd = openRegularFile(path, constants.O_RDONLY);
  try {
    return boundedSize(fd, path, maxBytes, what);
  } finally {
    closeSync(fd);
  }
}

/** {@link readRegularFile} decoded as UTF-8 (invalid bytes become U+FFFD). */
export function readRegularText(path: string, maxBytes: number, what?: string): string {
  return readRegularFile(path, maxBytes, what).toString("utf8");
}

/**
 * Append `data` at the end of the regular file open at `fd` (opened with O_APPEND) and flush it to the disk (unless
 * `sync: false`: a process killed after it loses nothing either way; the flush guards against a power cut), whole or
 * not at all: a short write or a failed one (a full disk) cuts the file back to its size before, and throws (the
 * system error, or `ENOSPC`-like `short write`). A caller never reports as written what is not on the disk.
 */
export function appendWhole(fd: number, data: string | Buffer, options: { sync?: boolean } = {}): void {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  const before = fstatSync(fd).size;
  try {
    let done = 0;
    while (done < bytes.length) {
      const wrote = writeSync(fd, bytes, done, bytes.length - done);
      if (wrote <= 0) throw Object.assign(new Error(`short write: ${done} of ${bytes.length} bytes`), { code: "EIO" });
      done += wrote;
    }
    if (options.sync ?? true) fsyncSync(fd);
  } catch (error) {
    try {
      ftruncateSync(fd, before);
    } catch {
      // the cut failed too: the reader's torn-line check still finds the partial line
    }
    throw error;
  }
}

/**
 * The length of `bytes` up to and including its last newline: where a file of lines written whole ends, so that a
 * torn last line (a crash mid-write) is cut at the exact byte, whatever the bytes before it hold (invalid UTF-8
 * included: this counts bytes, never decoded characters).
 */
export function wholeLinesLength(bytes: Buffer): number {
  return bytes.lastIndexOf(0x0a) + 1;
}
