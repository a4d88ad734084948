/**
 * Write faults for the crash harness, as preloads (`node --import`) of the test's own: the product code is the built
 * CLI, untouched.
 *
 * `slowWritesPreload` makes the CLI's synchronous writes to files under `CRASH_SLOW_WRITES_UNDER` slow:
 * each `fs.writeSync` there goes out in pieces of 64 bytes (or `CRASH_SLOW_WRITES_PIECE`) with 0.2 ms between them, as a slow or busy disk takes a
 * multi-page write. A kill then lands inside a record's write often (without it, a record of 500 bytes is written in
 * microseconds and a kill at a random time almost never tears one), and a torn record is what is left, as after a
 * power cut.
 */

/** Bytes per piece (unless `CRASH_SLOW_WRITES_PIECE` says otherwise), and the pause between two pieces in ms. */
export const SLOW_PIECE_BYTES = 64;
export const SLOW_PAUSE_MS = 0.2;

const source = `
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const under = process.env.CRASH_SLOW_WRITES_UNDER;
const piece = Number(process.env.CRASH_SLOW_WRITES_PIECE) || ${SLOW_PIECE_BYTES};
const original = fs.writeSync;
const pause = new Int32Array(new SharedArrayBuffer(4));
const slowed = (fd) => {
  if (typeof fd !== "number" || fd < 3 || !under) return false;
  try { return fs.readlinkSync("/proc/self/fd/" + fd).startsWith(under); } catch { return false; }
};
fs.writeSync = function (fd, data, a, b, c) {
  if (!slowed(fd)) return original.apply(fs, arguments);
  let bytes;
  if (typeof data === "string") {
    if (a !== undefined && a !== null) return original.apply(fs, arguments);
    bytes = Buffer.from(data, typeof b === "string" ? b : "utf8");
  } else if (ArrayBuffer.isView(data) && (a === undefined || typeof a === "number") && (c === undefined || c === null)) {
    const offset = a ?? 0;
    const length = b ?? data.byteLength - offset;
    bytes = Buffer.from(data.buffer, data.byteOffset + offset, length);
  } else return original.apply(fs, arguments);
  let done = 0;
  while (done < bytes.length) {
    if (done > 0) Atomics.wait(pause, 0, 0, ${SLOW_PAUSE_MS});
    done += original.call(fs, fd, bytes, done, Math.min(piece, bytes.length - done));
  }
  return done;
};
syncBuiltinESMExports();
`;

/** The preload, as a `data:` URL for `node --import`. */
export const slowWritesPreload = `data:text/javascript,${encodeURIComponent(source)}`;

const killSource = `
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const match = process.env.CRASH_KILL_WRITE_MATCH ? new RegExp(process.env.CRASH_KILL_WRITE_MATCH) : undefined;
const through = Number(process.env.CRASH_KILL_WRITE_BYTES) || 0;
let skip = Number(process.env.CRASH_KILL_WRITE_SKIP) || 0;
const original = fs.writeSync;
fs.writeSync = function (fd, data, a, b) {
  let path = "";
  try { path = fs.readlinkSync("/proc/self/fd/" + fd); } catch {}
  if (!match || typeof fd !== "number" || fd < 3 || !match.test(path) || skip-- > 0)
    return original.apply(fs, arguments);
  const bytes = typeof data === "string" ? Buffer.from(data) : Buffer.from(data.buffer, data.byteOffset + (a ?? 0), b ?? data.byteLength - (a ?? 0));
  if (through > 0) original.call(fs, fd, bytes, 0, Math.min(through, bytes.length));
  process.kill(process.pid, "SIGKILL");
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10000);
};
const renamed = process.env.CRASH_KILL_AFTER_RENAME ? new RegExp(process.env.CRASH_KILL_AFTER_RENAME) : undefined;
if (renamed) {
  const rename = fs.promises.rename;
  fs.promises.rename = async function (from, to) {
    await rename.call(fs.promises, from, to);
    if (renamed.test(String(to))) {
      process.kill(process.pid, "SIGKILL");
      await new Promise(() => {});
    }
  };
}
syncBuiltinESMExports();
`;

/**
 * `killAtWritePreload`: the process SIGKILLs itself in an `fs.writeSync` to a file whose path matches the regular
 * expression `CRASH_KILL_WRITE_MATCH` (the first, or the one after `CRASH_KILL_WRITE_SKIP` such writes), after letting the first
 * `CRASH_KILL_WRITE_BYTES` bytes of that write through (default 0):
 * a kill at an exact point of a write, for the tests of what such a kill used to leave. With `CRASH_KILL_AFTER_RENAME`
 * (a regular expression), it SIGKILLs itself just after an `fs.promises.rename` to a matching path instead.
 */
export const killAtWritePreload = `data:text/javascript,${encodeURIComponent(killSource)}`;
