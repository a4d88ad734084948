/**
 * The one reader of files the program is given (src/regular-file.ts) and the lock beside files that must not have two
 * writers (src/lock-file.ts): what the reliability suites rely on, checked without a CLI.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
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

  /** `takers` processes that each try the lock at the same moment, hold it a while, and say what they got. */
  /** How long the taker holds the lock: longer than any other taker can be late. */
  const HOLD_MS = 4_000;
  async function race(lock: string, takers: number): Promise<string[]> {
    const startAt = Date.now() + 4_000; // every child has started (tsx) before any tries
    // each child sleeps (no busy wait: six of them on 2 cores) until the same moment, then tries
    const script = `import { takeLock } from "${join(import.meta.dirname, "../src/lock-file.ts")}";
      const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, ms));
      sleep(${startAt} - Date.now());
      const late = Date.now() - ${startAt};
      try {
        const release = takeLock(${JSON.stringify(lock)}, (why) => new Error("pid" in why ? "held by " + why.pid : why.error.message));
        console.log("took " + process.pid + " late " + late);
        sleep(${HOLD_MS});
        release();
      } catch (e) { console.log(e.message + " late " + late); }`;
    const outputs = Array.from({ length: takers }, () => {
      const child = spawn(process.execPath, ["--import", "tsx", "-e", script], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
      return new Promise<string>((resolve) => child.on("close", () => resolve(out.trim())));
    });
    return Promise.all(outputs);
  }

  it("processes racing for a free lock, or for a dead process's, leave it to one: the others name that one", async () => {
    for (const stale of [false, true]) {
      const lock = join(dir, `race-${stale}.lock`);
      if (stale) writeFileSync(lock, spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" }).stdout.trim());
      const lines = await race(lock, 6);
      const late = lines.map((line) => Number(/late (-?\d+)/.exec(line)?.[1]));
      expect(Math.max(...late), `every taker tried while the holder held it: ${lines.join("; ")}`).toBeLessThan(
        HOLD_MS - 1_000,
      );
      const took = lines.filter((line) => line.startsWith("took "));
      expect(took, lines.join("; ")).toHaveLength(1);
      const holder = /took (\d+)/.exec(took[0] ?? "")?.[1];
      for (const line of lines.filter((l) => !l.startsWith("took ")))
        expect(line).toMatch(new RegExp(`^held by ${holder} late`));
      expect(
        entriesOf(dir).filter((name) => name.startsWith(`race-${stale}.lock`)),
        "no lock or aside file left",
      ).toEqual([]);
    }
  }, 60_000);
});
