/**
 * An evaluation sweep over two real llama-server processes (Gemma 3 270M, one thread each, 127.0.0.1): the runs spread
 * over both, every task exactly once; an interrupted sweep resumed from its results file without redoing or
 * duplicating a run; a server killed mid-sweep (SIGKILL) has its runs moved to the other.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateSuite, type EvaluateOptions } from "../../../src/eval/evaluate.js";
import type { RunRecord } from "../../../src/eval/runner/run-record.js";
import { testModelPath } from "../../helpers/test-models.js";
import { llamaServerPath, startLlamaServer, type LlamaServer } from "./llama-server.js";

const binary = llamaServerPath();
const model = testModelPath("GEMMA_AGENT_TEST_MODEL");
/** Tasks whose first replies are short on this model (a few seconds each on one thread). */
const TASK_IDS = ["arith-split-bill", "arith-sqrt", "arith-chain-2", "arith-power"];
const TASKS = TASK_IDS.length;

let servers: LlamaServer[] = [];
beforeAll(async () => {
  if (binary && model)
    servers = await Promise.all([0, 1].map(() => startLlamaServer({ binary, model, contextSize: 2048 })));
}, 180_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

function sweep(extra: Partial<EvaluateOptions>): EvaluateOptions {
  return {
    models: servers.map((s) => `${s.baseURL}#gemma-3-270m`),
    budgets: [1],
    taskIds: TASK_IDS,
    server: { concurrency: 1, handle: { promptMode: "completion", structuredOutput: "gbnf", retries: 1 } },
    ...extra,
  };
}

const key = (r: RunRecord) => `${r.model}|${r.budget}|${r.seed}|${r.taskId}`;

function written(path: string): RunRecord[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => (JSON.parse(line) as { run: RunRecord }).run);
}

describe.skipIf(!binary || !model)("a sweep over two real llama-server processes", () => {
  it("spreads the runs over both; interrupted and resumed, it ends with every task exactly once", async () => {
    const results = join(mkdtempSync(join(tmpdir(), "real-sweep-")), "results.jsonl");
    const controller = new AbortController();
    const first = await evaluateSuite(
      "evals/basic.json",
      sweep({
        results: { path: results },
        signal: controller.signal,
        onProgress: (p) => p.done >= 2 && controller.abort(),
      }),
    );
    expect(first.interrupted).toBe(true);
    const before = written(results);
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(before.length).toBeLessThan(TASKS);
    const second = await evaluateSuite("evals/basic.json", sweep({ results: { path: results, resume: true } }));
    expect(second.interrupted).toBe(false);
    expect(second.resumedRuns).toBe(before.length);
    const after = written(results);
    for (const runs of [second.runs, after]) {
      expect(runs).toHaveLength(TASKS);
      expect(new Set(runs.map(key)).size).toBe(TASKS);
      expect(runs.filter((r) => r.stopReason === "harness_error" || r.stopReason === "model_error")).toEqual([]);
    }
    for (const r of before) expect(after.find((x) => key(x) === key(r))).toEqual(r);
    // both servers served runs, across the two parts of the sweep
    const shares = [...first.servers!, ...second.servers!];
    for (const s of servers)
      expect(
        Math.max(0, ...shares.filter((x) => x.server.startsWith(s.baseURL)).map((x) => x.runs)),
        s.baseURL,
      ).toBeGreaterThan(0);
  }, 600_000);

  it("a server killed mid-sweep: its run moves to the other server, every task still exactly once", async () => {
    const [, victim] = servers;
    let killed = false;
    const report = await evaluateSuite(
      "evals/basic.json",
      sweep({
        onProgress: (p) => {
          if (!killed && p.done >= 1) {
            killed = true;
            victim.kill();
          }
        },
      }),
    );
    expect(killed).toBe(true);
    expect(report.runs).toHaveLength(TASKS);
    expect(new Set(report.runs.map(key)).size).toBe(TASKS);
    expect(report.runs.filter((r) => r.stopReason === "harness_error" || r.stopReason === "model_error")).toEqual([]);
    const down = report.servers!.find((s) => s.server.startsWith(victim.baseURL))!;
    expect(down.down).toMatch(/taken out at/);
    expect(report.servers!.reduce((n, s) => n + s.runs, 0)).toBe(TASKS);
  }, 600_000);
});
