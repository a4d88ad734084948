/**
 * The one reader of files the program is given (src/regular-file.ts) and the lock beside files that must not have two
 * writers (src/lock-file.ts): what the reliability suites rely on, checked without a CLI.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, constants, mkdtempSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { takeLock } from "../src/lock-file.js";
import {
  appendWhole,
  openRegularFile,
  readRegularFile,
  RegularFileError,
  wholeLinesLength,
} from "../src/regular-file.js";
import { entriesOf } from "./helpers/dir-entries.js";

const dir = mkdtempSync(join(tmpdir(), "ga-regular-"));

function thrown(fn: () => unknown): RegularFileError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(RegularFileError);
    return error as RegularFileError;
  }
  throw new Error("expected a throw");
}

describe("readRegularFile and openRegularFile", () => {
  it("refuse a FIFO (for reading and for appending) and a device at once, and a file over the bound before reading", () => {
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    const started = performance.now();
    expect(thrown(() => readRegularFile(fifo, 100)).code).toBe("not_a_file");
    expect(thrown(() => openRegularFile(fifo, constants.O_WRONLY | constants.O_APPEND)).code).toBe("not_a_file");
    expect(thrown(() => readRegularFile("/dev/zero", 100)).code).toBe("not_a_file");
    expect(thrown(() => readRegularFile(dir, 100)).code).toBe("not_a_file");
    expect(performance.now() - started).toBeLessThan(1_000);
    const big = join(dir, "big");
    writeFileSync(big, "");
    truncateSync(big, 2 ** 40); // sparse: a terabyte that costs nothing
    const tooLarge = thrown(() => readRegularFile(big, 1 << 20, "a test file"));
    expect(tooLarge.code).toBe("too_large");
    expect(tooLarge.message).toMatch(/over the 1048576-byte limit of a test file/);
    expect(thrown(() => readRegularFile(join(dir, "missing"), 10)).code).toBe("not_found");
    writeFileSync(join(dir, "small"), "hello");
    expect(readRegularFile(join(dir, "small"), 5).toString()).toBe("hello");
  });

  it("wholeLinesLength counts bytes: invalid UTF-8 before a torn line moves no cut", () => {
    const bytes = Buffer.concat([
      Buffer.from('{"a":"'),
      Buffer.from([0xff, 0xc3]),
      Buffer.from('"}\n{"b":'),
      Buffer.from([0xe2]),
    ]);
    expect(wholeLinesLength(bytes)).toBe(bytes.indexOf(0x0a) + 1);
    expect(wholeLinesLength(Buffer.from("no newline"))).toBe(0);
  });

  it("appendWhole writes everything or leaves the file as it was", () => {
    const path = join(dir, "append");
    writeFileSync(path, "first\n");
    const fd = openRegularFile(path, constants.O_WRONLY | constants.O_APPEND);
    appendWhole(fd, "second\n");
    closeSync(fd);
    expect(readFileSync(path, "utf8")).toBe("first\nsecond\n");
    // /dev/full fails every write: nothing is reported written (a device, so through a raw descriptor)
    const full = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        `import { openSync } from "node:fs"; import { appendWhole } from "${join(import.meta.dirname, "../src/regular-file.ts")}";
         try { appendWhole(openSync("/dev/full", "a"), "x"); console.log("written"); } catch (e) { console.log(e.code); }`,
      ],
      { encoding: "utf8" },
    );
    expect(full.stdout.trim()).toBe("ENOSPC");
  });
});

describe("takeLock", () => {
  const refuse = (why: { pid: number } | { error: NodeJS.ErrnoException }) =>
    new Error("pid" in why ? `held by ${why.pid}` : why.error.message);

  it("refuses while another live process holds it, takes over a dead one's, and is shared within a process", () => {
    const lock = join(dir, "file.lock");
    const holder = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" }); // a pid that has exited
    writeFileSync(lock, holder.stdout.trim());
    const release = takeLock(lock, refuse);
    expect(readFileSync(lock, "utf8")).toBe(String(process.pid));
    const again = takeLock(lock, refuse); // the same process: shared, counted
    release();
    expect(entriesOf(dir)).toContain("file.lock");
    again();
    expect(entriesOf(dir)).not.toContain("file.lock");
    writeFileSync(lock, String(process.ppid)); // a live process
    expect(() => takeLock(lock, refuse)).toThrow(`held by ${process.ppid}`);
    execFileSync("rm", [lock]);
    execFileSync("mkfifo", [lock]); // not a lock file of ours: refused, not removed, not waited on
    expect(() => takeLock(lock, refuse)).toThrow(/not a regular file/);
    expect(entriesOf(dir)).toContain("file.lock");
  });
});
