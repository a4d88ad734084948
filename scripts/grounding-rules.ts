/**
 * Each grounding rule's gain with every other rule on (model/grounding/rules.ts): BFCL questions run whole, as
 * `eval` runs them (runEval, budget 4, greedy), on one real GGUF loaded once; first with every rule on, recording
 * which rules each run asked (GroundingOptions.onRule), then, for each rule, only the questions whose run asked it,
 * again with that rule off. A rule a run never asked cannot have changed it (RuleGate; the corpus test in
 * test/model-files/grounding-rules.test.ts checks it), so the rule-off score of the other questions is their
 * all-on score: the ablation is exact and costs a run only where the rule acted.
 *
 *   npx tsx scripts/grounding-rules.ts --model <gguf> [--category simple_python] [--parity odd|even|all]
 *     [--stride 1] [--rules a,b] [--threads 2] [--out FILE.json]
 *
 * Prints one row per rule: the questions that asked it, their score on and off, and the gain in points of all the
 * questions run.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { BUNDLED_BFCL_DIR, loadBfclCategory } from "../src/eval/bfcl/bfcl-files.js";
import { bfclTasks } from "../src/eval/bfcl/bfcl-tasks.js";
import type { EvalTask } from "../src/eval/runner/eval-task.js";
import type { ModelProvider } from "../src/eval/runner/model-providers.js";
import { runEval } from "../src/eval/runner/run-eval.js";
import { GROUNDING_RULES } from "../src/model/grounding/rules.js";
import { loadModel } from "../src/model/llama/index.js";
import type { GenerateOptions, ModelHandle } from "../src/model/model-handle.js";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    category: { type: "string", default: "simple_python" },
    parity: { type: "string", default: "odd" },
    stride: { type: "string", default: "1" },
    rules: { type: "string" },
    threads: { type: "string", default: "2" },
    budget: { type: "string", default: "4" },
    out: { type: "string" },
  },
});
if (!values.model) throw new Error("--model <gguf> is required");
const rules = values.rules ? values.rules.split(",") : GROUNDING_RULES.map((r) => r.name);
const unknown = rules.filter((r) => !GROUNDING_RULES.some((g) => g.name === r));
if (unknown.length) throw new Error(`unknown rules: ${unknown.join(", ")}`);
const number = (id: string) => Number(id.slice(id.lastIndexOf("_") + 1));
const parity = values.parity;
const category = values.category;
const tasks = bfclTasks(loadBfclCategory(BUNDLED_BFCL_DIR, category), {
  parallelCalls: category.startsWith("parallel"),
})
  .tasks.filter((t) => parity === "all" || number(t.id) % 2 === (parity === "odd" ? 1 : 0))
  .filter((_, i) => i % Number(values.stride) === 0);
const budget = Number(values.budget);

const model = await loadModel({ model: values.model, gpu: false, contextSize: 8192, threads: Number(values.threads) });

/** The model with `rulesOff` in every call's grounding, and the rules each task's run asked. */
function provider(rulesOff: string[], asked: Map<string, Set<string>>): ModelProvider {
  return {
    name: "m",
    concurrency: 1,
    deterministic: true,
    async acquire(task: EvalTask): Promise<ModelHandle> {
      const seen = asked.get(task.id) ?? new Set<string>();
      asked.set(task.id, seen);
      const generate = (prompt: string, options: GenerateOptions = {}) =>
        model.generate(prompt, {
          ...options,
          ...(options.grounding && {
            grounding: { ...options.grounding, rulesOff, onRule: (rule: string) => seen.add(rule) },
          }),
        });
      return new Proxy(model, {
        get(target, key) {
          if (key === "generate") return generate;
          const value = Reflect.get(target, key, target) as unknown;
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
    async dispose() {},
  };
}

async function score(subset: readonly EvalTask[], rulesOff: string[], asked = new Map<string, Set<string>>()) {
  const started = performance.now();
  const { records } = await runEval({
    tasks: subset,
    providers: [provider(rulesOff, asked)],
    budgets: [budget],
    seeds: [1],
  });
  const passed = new Set(records.filter((r) => r.success).map((r) => r.taskId));
  return { passed, asked, ms: performance.now() - started };
}

const all = await score(tasks, []);
const n = tasks.length;
process.stderr.write(`every rule on: ${all.passed.size}/${n} in ${(all.ms / 1000).toFixed(0)} s\n`);
const rows: { rule: string; asked: number; on: number; off: number; gain: number; seconds: number }[] = [];
for (const rule of rules) {
  const subset = tasks.filter((t) => all.asked.get(t.id)?.has(rule));
  const on = subset.filter((t) => all.passed.has(t.id)).length;
  const off = subset.length === 0 ? { passed: new Set<string>(), ms: 0 } : await score(subset, [rule]);
  const row = {
    rule,
    asked: subset.length,
    on,
    off: off.passed.size,
    gain: (100 * (on - off.passed.size)) / n,
    seconds: Math.round(off.ms / 1000),
  };
  rows.push(row);
  process.stderr.write(`${rule}: asked in ${row.asked}, ${row.on} -> ${row.off} off (${row.gain.toFixed(1)} points)\n`);
}
const header = `${category} ${parity} (stride ${values.stride}), ${n} questions, budget ${budget}: every rule on ${all.passed.size}/${n} (${((100 * all.passed.size) / n).toFixed(1)}%)`;
console.log(header);
console.log("| rule | asked in | on | off | gain (points) |");
console.log("| --- | --- | --- | --- | --- |");
for (const r of rows)
  console.log(`| ${r.rule} | ${r.asked} | ${r.on} | ${r.off} | ${r.gain >= 0 ? "+" : ""}${r.gain.toFixed(1)} |`);
if (values.out)
  writeFileSync(
    values.out,
    JSON.stringify(
      { category, parity, stride: Number(values.stride), n, budget, allOn: all.passed.size, rows },
      null,
      2,
    ),
  );
await model.dispose();
