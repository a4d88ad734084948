/**
 * Evaluation sweeps over model servers (fake ones on 127.0.0.1, so that a server can be killed on cue and requests
 * counted): runs spread over the servers within each one's limit, every task exactly once, a server killed mid-sweep
 * has its runs moved to the others, the results file written as runs finish, and `resume` finishing an interrupted
 * sweep without redoing or duplicating a run. The same over two real llama-server processes:
 * test/http/llama/real-sweep.test.ts.
 */
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { evaluateSuite, type EvaluateOptions } from "../../src/eval/evaluate.js";
import type { RunRecord } from "../../src/eval/runner/run-record.js";
import { startFakeServer, type FakeServer } from "./fake-server.js";

const SUITE = "evals/basic.json";
const TASKS = 12;

let servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function fakes(count: number, latencyMs: number): Promise<FakeServer[]> {
  const started = await Promise.all(
    Array.from({ length: count }, () =>
      startFakeServer({ dialect: "llama-server", models: ["gemma"], latencyMs, reply: () => '{"final_answer":"42"}' }),
    ),
  );
  servers.push(...started);
  return started;
}

function sweep(urls: string[], extra: Partial<EvaluateOptions> = {}): EvaluateOptions {
  return {
    models: urls.map((u) => `${u}#gemma`),
    budgets: [2, 4],
    limit: TASKS,
    server: { concurrency: 2, handle: { retries: 1, random: () => 0 } },
    ...extra,
  };
}

const key = (r: RunRecord) => `${r.model}|${r.budget}|${r.seed}|${r.taskId}`;

function expectEachRunOnce(runs: readonly RunRecord[], tasks = TASKS, budgets = 2): void {
  expect(runs).toHaveLength(tasks * budgets);
  expect(new Set(runs.map(key)).size).toBe(runs.length);
  expect(runs.filter((r) => r.stopReason === "harness_error")).toEqual([]);
}

function resultLines(path: string): RunRecord[] {
  const lines = readFileSync(path, "utf8").trim().split("\n");
  expect(JSON.parse(lines[0])).toMatchObject({ kind: "gemma-agent-eval-results" });
  return lines.slice(1).map((l) => (JSON.parse(l) as { run: RunRecord }).run);
}

describe("a sweep over several servers", () => {
  it("spreads the runs over the servers, never past a server's concurrency, each task exactly once", async () => {
    const [a, b] = await fakes(2, 60);
    const report = await evaluateSuite(SUITE, sweep([a.baseURL, b.baseURL]));
    expect(report.models).toEqual(["gemma"]);
    expectEachRunOnce(report.runs);
    // temperature 0: one real run per task (budget 4), budget 2 played back from it
    expect(a.generateRequests().length + b.generateRequests().length).toBe(TASKS);
    expect(a.generateRequests().length).toBeGreaterThanOrEqual(4);
    expect(b.generateRequests().length).toBeGreaterThanOrEqual(4);
    expect(a.maxInFlight).toBeLessThanOrEqual(2);
    expect(b.maxInFlight).toBeLessThanOrEqual(2);
    expect(Math.max(a.maxInFlight, b.maxInFlight)).toBe(2);
    const shares = report.servers!;
    expect(shares.map((s) => s.server)).toEqual([`${a.baseURL}#gemma`, `${b.baseURL}#gemma`]);
    expect(shares.reduce((n, s) => n + s.runs, 0)).toBe(TASKS);
    for (const s of shares) {
      expect(s.runsPerMinute).toBeGreaterThan(0);
      expect(s.down).toBeUndefined();
    }
  });

  it("a server killed mid-sweep: its runs in flight move to the other, the report says so, nothing is lost", async () => {
    const [a, b] = await fakes(2, 150);
    let killed = false;
    const report = await evaluateSuite(
      SUITE,
      sweep([a.baseURL, b.baseURL], {
        onProgress: (p) => {
          if (!killed && p.done >= 4) {
            killed = true;
            void b.close();
          }
        },
      }),
    );
    expect(killed).toBe(true);
    expectEachRunOnce(report.runs);
    const [sa, sb] = report.servers!;
    expect(sb.down).toMatch(/taken out at .* s: cannot reach the model server/);
    expect(sb.movedAway).toBeGreaterThanOrEqual(1);
    expect(sa.down).toBeUndefined();
    expect(sa.runs + sb.runs).toBe(TASKS);
    expect(sa.runs).toBeGreaterThan(sb.runs);
  });

  it("every server gone: the runs left are harness errors (not finished runs), and the sweep ends", async () => {
    const [a] = await fakes(1, 100);
    const out = mkdtempSync(join(tmpdir(), "sweep-"));
    const results = join(out, "results.jsonl");
    let killed = false;
    const report = await evaluateSuite(
      SUITE,
      sweep([a.baseURL], {
        results: { path: results },
        onProgress: (p) => {
          if (!killed && p.done >= 4) {
            killed = true;
            void a.close();
          }
        },
      }),
    );
    const errors = report.runs.filter((r) => r.stopReason === "harness_error");
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0].failures[0]).toMatch(/every server of this model is down/);
    // only finished runs are in the results file: a resume runs the others again
    const written = resultLines(results);
    expect(written.map((r) => r.stopReason)).not.toContain("harness_error");
    expect(written.length).toBe(report.runs.length - errors.length);
  });
});

describe("results file and resume", () => {
  it("writes each run as it finishes; an interrupted sweep resumed does each remaining run once, none twice", async () => {
    const [a, b] = await fakes(2, 40);
    const out = mkdtempSync(join(tmpdir(), "sweep-"));
    const results = join(out, "results.jsonl");
    const controller = new AbortController();
    const first = await evaluateSuite(
      SUITE,
      sweep([a.baseURL, b.baseURL], {
        signal: controller.signal,
        results: { path: results },
        onProgress: (p) => p.done >= 8 && controller.abort(),
      }),
    );
    expect(first.interrupted).toBe(true);
    const before = resultLines(results);
    expect(before.length).toBeGreaterThanOrEqual(8);
    expect(before.length).toBeLessThan(TASKS * 2);
    // a fresh sweep must not wipe the unfinished one
    await expect(evaluateSuite(SUITE, sweep([a.baseURL, b.baseURL], { results: { path: results } }))).rejects.toThrow(
      /holds an unfinished sweep .* add --resume/,
    );
    // the process was killed while writing a line: the partial line is dropped on resume
    appendFileSync(results, '{"run": {"model": "gemma", "taskId');
    const calls = a.generateRequests().length + b.generateRequests().length;
    const second = await evaluateSuite(
      SUITE,
      sweep([a.baseURL, b.baseURL], { results: { path: results, resume: true } }),
    );
    expect(second.interrupted).toBe(false);
    expectEachRunOnce(second.runs);
    expect(second.resumedRuns).toBe(before.length);
    const after = resultLines(results);
    expectEachRunOnce(after);
    // the runs of the first sweep are kept as they were, not made again
    for (const r of before) expect(after.find((x) => key(x) === key(r))).toEqual(r);
    const doneTasks = new Set(before.map((r) => r.taskId));
    const newCalls = a.generateRequests().length + b.generateRequests().length - calls;
    expect(newCalls).toBe(
      TASKS - [...doneTasks].filter((t) => before.filter((r) => r.taskId === t).length === 2).length,
    );
  });

  it("a resume of another sweep, or of no file, is refused", async () => {
    const [a] = await fakes(1, 0);
    const out = mkdtempSync(join(tmpdir(), "sweep-"));
    const results = join(out, "results.jsonl");
    await expect(
      evaluateSuite(SUITE, sweep([a.baseURL], { results: { path: results, resume: true } })),
    ).rejects.toThrow(/no .*results\.jsonl to resume/);
    await evaluateSuite(SUITE, sweep([a.baseURL], { results: { path: results } }));
    await expect(
      evaluateSuite(SUITE, sweep([a.baseURL], { budgets: [8], results: { path: results, resume: true } })),
    ).rejects.toThrow(/another sweep \(budgets was \[2,4\], now \[8\]\)/);
    writeFileSync(results, "not json\n");
    await expect(
      evaluateSuite(SUITE, sweep([a.baseURL], { results: { path: results, resume: true } })),
    ).rejects.toThrow(/not a results file/);
  });
});
