/**
 * What the decision (issues 39 and 40) does to an evaluation's time: BFCL simple_python questions run whole (budget
 * 4) with the decision off and scored, on one real GGUF loaded once, the two runs of a question back to back with
 * their order alternated from one question to the next (off first on even positions, scored first on odd ones).
 * Reports per mode the median run wall time and steps, and per question the ratio scored/off: its median with the
 * quartiles, and the ratio of the totals. The runs are the same the eval makes (the same prompts, the decision's
 * final round), without the eval's model process.
 *
 *   npx tsx scripts/bench-decision.ts --model <gguf> [--questions 40] [--stride 10] [--offset 1] [--threads 2]
 */
import { parseArgs } from "node:util";
import { Agent } from "../src/agent/agent.js";
import { BUNDLED_BFCL_DIR, loadBfclCategory } from "../src/eval/bfcl/bfcl-files.js";
import { bfclTasks } from "../src/eval/bfcl/bfcl-tasks.js";
import { loadModel } from "../src/model/llama/index.js";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    questions: { type: "string", default: "40" },
    stride: { type: "string", default: "10" },
    offset: { type: "string", default: "1" },
    threads: { type: "string", default: "2" },
    category: { type: "string", default: "simple_python" },
  },
});
if (!values.model) throw new Error("--model <gguf> is required");
const stride = Number(values.stride);
const offset = Number(values.offset);
const tasks = bfclTasks(loadBfclCategory(BUNDLED_BFCL_DIR, values.category))
  .tasks.filter((t) => {
    const n = Number(t.id.slice(t.id.lastIndexOf("_") + 1));
    return n >= offset && (n - offset) % stride === 0;
  })
  .slice(0, Number(values.questions));

const handle = await loadModel({ model: values.model, gpu: false, contextSize: 8192, threads: Number(values.threads) });
type Mode = "off" | "scored";
const runs: Record<Mode, { ms: number; steps: number }[]> = { off: [], scored: [] };
const ratios: number[] = [];
for (const [i, task] of tasks.entries()) {
  const order: Mode[] = i % 2 === 0 ? ["off", "scored"] : ["scored", "off"];
  const ms: Partial<Record<Mode, number>> = {};
  for (const mode of order) {
    const agent = new Agent({ model: handle, registry: task.registry, decision: mode });
    const started = performance.now();
    const state = await agent.run(task.query, { maxIterations: 4 });
    ms[mode] = performance.now() - started;
    runs[mode].push({ ms: ms[mode], steps: state.iterations });
  }
  ratios.push(ms.scored! / ms.off!);
  process.stderr.write(`${task.id}: off ${Math.round(ms.off!)} ms, scored ${Math.round(ms.scored!)} ms\n`);
}
await handle.dispose();

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const quantile = (xs: number[], q: number) => sorted(xs)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const line = (mode: Mode) =>
  `${mode}: median run ${Math.round(
    quantile(
      runs[mode].map((r) => r.ms),
      0.5,
    ),
  )} ms, median steps ${quantile(
    runs[mode].map((r) => r.steps),
    0.5,
  )}, total ${(sum(runs[mode].map((r) => r.ms)) / 1000).toFixed(1)} s`;
console.log(`model ${values.model}; ${tasks.length} ${values.category} questions (every ${stride}th from ${offset})`);
console.log(line("off"));
console.log(line("scored"));
console.log(
  `scored / off per question: median ${quantile(ratios, 0.5).toFixed(3)} (quartiles ${quantile(ratios, 0.25).toFixed(3)}-${quantile(ratios, 0.75).toFixed(3)}); totals ${(sum(runs.scored.map((r) => r.ms)) / sum(runs.off.map((r) => r.ms))).toFixed(3)}`,
);
