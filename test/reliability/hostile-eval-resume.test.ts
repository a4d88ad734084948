/**
 * An eval sweep's results file (`eval --out DIR`, `--resume`) as a hostile or unlucky file system makes it (issue 29):
 * a FIFO or device, a huge file, a valid JSON line that is not a record, invalid UTF-8 before a torn line, lines
 * repeated by an earlier unlocked writer, two sweeps resuming at once, a full disk. Through the built CLI on the
 * heuristic model (evals/basic.json: 36 tasks × 4 budgets = 144 runs, about 2 s): no hang, every refusal one line
 * with exit 2, no success reported for runs not written, and in the end every run in the file exactly once.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { generalFailures, refusalFailures, runHostile, Tally, type CliRun } from "../helpers/hostile-cli.js";

const SUITE = fileURLToPath(new URL("../../evals/basic.json", import.meta.url));
const RUNS = 144;
const dir = mkdtempSync(join(tmpdir(), "ga-hostile-eval-"));
const tally = new Tally();
const mounts: string[] = [];
afterAll(() => {
  for (const mount of mounts) execFileSync("umount", [mount], { stdio: "ignore" });
  console.log(tally.line("hostile eval resume"));
  rmSync(dir, { recursive: true, force: true });
});

const sweep = (out: string, ...flags: string[]) =>
  runHostile(["eval", SUITE, "--model", "heuristic", "--out", out, "--quiet", ...flags], { timeoutMs: 30_000 });
const withResults = (results: string, ...flags: string[]) =>
  runHostile(["eval", SUITE, "--model", "heuristic", "--results", results, "--quiet", ...flags], { timeoutMs: 30_000 });

/** The run lines of a results file, by key; what is wrong with them (a run twice, missing, a line not whole). */
function checkFile(path: string, expected = RUNS): string[] {
  const bytes = readFileSync(path);
  const failures: string[] = [];
  if (bytes.at(-1) !== 0x0a) failures.push("the file does not end with a whole line");
  const lines = bytes.toString("utf8").trim().split("\n").slice(1);
  const keys = lines.map((line) => {
    const { run } = JSON.parse(line);
    return `${run.model}/${run.budget}/${run.seed}/${run.taskId}`;
  });
  if (new Set(keys).size !== keys.length) failures.push(`${keys.length - new Set(keys).size} runs written twice`);
  if (new Set(keys).size !== expected) failures.push(`${new Set(keys).size} runs, not ${expected}`);
  return failures;
}

const resumedRuns = (out: string): number =>
  JSON.parse(readFileSync(join(out, "report.json"), "utf8")).resumedRuns ?? 0;

/** A finished sweep's results file cut back to its header and `keep` runs (an interrupted sweep). */
async function interrupted(name: string, keep: number): Promise<string> {
  const out = join(dir, name);
  const first = await sweep(out);
  expect(first.status, first.stderr).toBe(0);
  const path = join(out, "results.jsonl");
  const lines = readFileSync(path, "utf8").split("\n");
  writeFileSync(path, `${lines.slice(0, keep + 1).join("\n")}\n`);
  return out;
}

function refused(name: string, run: CliRun, message: RegExp): void {
  const failures = refusalFailures(run);
  if (!message.test(run.stderr)) failures.push(`stderr does not say ${message}: ${run.stderr.slice(0, 200)}`);
  tally.record(name, failures);
}

describe("hostile eval results files (issue 29)", () => {
  it("FIFOs, devices and huge files are refused at once, fresh and with --resume", async () => {
    const start = tally.failed.length;
    const fifo = join(dir, "fifo.jsonl");
    execFileSync("mkfifo", [fifo]);
    refused("a FIFO, fresh", await withResults(fifo), /not a regular file/);
    refused("a FIFO, --resume", await withResults(fifo, "--resume"), /not a regular file/);
    refused("/dev/zero, --resume", await withResults("/dev/zero", "--resume"), /not a regular file/);
    const huge = join(dir, "huge.jsonl");
    writeFileSync(huge, "");
    truncateSync(huge, 3 * 2 ** 30);
    refused("a 3 GB file, --resume", await withResults(huge, "--resume"), /over the 67108864-byte limit/);
    expect(tally.failed.slice(start)).toEqual([]);
  }, 120_000);

  it("a valid JSON line that is not a record, or a bad header, is one clear refusal", async () => {
    const start = tally.failed.length;
    const out = await interrupted("not-record", 20);
    const path = join(out, "results.jsonl");
    const original = readFileSync(path, "utf8").split("\n");
    for (const line of ['{"foo":1}', "[]", "null", '{"run":{}}', '{"run":{"model":"heuristic"}}', "42"]) {
      writeFileSync(path, [...original.slice(0, 5), line, ...original.slice(5)].join("\n"));
      refused(`the line ${line}`, await sweep(out, "--resume"), /line 6 is not a run record/);
    }
    writeFileSync(path, `{"kind":"gemma-agent-eval-results","version":1,"header":{"models":7}}\n`);
    refused("a header that is not a sweep's", await sweep(out, "--resume"), /is not a results file/);
    expect(tally.failed.slice(start)).toEqual([]);
  }, 120_000);

  it("invalid UTF-8 before a torn line, and repeated lines: the resume cuts at the exact byte and counts each run once", async () => {
    const start = tally.failed.length;
    const out = await interrupted("utf8", 50);
    const path = join(out, "results.jsonl");
    let bytes = readFileSync(path);
    // a bad byte inside line 10's answer string: the line stays a record (the byte reads as U+FFFD)
    const at = bytes.indexOf('"answer":"', bytes.indexOf("\n", bytes.indexOf('"run"') + 4000)) + 10;
    bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff, 0xfe]), bytes.subarray(at)]);
    const lines = bytes.toString("latin1").split("\n");
    // lines 2-11 written again (an earlier unlocked second writer), then a torn line
    const repeated = Buffer.from(`${lines.slice(1, 11).join("\n")}\n`, "latin1");
    writeFileSync(
      path,
      Buffer.concat([
        bytes,
        repeated,
        Buffer.from('{"run":{"model":"heuristic","taskId":"\u00e9'),
        Buffer.from([0xff]),
      ]),
    );
    const whole = Buffer.concat([bytes, repeated]);
    const resumed = await sweep(out, "--resume");
    const failures = generalFailures(resumed);
    if (resumed.status !== 0) failures.push(`exit ${resumed.status}: ${resumed.stderr.slice(0, 200)}`);
    if (!readFileSync(path).subarray(0, whole.length).equals(whole))
      failures.push("bytes before the torn line changed");
    failures.push(...checkFileAllowingRepeats(path, 10));
    if (resumedRuns(out) !== 50) failures.push(`resumedRuns ${resumedRuns(out)}, not 50`);
    const again = await sweep(out, "--resume");
    if (again.status !== 0 || resumedRuns(out) !== RUNS)
      failures.push(`a second resume: ${again.status}, resumedRuns ${resumedRuns(out)}`);
    tally.record("invalid UTF-8, repeated lines and a torn line", failures);
    expect(tally.failed.slice(start)).toEqual([]);
  }, 120_000);

  it("a second sweep on the same file is refused while the first runs; at once, every run is written once", async () => {
    const start = tally.failed.length;
    const out = await interrupted("locked", 10);
    const holder = spawn("sleep", ["30"]);
    writeFileSync(join(out, "results.jsonl.lock"), String(holder.pid));
    refused("a live lock", await sweep(out, "--resume"), /being written by another eval sweep \(process \d+\)/);
    holder.kill();
    await new Promise((resolve) => holder.on("close", resolve));
    const runs = await Promise.all([1, 2, 3].map(() => sweep(out, "--resume")));
    const failures = runs.flatMap((run) =>
      run.status === 0 || (run.status === 2 && /being written by another/.test(run.stderr))
        ? generalFailures(run)
        : [`exit ${run.status}: ${run.stderr.slice(0, 200)}`],
    );
    failures.push(...checkFile(join(out, "results.jsonl")));
    if (existsSync(join(out, "results.jsonl.lock"))) failures.push("the lock was left behind");
    tally.record(`3 --resume at once (${runs.filter((r) => r.status === 0).length} ran, the rest refused)`, failures);
    expect(tally.failed.slice(start)).toEqual([]);
  }, 120_000);

  it("a full disk stops the sweep with an error, the file holding whole lines; a resume then finishes it", async (context) => {
    const start = tally.failed.length;
    if (process.getuid?.() !== 0) return context.skip("needs root to mount a small tmpfs");
    const mount = join(dir, "full");
    mkdirSync(mount);
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=32k", "tmpfs", mount]);
    mounts.unshift(mount);
    const out = join(mount, "out");
    const full = await sweep(out);
    const failures = generalFailures(full);
    if (full.status === 0) failures.push("exit 0 with runs not written");
    if (!/ENOSPC|no space/i.test(full.stderr)) failures.push(`stderr: ${full.stderr.slice(0, 200)}`);
    const path = join(out, "results.jsonl");
    if (readFileSync(path).at(-1) !== 0x0a) failures.push("a partial line was left");
    execFileSync("mount", ["-o", "remount,size=4m", mount]);
    const resumed = await sweep(out, "--resume");
    if (resumed.status !== 0) failures.push(`the resume: exit ${resumed.status}: ${resumed.stderr.slice(0, 200)}`);
    else failures.push(...checkFile(path));
    tally.record("a full disk mid-sweep", failures);
    expect(tally.failed.slice(start)).toEqual([]);
  }, 120_000);
});

/** checkFile for a file that holds `repeats` lines an earlier unlocked writer wrote twice (the resume keeps them). */
function checkFileAllowingRepeats(path: string, repeats: number): string[] {
  const lines = readFileSync(path, "utf8").trim().split("\n").slice(1);
  const keys = lines.map((line) => {
    const { run } = JSON.parse(line);
    return `${run.model}/${run.budget}/${run.seed}/${run.taskId}`;
  });
  const failures: string[] = [];
  if (new Set(keys).size !== RUNS) failures.push(`${new Set(keys).size} runs, not ${RUNS}`);
  if (keys.length - new Set(keys).size !== repeats)
    failures.push(`${keys.length - new Set(keys).size} repeats, not ${repeats}`);
  if (readFileSync(path).at(-1) !== 0x0a) failures.push("the file does not end with a whole line");
  return failures;
}
