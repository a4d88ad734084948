/**
 * Conversation files (`run AGENT --conversation FILE`) as a hostile or unlucky file system makes them (issue 29): a
 * full disk, FIFOs and devices, a huge file, invalid UTF-8 before a torn line, a read-only file or folder, a second
 * writer, a stale lock. Through the built CLI: no hang, no success reported for a turn not written, every refusal one
 * line with exit 2 before the turn runs, a torn tail cut at its exact byte.
 */
import { execFileSync, spawn } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Conversation, ConversationError } from "../../src/memory/index.js";
import { CLI, generalFailures, refusalFailures, runHostile, Tally, type CliRun } from "../helpers/hostile-cli.js";

const dir = mkdtempSync(join(tmpdir(), "ga-hostile-conv-"));
const tally = new Tally();
const mounts: string[] = [];
afterAll(() => {
  for (const mount of mounts) spawnQuiet("umount", [mount]);
  console.log(tally.line("hostile conversations"));
  rmSync(dir, { recursive: true, force: true });
});

function spawnQuiet(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const AGENT = join(dir, "agent.yaml");
writeFileSync(AGENT, "name: helper\ntools: [calculator]\n");

/** A scripted model that answers `answer` once. */
function script(answer = "The total is 42 apples."): string {
  const path = join(dir, `replies-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify([{ final_answer: answer }]));
  return `script:${path}`;
}

const turn = (file: string, answer?: string) =>
  runHostile(["run", AGENT, "a question", "--conversation", file, "--model", script(answer), "--quiet"], {
    timeoutMs: 15_000,
  });

/** A run refused before its turn: one line, exit 2, saying `message`, and no answer printed. */
function refusedBeforeTurn(name: string, run: CliRun, message: RegExp): void {
  const failures = refusalFailures(run);
  if (!message.test(run.stderr)) failures.push(`stderr does not say ${message}: ${run.stderr.slice(0, 200)}`);
  if (run.stdout.includes("42 apples")) failures.push("the turn ran");
  tally.record(name, failures);
}

/** A tmpfs of `size` at a fresh folder (root only); undefined when mounting is not allowed here. */
function tmpfs(size: string): string | undefined {
  const mount = mkdtempSync(join(dir, "mnt-"));
  if (!spawnQuiet("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", mount])) return undefined;
  mounts.unshift(mount);
  return mount;
}

const isRoot = process.getuid?.() === 0;

describe("hostile conversation files (issue 29)", () => {
  it("FIFOs, devices and huge files are refused at once, before the turn", async () => {
    const start = tally.failed.length;
    const fifo = join(dir, "fifo.jsonl");
    execFileSync("mkfifo", [fifo]);
    refusedBeforeTurn("a FIFO", await turn(fifo), /not a regular file/);
    refusedBeforeTurn("/dev/zero", await turn("/dev/zero"), /not a regular file/);
    const huge = join(dir, "huge.jsonl");
    writeFileSync(huge, "");
    truncateSync(huge, 200 << 20);
    refusedBeforeTurn("a 200 MB file", await turn(huge), /over the 67108864-byte limit/);
    expect(tally.failed.slice(start)).toEqual([]);
  }, 60_000);

  it("a file swapped for a FIFO between turns is refused, not waited on", () => {
    const start = tally.failed.length;
    const path = join(dir, "swap.jsonl");
    const conversation = Conversation.open(path);
    const newTurn = { user: "q", answer: "a", stopReason: "answer", calls: [], messages: [] };
    conversation.addTurn(newTurn);
    rmSync(path);
    execFileSync("mkfifo", [path]);
    const started = performance.now();
    let error: unknown;
    try {
      conversation.addTurn(newTurn);
    } catch (thrown) {
      error = thrown;
    }
    const failures: string[] = [];
    if (!(error instanceof ConversationError && error.code === "not_a_file")) failures.push(`threw ${String(error)}`);
    if (performance.now() - started > 1_000) failures.push("waited");
    if (conversation.turns.length !== 1) failures.push("the unwritten turn was kept as written");
    conversation.close();
    tally.record("a FIFO swapped in between turns", failures);
    expect(tally.failed.slice(start)).toEqual([]);
  });

  it("chat: a file swapped for a FIFO between turns ends the chat with exit 2, no turn reported saved", async () => {
    const start = tally.failed.length;
    const path = join(dir, "chat.jsonl");
    const replies = join(dir, "chat-replies.json");
    writeFileSync(replies, JSON.stringify([{ final_answer: "The total is 42 apples." }, { final_answer: "Then 43." }]));
    const shell = `(echo first; sleep 2; rm -f '${path}'; mkfifo '${path}'; echo second; sleep 2; echo third) | "${process.execPath}" "${CLI}" chat '${AGENT}' --conversation '${path}' --model 'script:${replies}'`;
    const started = performance.now();
    const child = spawn("sh", ["-c", shell], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    clearTimeout(timer);
    const failures: string[] = [];
    if (code !== 2) failures.push(`exit ${code}`);
    if (!/the turn was not saved, the chat ends: .*not a regular file/.test(stderr))
      failures.push(`stderr: ${stderr.slice(-300)}`);
    if (performance.now() - started > 15_000) failures.push("took over 15 s");
    tally.record("chat: a FIFO swapped in between turns", failures);
    expect(tally.failed.slice(start)).toEqual([]);
  }, 30_000);

  it("invalid UTF-8 before a torn line: the cut lands on the exact byte; a whole last line with a bad byte is kept", async () => {
    const start = tally.failed.length;
    const path = join(dir, "utf8.jsonl");
    const first = await turn(path);
    expect(first.status, first.stderr).toBe(0);
    // a turn whose text holds invalid UTF-8 (bytes 0xff 0xfe inside a string): a whole line, newline-ended
    const line = Buffer.from(
      `{"type":"turn","index":2,"at":"2026-01-01T00:00:00Z","user":"bad \u0000","stopReason":"answer","calls":[],"messages":[]}\n`,
    );
    const bad = Buffer.concat([
      line.subarray(0, line.indexOf(0)),
      Buffer.from([0xff, 0xfe]),
      line.subarray(line.indexOf(0) + 1),
    ]);
    appendFileSync(path, bad);
    const whole = readFileSync(path);
    const kept = await turn(path);
    const f1 = generalFailures(kept);
    if (kept.status !== 0) f1.push(`exit ${kept.status}: ${kept.stderr}`);
    if (/warning/.test(kept.stderr)) f1.push(`warned: ${kept.stderr}`);
    if (!readFileSync(path).subarray(0, whole.length).equals(whole))
      f1.push("the whole line with a bad byte was changed");
    tally.record("a whole last line with a bad byte is not torn", f1);
    const before = readFileSync(path);
    appendFileSync(path, Buffer.concat([Buffer.from('{"type":"turn","index":4,"user":"\u00e9'), Buffer.from([0xff])]));
    const torn = await turn(path);
    const f2 = generalFailures(torn);
    if (torn.status !== 0) f2.push(`exit ${torn.status}: ${torn.stderr}`);
    if (!/the last line was not a whole record/.test(torn.stderr)) f2.push(`no warning: ${torn.stderr}`);
    const after = readFileSync(path);
    if (!after.subarray(0, before.length).equals(before)) f2.push("bytes before the torn line changed");
    const added = after.subarray(before.length).toString("utf8");
    if (!added.startsWith('{"type":"turn","index":4,') || added.split("\n").length !== 2)
      f2.push(`the next turn was not appended right after the cut: ${added.slice(0, 80)}`);
    const again = await turn(path);
    if (again.status !== 0 || /warning/.test(again.stderr)) f2.push(`the next run: ${again.stderr}`);
    const indexes = Conversation.open(path).turns.map((t) => t.index);
    if (indexes.join() !== "1,2,3,4,5") f2.push(`turns ${indexes.join()}`);
    tally.record("invalid UTF-8 before a torn line", f2);
    expect(tally.failed.slice(start)).toEqual([]);
  }, 60_000);

  it("a read-only file or folder is refused before the turn runs", async () => {
    const start = tally.failed.length;
    const folder = join(dir, "readonly");
    mkdirSync(folder);
    const path = join(folder, "c.jsonl");
    expect((await turn(path)).status).toBe(0);
    let remount: string | undefined;
    if (isRoot) {
      // root ignores permission bits: a read-only file system says no to root too
      remount = tmpfs("1m");
      if (remount) {
        writeFileSync(join(remount, "c.jsonl"), readFileSync(path));
        spawnQuiet("mount", ["-o", "remount,ro", remount]);
      }
    } else {
      chmodSync(path, 0o444);
      chmodSync(folder, 0o555);
    }
    const base = remount ?? folder;
    refusedBeforeTurn(
      "a read-only file",
      await turn(join(base, "c.jsonl")),
      /cannot write .*(EROFS|EACCES|read-only|permission)/i,
    );
    refusedBeforeTurn(
      "a read-only folder",
      await turn(join(base, "new.jsonl")),
      /cannot write .*(EROFS|EACCES|read-only|permission)/i,
    );
    if (!isRoot) chmodSync(folder, 0o755);
    expect(tally.failed.slice(start)).toEqual([]);
  }, 60_000);

  it("a full disk: the turn is not reported as answered, and nothing torn is left", async (context) => {
    const start = tally.failed.length;
    const mount = isRoot ? tmpfs("64k") : undefined;
    if (!mount) return context.skip("needs root to mount a small tmpfs");
    const path = join(mount, "c.jsonl");
    expect((await turn(path)).status).toBe(0);
    const before = readFileSync(path);
    // fill the disk but for two pages: one for the lock, one for the first 4 KB of the turn's record (a short write)
    let filler = 0;
    while (spawnQuiet("sh", ["-c", `head -c 4096 /dev/zero >> ${join(mount, "filler")}`])) filler++;
    spawnQuiet("sh", ["-c", `truncate -s -8192 ${join(mount, "filler")}`]);
    const full = await turn(path, "Forty-two apples. ".repeat(350));
    const failures = generalFailures(full);
    if (full.status === 0) failures.push("exit 0 for a turn not written");
    if (!/ENOSPC|no space/i.test(full.stderr)) failures.push(`stderr: ${full.stderr.slice(0, 200)}`);
    if (!readFileSync(path).equals(before)) failures.push("the file changed (a partial turn was left)");
    rmSync(join(mount, "filler"));
    const next = await turn(path);
    if (next.status !== 0 || /warning/.test(next.stderr)) failures.push(`the next run: ${next.stderr}`);
    tally.record(`a full disk (${filler} blocks of filler)`, failures);
    expect(tally.failed.slice(start)).toEqual([]);
  }, 60_000);

  it("a second writer is refused while the first holds the file; a stale lock is taken over; runs at once never repeat an index", async () => {
    const start = tally.failed.length;
    const path = join(dir, "shared.jsonl");
    const holder = spawn("sleep", ["30"]);
    writeFileSync(`${path}.lock`, String(holder.pid));
    refusedBeforeTurn("a live lock", await turn(path), /in use by another gemma-agent \(process \d+\)/);
    holder.kill();
    await new Promise((resolve) => holder.on("close", resolve));
    const stale = await turn(path);
    tally.record("a stale lock", stale.status === 0 ? [] : [`exit ${stale.status}: ${stale.stderr}`]);
    const runs = await Promise.all(Array.from({ length: 6 }, () => turn(path)));
    const failures = runs.flatMap((run) =>
      run.status === 0 || (run.status === 2 && /in use by another/.test(run.stderr))
        ? generalFailures(run)
        : [`exit ${run.status}: ${run.stderr.slice(0, 200)}`],
    );
    const lines = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const indexes = lines.filter((l) => l.type === "turn").map((l) => l.index);
    if (lines.filter((l) => l.type === "conversation").length !== 1) failures.push("more than one header");
    if (new Set(indexes).size !== indexes.length) failures.push(`repeated indexes: ${indexes.join()}`);
    if (indexes.length !== 1 + runs.filter((r) => r.status === 0).length) failures.push("a reported turn is missing");
    if (existsSync(`${path}.lock`)) failures.push("the lock was left behind");
    tally.record(`6 runs at once (${runs.filter((r) => r.status === 0).length} wrote, the rest refused)`, failures);
    expect(tally.failed.slice(start)).toEqual([]);
  }, 90_000);
});
