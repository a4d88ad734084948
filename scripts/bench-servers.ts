/**
 * Evaluation throughput over model servers: tasks per minute of an eval sweep with 1 llama-server vs 2, each at
 * concurrency 1, 2 and 4 (the server started with as many slots), on the Gemma 3 270M test model, one thread per
 * server. Each configuration runs the same tasks on freshly started servers (no warm cache carried over); the
 * configurations are alternated (the order reversed every other round) and the medians reported, because the machine
 * may be shared. Server start-up is not timed.
 *
 *   npx tsx scripts/bench-servers.ts [--tasks 4] [--budget 2] [--rounds 2] [--threads 1] [--out docs/results/bench-servers]
 *
 * Needs scripts/build-llama-server.sh's binary (or GEMMA_AGENT_LLAMA_SERVER) and the test model (npm run
 * fetch-test-models, or GEMMA_AGENT_TEST_MODEL).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { evaluateSuite } from "../src/eval/evaluate.js";
import { cachedLlamaServer, startLlamaServer, type LlamaServer } from "./lib/llama-server.js";
import { TEST_MODELS, testModelsDir } from "./lib/test-models.js";

interface Config {
  servers: number;
  concurrency: number;
}

interface Measure extends Config {
  round: number;
  wallMs: number;
  tasksPerMinute: number;
  runsPerServer: number[];
}

const SUITE = "evals/basic.json";
/** Tasks of the suite whose replies are short on this model, in this order (`--tasks N` takes the first N). */
const TASK_IDS = ["arith-split-bill", "arith-sqrt", "arith-chain-2", "arith-power", "arith-average", "arith-seconds"];

function options() {
  const { values } = parseArgs({
    options: {
      tasks: { type: "string", default: "4" },
      budget: { type: "string", default: "2" },
      rounds: { type: "string", default: "2" },
      threads: { type: "string", default: "1" },
      out: { type: "string" },
    },
  });
  return {
    tasks: Number(values.tasks),
    budget: Number(values.budget),
    rounds: Number(values.rounds),
    threads: Number(values.threads),
    out: values.out,
  };
}

function paths(): { binary: string; model: string } {
  const binary = process.env.GEMMA_AGENT_LLAMA_SERVER ?? cachedLlamaServer();
  const model = process.env.GEMMA_AGENT_TEST_MODEL ?? join(testModelsDir(), TEST_MODELS[0].file);
  if (!existsSync(binary)) throw new Error(`no llama-server at ${binary}: run bash scripts/build-llama-server.sh`);
  if (!existsSync(model)) throw new Error(`no test model at ${model}: run npm run fetch-test-models`);
  return { binary, model };
}

/** One sweep of `config` on fresh servers: the eval's wall time, and how the runs were shared. */
async function measure(config: Config, round: number, run: ReturnType<typeof options>): Promise<Measure> {
  const { binary, model } = paths();
  const servers: LlamaServer[] = await Promise.all(
    Array.from({ length: config.servers }, () =>
      startLlamaServer({ binary, model, threads: run.threads, slots: config.concurrency, contextSize: 2048 }),
    ),
  );
  try {
    const started = performance.now();
    const report = await evaluateSuite(SUITE, {
      models: servers.map((s) => `${s.baseURL}#gemma-3-270m`),
      budgets: [run.budget],
      taskIds: TASK_IDS.slice(0, run.tasks),
      server: { concurrency: config.concurrency, handle: { promptMode: "completion", structuredOutput: "gbnf" } },
    });
    const wallMs = performance.now() - started;
    const failed = report.runs.filter((r) => r.stopReason === "harness_error" || r.stopReason === "model_error");
    if (failed.length > 0) throw new Error(`runs failed: ${failed.map((r) => r.failures.join("; ")).join(" | ")}`);
    return {
      ...config,
      round,
      wallMs: Math.round(wallMs),
      tasksPerMinute: Number(((run.tasks * 60_000) / wallMs).toFixed(2)),
      runsPerServer: report.servers!.map((s) => s.runs),
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function table(measures: Measure[], configs: Config[]): string {
  const rows = configs.map((c) => {
    const mine = measures.filter((m) => m.servers === c.servers && m.concurrency === c.concurrency);
    const rates = mine.map((m) => m.tasksPerMinute);
    const share = mine.map((m) => m.runsPerServer.join("+")).join(", ");
    return `| ${c.servers} | ${c.concurrency} | ${median(rates).toFixed(2)} | ${Math.min(...rates).toFixed(2)}-${Math.max(...rates).toFixed(2)} | ${median(mine.map((m) => m.wallMs / 1000)).toFixed(1)} | ${share} |`;
  });
  return [
    "| servers | concurrency per server | tasks/min (median) | min-max | wall s (median) | runs per server, each round |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
}

async function main(): Promise<void> {
  const run = options();
  const configs: Config[] = [1, 2].flatMap((servers) => [1, 2, 4].map((concurrency) => ({ servers, concurrency })));
  const measures: Measure[] = [];
  const load = [loadavg()[0]];
  for (let round = 1; round <= run.rounds; round++) {
    for (const config of round % 2 ? configs : [...configs].reverse()) {
      const m = await measure(config, round, run);
      console.error(
        `round ${round}: ${config.servers} server(s) x concurrency ${config.concurrency}: ${m.tasksPerMinute} tasks/min (${(m.wallMs / 1000).toFixed(1)} s)`,
      );
      measures.push(m);
    }
  }
  load.push(loadavg()[0]);
  const machine = `${cpus().length} CPU cores (${cpus()[0]?.model ?? "unknown"}), ${Math.round(totalmem() / 2 ** 30)} GiB, load average ${load.map((l) => l.toFixed(1)).join(" -> ")} (start -> end)`;
  const text = table(measures, configs);
  console.log(text);
  if (run.out) {
    mkdirSync(join(run.out, ".."), { recursive: true });
    const command = `npx tsx scripts/bench-servers.ts --tasks ${run.tasks} --budget ${run.budget} --rounds ${run.rounds} --threads ${run.threads} --out ${run.out}`;
    writeFileSync(
      `${run.out}.json`,
      `${JSON.stringify({ command, machine, date: new Date().toISOString(), run, measures }, null, 2)}\n`,
    );
    writeFileSync(
      `${run.out}.md`,
      `${text}\n\nCommand: \`${command}\`  \nMachine: ${machine}  \nDate: ${new Date().toISOString()}\n`,
    );
  }
}

await main();
