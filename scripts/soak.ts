/**
 * Soak: do long runs stay flat? (issue 42 item 2). Runs one long-lived command of the built CLI and samples, over
 * time, its processes' resident memory (VmRSS), open file descriptors and threads (/proc), their JS heaps and the
 * model's live sequences (a probe preloaded into them listens on the loader's `gemma-agent:model-call` diagnostics
 * channel), and the prompt cache's size on disk (a temporary folder, GEMMA_AGENT_PROMPT_CACHE). Between samples
 * /proc is polled and each interval's peak RSS kept: memory that saws between garbage collections is judged by its
 * peaks. Prints the samples and a verdict: after the warm-up (the first 25%, --warmup), the peak RSS grows <= 5%, and fds,
 * threads and live sequences do not grow (fds: the fewest in the last interval against the most in the warm-up's
 * last); any process warning (MaxListenersExceededWarning, ...) is listed.
 *
 *   npx tsx scripts/soak.ts eval [--runs 2000] [--model GGUF] [--budget 2] [--parallel 2] [--samples 20]
 *   npx tsx scripts/soak.ts chat [--turns 500] [--model GGUF] [--token-budget 1000] [--samples 20]
 *   npx tsx scripts/soak.ts verdict FILE.json [--warmup 0.1]    (judge a soak's saved samples again)
 *
 * eval: ONE `eval` process, evals/basic.json's first 25 tasks x runs/25 seeds (the fixture model by default: random
 * weights, real llama.cpp); chat: a `chat` session in a pty (util-linux `script`), one line a turn, with a token
 * budget small enough that the conversation is trimmed every turn or two (a GGUF model: the probe reports its calls'
 * prompt tokens, checked against the budget, and the trims). Real models: one llama process at a time on
 * this machine, `flock /tmp/eval.lock npx tsx scripts/soak.ts eval --model $GEMMA_AGENT_TEST_MODEL --runs 200`.
 * Needs `npm run build` first. `--json FILE` writes the samples and the verdict. Exits 1 when the verdict is GROWS.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fixtureModelPath } from "../test/helpers/fixture-model.js";
import { chatSoak } from "./lib/soak-chat.js";
import { evalSoak, FIXTURE_EVAL_LEVERS } from "./lib/soak-eval.js";
import type { SoakSample } from "./lib/soak-sample.js";
import { renderSamples, renderVerdict, soakVerdict } from "./lib/soak-verdict.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: "string", default: "2000" },
    turns: { type: "string", default: "500" },
    model: { type: "string" },
    budget: { type: "string", default: "2" },
    parallel: { type: "string", default: "2" },
    "token-budget": { type: "string", default: "1000" },
    threads: { type: "string" },
    samples: { type: "string", default: "20" },
    warmup: { type: "string", default: "0.25" },
    json: { type: "string" },
  },
});
const kind = positionals[0];
if (kind !== "eval" && kind !== "chat" && kind !== "verdict")
  throw new Error("usage: soak.ts eval|chat|verdict [options] (see the file's header)");
const warmup = Number(values.warmup);
if (!(warmup >= 0 && warmup < 1)) throw new Error("--warmup must be a fraction in [0, 1)");
if (kind === "verdict") {
  const saved = JSON.parse(readFileSync(positionals[1] ?? "", "utf8")) as {
    kind: string;
    total: number;
    samples: SoakSample[];
  };
  const verdict = soakVerdict(saved.samples, saved.total, { warmup });
  console.log(`${renderSamples(saved.samples, saved.kind === "chat" ? "turns" : "runs")}\n`);
  console.log(renderVerdict(verdict, saved.kind === "chat" ? "turns" : "runs"));
  process.exit(verdict.failures.length === 0 ? 0 : 1);
}
const int = (name: keyof typeof values) => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number >= 1`);
  return n;
};
const model = values.model ?? fixtureModelPath();
const fixture = values.model === undefined;
const threads = values.threads ? int("threads") : fixture ? 1 : undefined;
const workDir = mkdtempSync(join(tmpdir(), "ga-soak-"));
const progress = (unit: string, total: number) => (s: SoakSample) =>
  process.stderr.write(`\r${s.done}/${total} ${unit}, ${s.seconds.toFixed(0)} s   `);

try {
  let samples: SoakSample[];
  let total: number;
  let unit: string;
  let extra: string[] = [];
  if (kind === "eval") {
    const tasks = 25;
    const seeds = Math.ceil(int("runs") / tasks);
    total = tasks * seeds;
    unit = "runs";
    const result = await evalSoak({
      model,
      tasks,
      seeds,
      budget: int("budget"),
      parallel: int("parallel"),
      samples: int("samples"),
      workDir,
      ...(threads && { threads }),
      contextSize: 2048,
      extraArgs: fixture ? FIXTURE_EVAL_LEVERS : [],
      onSample: progress(unit, total),
    });
    samples = result.samples;
    const last = result.probes.find((p) => p.sequences)?.sequences;
    extra = [
      `eval exit code ${result.code}; ${result.finished} of ${total} runs in the results file`,
      `the model process's sequences after its last call (written at its exit): ${JSON.stringify(last)}`,
    ];
    if (result.code !== 0) extra.push(`stderr: ${result.stderr.trim().split("\n").slice(-5).join("\n")}`);
    extra.push(`process warnings: ${result.warnings.length === 0 ? "none" : result.warnings.join("; ")}`);
  } else {
    total = int("turns");
    unit = "turns";
    const result = await chatSoak({
      model,
      turns: total,
      tokenBudget: int("token-budget"),
      samples: int("samples"),
      workDir,
      ...(threads && { threads }),
      onSample: progress(unit, total),
    });
    samples = result.samples;
    extra = [
      `chat exit code ${result.code}; ${result.turns} of ${total} turns in the conversation file`,
      `prompt tokens: at most ${result.maxPromptTokens} (token budget ${int("token-budget")}); ${result.trims} trims`,
      `process warnings: ${result.warnings.length === 0 ? "none" : result.warnings.join("; ")}`,
    ];
  }
  process.stderr.write("\n");
  const verdict = soakVerdict(samples, total, { warmup });
  console.log(`${kind} soak on ${model}\n`);
  console.log(renderSamples(samples, unit));
  console.log(`\n${extra.join("\n")}\n${renderVerdict(verdict, unit)}`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ kind, model, total, samples, verdict }, null, 2)}\n`);
  process.exitCode = verdict.failures.length === 0 ? 0 : 1;
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
