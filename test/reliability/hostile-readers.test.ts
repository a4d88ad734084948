/**
 * The readers the second reliability pass left outside the bounded reader (issue 42 item 4), through the built CLI:
 * an eval suite (`eval FILE`), a replay trace (`eval --model replay:FILE`, and each `<task-id>.jsonl` of a replay
 * folder) and a script of replies (`ask --model script:FILE`), each given a FIFO, `/dev/zero`, a sparse file far over
 * its cap and a folder. Each probe must be refused at once in one line that names the file and the problem, exit 2,
 * never hang (a FIFO with no writer blocks a plain read forever), never pass 300 MB. A BFCL data file, read the same
 * way, gets the same four probes.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_SCRIPT_FILE_BYTES } from "../../src/defaults.js";
import { MAX_BFCL_FILE_BYTES, MAX_SUITE_FILE_BYTES, MAX_TRACE_FILE_BYTES } from "../../src/eval/defaults.js";
import { refusalFailures, runHostile, Tally } from "../helpers/hostile-cli.js";

const dir = mkdtempSync(join(tmpdir(), "ga-hostile-readers-"));
const tally = new Tally();
afterAll(() => {
  console.log(tally.line("hostile readers"));
  rmSync(dir, { recursive: true, force: true });
});

const BASIC = join(import.meta.dirname, "..", "..", "evals", "basic.json");
/** A task of evals/basic.json: a single-file replay must name one. */
const TASK = "arith-percent";
/** A refusal past this is no longer "at once": the CLI starts in well under a second, even on a loaded machine. */
const MAX_MS = 10_000;

/**
 * The four hostile files of one reader: `make` makes one at `path` and returns the path to give (`/dev/zero` itself
 * unless the reader looks for a fixed name, `path` then a link to it); `says` is what the refusal must say.
 */
type Probe = { name: string; make: (path: string, fixedName?: boolean) => string; says: (cap: number) => RegExp };

const NOT_A_FILE = () => /is not a regular file/;
const PROBES: Probe[] = [
  {
    name: "FIFO",
    make: (path) => {
      execFileSync("mkfifo", [path]);
      return path;
    },
    says: NOT_A_FILE,
  },
  {
    name: "/dev/zero",
    make: (path, fixedName = false) => {
      if (!fixedName) return "/dev/zero";
      symlinkSync("/dev/zero", path);
      return path;
    },
    says: NOT_A_FILE,
  },
  {
    name: "sparse 4 GiB file",
    make: (path) => {
      writeFileSync(path, "");
      truncateSync(path, 4 * 2 ** 30); // sparse: costs no disk
      return path;
    },
    says: (cap) => new RegExp(`${4 * 2 ** 30} bytes, over the ${cap}-byte limit`),
  },
  { name: "folder", make: (path) => (mkdirSync(path), path), says: NOT_A_FILE },
];

/** One probe's run: refused (one line, exit 2), the file named, the problem said, in bounded time. */
async function refused(name: string, args: readonly string[], file: string, says: RegExp): Promise<void> {
  const run = await runHostile(args, { timeoutMs: 20_000 });
  const failures = refusalFailures(run);
  if (!run.stderr.includes(file)) failures.push(`stderr does not name ${file}: ${run.stderr.slice(0, 200)}`);
  if (!says.test(run.stderr)) failures.push(`stderr does not say ${says}: ${run.stderr.slice(0, 200)}`);
  if (run.ms > MAX_MS) failures.push(`took ${Math.round(run.ms)} ms`);
  tally.record(`${name} (${Math.round(run.ms)} ms, ${run.peakMb.toFixed(0)} MB)`, failures);
}

/** Runs `check` for each probe, the file made under a folder of its own named after `reader`. */
async function eachProbe(reader: string, check: (probe: Probe, base: string) => Promise<void>): Promise<void> {
  for (const [i, probe] of PROBES.entries()) {
    const base = join(dir, `${reader}-${i}`);
    mkdirSync(base);
    await check(probe, base);
  }
}

describe("hostile files for the eval's and the CLI's readers (issue 42 item 4)", () => {
  it("a suite file", async () => {
    const start = tally.failed.length;
    await eachProbe("suite", async (probe, base) => {
      const file = probe.make(join(base, "suite.json"));
      await refused(
        `suite: ${probe.name}`,
        ["eval", file, "--model", "oracle"],
        file,
        probe.says(MAX_SUITE_FILE_BYTES),
      );
    });
    expect(tally.failed.slice(start)).toEqual([]);
  }, 120_000);

  it("a replay trace, given as the file", async () => {
    const start = tally.failed.length;
    await eachProbe("trace", async (probe, base) => {
      const file = probe.make(join(base, "trace.jsonl"));
      // a folder as the trace is a folder of traces: its probe is a folder as a task's trace, below
      if (probe.name === "folder") return;
      const args = ["eval", BASIC, "--task", TASK, "--model", `replay:${file}`];
      await refused(`replay file: ${probe.name}`, args, file, probe.says(MAX_TRACE_FILE_BYTES));
    });
    expect(tally.failed.slice(start)).toEqual([]);
  }, 120_000);

  it("a replay folder whose trace for a task is hostile is refused before any run", async () => {
    const start = tally.failed.length;
    await eachProbe("trace-dir", async (probe, base) => {
      const file = probe.make(join(base, `${TASK}.jsonl`), true);
      // the whole suite: the other tasks have no trace there (their runs would fail), this one's is refused first
      const args = ["eval", BASIC, "--model", `replay:${base}`];
      await refused(`replay folder: ${probe.name}`, args, file, probe.says(MAX_TRACE_FILE_BYTES));
    });
    expect(tally.failed.slice(start)).toEqual([]);
  }, 120_000);

  it("a script of replies", async () => {
    const start = tally.failed.length;
    await eachProbe("script", async (probe, base) => {
      const file = probe.make(join(base, "replies.json"));
      const args = ["ask", "hi", "--model", `script:${file}`];
      await refused(`script: ${probe.name}`, args, file, probe.says(MAX_SCRIPT_FILE_BYTES));
    });
    expect(tally.failed.slice(start)).toEqual([]);
  }, 120_000);

  it("a BFCL category file", async () => {
    const start = tally.failed.length;
    await eachProbe("bfcl", async (probe, base) => {
      const file = probe.make(join(base, "BFCL_v4_simple_python.json"), true);
      const args = ["eval", "--bfcl", base, "--category", "simple_python", "--model", "oracle"];
      await refused(`BFCL file: ${probe.name}`, args, file, probe.says(MAX_BFCL_FILE_BYTES));
    });
    expect(tally.failed.slice(start)).toEqual([]);
  }, 120_000);
});
