/**
 * What the grounding bias (issue 26) costs an agent step: the benchmark's one-step task (scripts/lib/bench-task.ts,
 * "What is 17% of 2,340?", calculator and weather skills) and one BFCL simple_python question, on one real GGUF,
 * grounding off / soft / strict alternated in each round (the order rotates), each step from an empty sequence.
 * Reports per mode the median step wall time, generated tokens and generation ms per token (the prompt's evaluation
 * excluded), and soft's and strict's over off's: the per-token ratio is the bias's own cost (a grounded reply may be
 * shorter or longer than an ungrounded one, which the step ratio shows).
 *
 *   npx tsx scripts/bench-grounding.ts --model <gguf> [--rounds 5] [--threads 1]
 */
import { parseArgs } from "node:util";
import { Agent } from "../src/agent/agent.js";
import { AgentState } from "../src/agent/agent-state.js";
import { BUNDLED_BFCL_DIR, loadBfclCategory } from "../src/eval/bfcl/bfcl-files.js";
import { bfclTasks } from "../src/eval/bfcl/bfcl-tasks.js";
import type { GroundingMode } from "../src/model/model-handle.js";
import { loadModel, type LlamaModelHandle } from "../src/model/llama/index.js";
import { benchAccess } from "../src/model/llama/bench-access.js";
import type { Registry } from "../src/skills/registry.js";
import { TASK_QUESTION, taskRegistry } from "./lib/bench-task.js";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    rounds: { type: "string", default: "5" },
    threads: { type: "string", default: "1" },
    bfcl: { type: "string", default: "simple_python_300" },
  },
});
if (!values.model) throw new Error("--model <gguf> is required");
const MODES: GroundingMode[] = ["off", "soft", "strict"];
const bfcl = bfclTasks(loadBfclCategory(BUNDLED_BFCL_DIR, "simple_python")).tasks.find((t) => t.id === values.bfcl)!;
const tasks: { name: string; query: string; registry: Registry }[] = [
  { name: "bench task", query: TASK_QUESTION, registry: taskRegistry() },
  { name: values.bfcl, query: bfcl.query, registry: bfcl.registry },
];

interface Sample {
  ms: number;
  tokens: number;
  /** Generation only (the prompt's evaluation excluded): ms per generated token, from the handle's stats. */
  genMsPerToken: number;
}

async function oneStep(handle: LlamaModelHandle, agent: Agent, query: string): Promise<Sample> {
  await benchAccess(handle).llamaObjects.sequence.clearHistory();
  const started = performance.now();
  await agent.step(new AgentState(query));
  const stats = handle.stats;
  return {
    ms: performance.now() - started,
    tokens: stats.generatedTokens,
    genMsPerToken: 1000 / stats.tokensPerSecond,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const handle = await loadModel({ model: values.model, gpu: false, contextSize: 4096, threads: Number(values.threads) });
for (const task of tasks) {
  const samples = new Map<GroundingMode, Sample[]>(MODES.map((m) => [m, []]));
  const agents = new Map(MODES.map((m) => [m, new Agent({ model: handle, registry: task.registry, grounding: m })]));
  await oneStep(handle, agents.get("off")!, task.query); // warm-up
  for (let round = 0; round < Number(values.rounds); round++) {
    const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]);
    for (const mode of order) samples.get(mode)!.push(await oneStep(handle, agents.get(mode)!, task.query));
  }
  const perToken = (m: GroundingMode) => median(samples.get(m)!.map((s) => s.genMsPerToken));
  console.log(`${task.name} (${values.rounds} rounds, ${values.model.split("/").at(-1)}, ${values.threads} thread(s))`);
  for (const mode of MODES) {
    const s = samples.get(mode)!;
    console.log(
      `  ${mode.padEnd(6)} step ${median(s.map((x) => x.ms)).toFixed(0)} ms, ${median(s.map((x) => x.tokens))} tokens, generation ${perToken(mode).toFixed(1)} ms/token` +
        (mode === "off"
          ? ""
          : `; ${(perToken(mode) / perToken("off")).toFixed(2)}x off's generation ms/token, step ${(median(s.map((x) => x.ms)) / median(samples.get("off")!.map((x) => x.ms))).toFixed(2)}x off's`),
    );
  }
}
await handle.dispose();
