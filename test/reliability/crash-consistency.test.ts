/**
 * Crash consistency (issue 42 item 3): the built CLI SIGKILLed at random points (seeded) while it writes an eval's
 * results (`--resume`), a conversation, a trace and a download, 10 kills each, and what each kill left checked, then
 * the next run (test/reliability/crash/; the prompt cache's kills, real llama.cpp processes, are in
 * test/integration/crash-prompt-cache.test.ts). Then kills at exact points of a write (a preload of the test's own that
 * kills the process inside it), one for each failure the random kills found: a torn results header that `--resume`
 * refused, a conversation whose torn first write lost its header, a torn trace event that made the replay reader
 * refuse the whole trace, an empty prompt cache key that turned the cache off for good, a pull's lock and validator
 * left beside the model by a kill just after its rename.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { readTrace } from "../../src/eval/models/replay-model.js";
import { withoutTornTail } from "../../src/json-lines.js";
import { cacheKey } from "../../src/model/llama/prompt-cache-entry.js";
import { FILE, PAYLOAD, startSlowServer } from "./crash/download-writer.js";
import { CLI, runCli, type CrashRun } from "./crash/harness.js";
import { killAtWritePreload, runKills, tallyFailures, tallyLine, WRITERS, type KillTally } from "./crash/index.js";

const SEED = 42;
const KILLS = 10;
const SUITE = fileURLToPath(new URL("../../evals/basic.json", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "ga-crash-"));
const lines: string[] = [];
afterAll(() => {
  for (const line of lines) console.log(`crash consistency: ${line}`);
  rmSync(dir, { recursive: true, force: true });
});

/** What must be 0 in a tally, by name (so that a failure says which). */
const wrong = (t: KillTally) => ({
  lost: t.lost,
  doubled: t.doubled,
  torn: t.torn,
  partialAccepted: t.partialAccepted,
  failures: t.failures,
});
const none = { lost: 0, doubled: 0, torn: 0, partialAccepted: 0, failures: [] };

describe(`crash consistency: ${KILLS} seeded SIGKILLs per writer (issue 42 item 3)`, () => {
  it("eval, conversation, trace, download: every kill leaves what the next run starts cleanly from", async () => {
    // the four at once: each waits on its CLI runs, its kills and a slow server more than it computes
    const writers = ["eval", "conversation", "trace", "download"] as const;
    const tallies = await Promise.all(
      writers.map((writer) => runKills(WRITERS[writer], { kills: KILLS, seed: SEED, work: dir })),
    );
    lines.push(...tallies.map(tallyLine));
    for (const tally of tallies) {
      expect(tally.kills, tally.writer).toBeGreaterThanOrEqual(KILLS);
      expect(wrong(tally), tally.writer).toEqual(none);
      expect(tallyFailures(tally)).toBe(0);
    }
    // the kills land inside writes (a torn record, a partial .part), not only between them
    expect(tallies.reduce((sum, tally) => sum + tally.midWrite, 0)).toBeGreaterThan(0);
  }, 120_000);
});

/** A CLI run killed inside its `skip + 1`-th write to a file matching `match`, after `bytes` bytes of it. */
function killedAt(args: string[], match: string, skip: number, bytes: number, input?: string): Promise<CrashRun> {
  return runCli(CLI, args, {
    preload: killAtWritePreload,
    env: { CRASH_KILL_WRITE_MATCH: match, CRASH_KILL_WRITE_SKIP: String(skip), CRASH_KILL_WRITE_BYTES: String(bytes) },
    ...(input !== undefined && { input }),
  });
}

describe("kills at exact points of a write: the failures the random kills found, fixed", () => {
  it("eval: a sweep killed inside its header's write is started over by --resume; killed inside a record, resumed", async () => {
    const out = join(dir, "eval-header");
    const sweep = ["eval", SUITE, "--model", "heuristic", "--out", out, "--quiet"];
    const killed = await killedAt(sweep, "/results\\.jsonl$", 0, 30);
    expect(killed.signal).toBe("SIGKILL");
    expect(readFileSync(join(out, "results.jsonl"), "utf8")).toHaveLength(30);
    // before: "is not a results file of gemma-agent eval (start without --resume)", exit 2
    const resumed = await runCli(CLI, [...sweep, "--resume"]);
    expect(resumed.stderr).toBe("");
    expect(resumed.status).toBe(0);
    const whole = readFileSync(join(out, "results.jsonl"), "utf8").split("\n");
    expect(whole[0]).toContain('"kind":"gemma-agent-eval-results"');
    expect(whole).toHaveLength(146); // the header, 144 runs, and the empty string after the last newline

    const cut = join(dir, "eval-record");
    const sweepCut = ["eval", SUITE, "--model", "heuristic", "--out", cut, "--quiet"];
    expect((await killedAt(sweepCut, "/results\\.jsonl$", 20, 100)).signal).toBe("SIGKILL");
    expect(readFileSync(join(cut, "results.jsonl"), "utf8").split("\n")).toHaveLength(21); // 20 whole, a torn tail
    expect((await runCli(CLI, [...sweepCut, "--resume"])).status).toBe(0);
    const report = JSON.parse(readFileSync(join(cut, "report.json"), "utf8"));
    expect(report.resumedRuns).toBe(19);
    const keys = readFileSync(join(cut, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => {
        const { run } = JSON.parse(line);
        return `${run.budget}/${run.seed}/${run.taskId}`;
      });
    expect(new Set(keys).size).toBe(144);
    expect(keys).toHaveLength(144);
  }, 60_000);

  it("conversation: a chat killed inside its first write starts the file again with its header; a kill inside a later turn keeps the answered ones", async () => {
    const replies = join(dir, "replies.json");
    writeFileSync(replies, JSON.stringify(["one", "two", "three"].map((a) => ({ final_answer: `answer ${a}` }))));
    const one = join(dir, "one-reply.json");
    writeFileSync(one, JSON.stringify([{ final_answer: "answer four" }]));
    const file = join(dir, "chat.jsonl");
    const chat = (script: string) => ["chat", "--model", `script:${script}`, "--conversation", file];
    expect((await killedAt(chat(replies), "/chat\\.jsonl$", 0, 40, "q1\nq2\nq3\n")).signal).toBe("SIGKILL");
    expect(readFileSync(file)).toHaveLength(40);
    const next = await runCli(CLI, chat(one), { input: "q4\n" });
    expect(next.status).toBe(0);
    expect(next.stderr).toMatch(/the last line was not a whole record \(40 bytes/);
    const records = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    // before: the turn alone, with no header line
    expect(records.map((r) => r.type)).toEqual(["conversation", "turn"]);
    expect(records[1]).toMatchObject({ index: 1, answer: "answer four" });

    const later = join(dir, "later.jsonl");
    const chatLater = (script: string) => ["chat", "--model", `script:${script}`, "--conversation", later];
    const killed = await killedAt(chatLater(replies), "/later\\.jsonl$", 1, 100, "q1\nq2\nq3\n");
    expect(killed.stdout).toBe("answer one\n");
    expect((await runCli(CLI, chatLater(one), { input: "q4\n" })).status).toBe(0);
    const turns = readFileSync(later, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .filter((r) => r.type === "turn");
    expect(turns.map((t) => [t.index, t.answer])).toEqual([
      [1, "answer one"],
      [2, "answer four"],
    ]);
  }, 60_000);

  it("trace: a run killed inside an event's write leaves a trace the replay reader reads up to that event", async () => {
    const replies = join(dir, "calls.json");
    const calls = Array.from({ length: 5 }, (_, i) => ({
      skill_name: "calculator",
      arguments: { expression: `${i}+1` },
    }));
    writeFileSync(replies, JSON.stringify([...calls, { final_answer: "done" }]));
    const trace = join(dir, "killed-trace.jsonl");
    const ask = ["ask", "Add.", "--model", `script:${replies}`, "--trace", trace, "--quiet"];
    expect((await killedAt(ask, "/killed-trace\\.jsonl$", 4, 25)).signal).toBe("SIGKILL");
    // before: "trace_invalid: line 5: not JSON", the four whole events refused with it
    expect(readTrace(trace).map((event) => event.type)).toEqual([
      "call-skill",
      "observation",
      "call-skill",
      "observation",
    ]);

    // a finished trace cut at every byte of its last line: the events before it, never a refusal or a torn event
    const whole = join(dir, "whole-trace.jsonl");
    expect(
      (await runCli(CLI, ["ask", "Add.", "--model", `script:${replies}`, "--trace", whole, "--quiet"])).status,
    ).toBe(0);
    const text = readFileSync(whole, "utf8");
    const lastStart = text.lastIndexOf("\n", text.length - 2) + 1;
    const events = readTrace(whole);
    const cutPath = join(dir, "cut-trace.jsonl");
    for (let end = lastStart; end < text.length; end++) {
      writeFileSync(cutPath, text.slice(0, end));
      const read = readTrace(cutPath);
      // the last record whole but for its newline is a record; any shorter cut is not
      expect(read).toEqual(end === text.length - 1 ? events : events.slice(0, -1));
    }
  }, 60_000);

  it("download: a pull killed just after its rename leaves its lock and validator; the next pull removes them", async () => {
    const { server, url } = await startSlowServer();
    try {
      const models = join(dir, "models-renamed");
      const env = { GEMMA_AGENT_MODELS: models };
      const killed = await runCli(CLI, ["pull", url], {
        env: { ...env, CRASH_KILL_AFTER_RENAME: `${FILE}$` },
        preload: killAtWritePreload,
      });
      expect(killed.signal).toBe("SIGKILL");
      expect(readdirSync(models).sort()).toEqual([FILE, `${FILE}.part.lock`, `${FILE}.part.validator`]);
      expect(readFileSync(join(models, FILE)).equals(PAYLOAD)).toBe(true);
      const next = await runCli(CLI, ["pull", url], { env });
      expect(next.status).toBe(0);
      expect(next.stderr).toMatch(/already downloaded/);
      // before: the lock and the validator stayed beside the model for good
      expect(readdirSync(models)).toEqual([FILE]);
    } finally {
      server.close();
    }
  }, 60_000);

  it("withoutTornTail drops only a last line that is not JSON and has no newline", () => {
    expect(withoutTornTail('{"a":1}\n{"b":')).toBe('{"a":1}\n');
    expect(withoutTornTail('{"a":1}\n{"b":2}')).toBe('{"a":1}\n{"b":2}');
    expect(withoutTornTail('{"a":1}\nnot json\n')).toBe('{"a":1}\nnot json\n');
    expect(withoutTornTail("")).toBe("");
    expect(withoutTornTail('{"a"')).toBe("");
  });

  it("prompt cache: a process killed while writing the cache's key never leaves a key file that is not a whole key", () => {
    const cache = join(dir, "cache");
    mkdirSync(cache);
    const entry = fileURLToPath(new URL("../../dist/model/llama/prompt-cache-entry.js", import.meta.url));
    const child = spawnSync(
      process.execPath,
      [
        "--import",
        killAtWritePreload,
        "-e",
        `import(${JSON.stringify(entry)}).then((m) => m.cacheKey(process.env.DIR))`,
      ],
      {
        env: { ...process.env, DIR: cache, CRASH_KILL_WRITE_MATCH: "gemma-agent-prompt-cache\\.key" },
        encoding: "utf8",
      },
    );
    expect(child.signal).toBe("SIGKILL");
    // before: an empty key file, and every later run "does not hold a key": the cache off for good
    const key = cacheKey(cache);
    expect(key).toHaveLength(32);
    expect(readFileSync(join(cache, "gemma-agent-prompt-cache.key")).equals(key)).toBe(true);
    // the killed writer's temporary file was removed (its process is gone)
    expect(readdirSync(join(cache, "gemma-agent-prompt-cache.tmp"))).toEqual([]);

    // an empty key file left by a version that wrote the key in place is replaced
    const old = join(dir, "old-cache");
    mkdirSync(old);
    writeFileSync(join(old, "gemma-agent-prompt-cache.key"), "", { mode: 0o600 });
    const replaced = cacheKey(old);
    expect(replaced).toHaveLength(32);
    expect(readFileSync(join(old, "gemma-agent-prompt-cache.key")).equals(replaced)).toBe(true);
    expect(cacheKey(old).equals(replaced)).toBe(true);
  });
});
