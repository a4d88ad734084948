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
 *   npx tsx scripts/grounding-rules.ts --model <gguf> --suite evals/basic.json    (a suite's tasks instead of BFCL's)
 *   npx tsx scripts/grounding-rules.ts --model <gguf> --rules a,b,c --together     (those rules off at once: pruning)
 *   npx tsx scripts/grounding-rules.ts --model <gguf> --rules a+b,c                 (a and b off together, then c)
 *   npx tsx scripts/grounding-rules.ts --model <gguf> --category parallel --tasks parallel_25   (only those tasks)
 *
 * Prints one row per rule (with --together, one row for the set): the questions that asked it, their score on and
 * off, and the gain in points of all the questions run. With --out the JSON is rewritten after each row, so a run cut
 * short keeps the rows it finished (`"partial": true` until the last).
 */
import { writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { BUNDLED_BFCL_DIR, loadBfclCategory } from "../src/eval/bfcl/bfcl-files.js";
import { bfclTasks } from "../src/eval/bfcl/bfcl-tasks.js";
import type { EvalTask } from "../src/eval/runner/eval-task.js";
import type { ModelProvider } from "../src/eval/runner/model-providers.js";
import { runEval } from "../src/eval/runner/run-eval.js";
import { loadSuite } from "../src/eval/suite/load-suite.js";
import { suiteTasks } from "../src/eval/suite/suite-tasks.js";
import { loadSuiteWorkflows } from "../src/eval/suite/suite-workflows.js";
import { GROUNDING_RULES } from "../src/model/grounding/rules.js";
import { loadModel } from "../src/model/llama/index.js";
import type { GenerateOptions, ModelHandle } from "../src/model/model-handle.js";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    category: { type: "string", default: "simple_python" },
    suite: { type: "string" },
    tasks: { type: "string" },
    together: { type: "boolean", default: false },
    parity: { type: "string" },
    stride: { type: "string", default: "1" },
    rules: { type: "string" },
    threads: { type: "string", default: "2" },
    budget: { type: "string", default: "4" },
    out: { type: "string" },
  },
});
if (!values.model) throw new Error("--model <gguf> is required");
// each item of --rules one ablation; `a+b` turns a and b off together
const items = values.rules ? values.rules.split(",") : GROUNDING_RULES.map((r) => r.name);
const rules = items.flatMap((item) => item.split("+"));
const unknown = rules.filter((r) => !GROUNDING_RULES.some((g) => g.name === r));
if (unknown.length) throw new Error(`unknown rules: ${unknown.join(", ")}`);
const number = (id: string) => Number(id.slice(id.lastIndexOf("_") + 1));
// a suite's tasks are all run unless a parity is asked (by position: the first task is odd); BFCL's, the odd half
const parity = values.parity ?? (values.suite ? "all" : "odd");
const category = values.suite ?? values.category;
/** The tasks: BFCL's by their id's number, a suite's by position. */
async function loadTasks(): Promise<{ task: EvalTask; number: number }[]> {
  if (!values.suite) {
    const bfcl = bfclTasks(loadBfclCategory(BUNDLED_BFCL_DIR, category), {
      parallelCalls: category.startsWith("parallel"),
    });
    return bfcl.tasks.map((task) => ({ task, number: number(task.id) }));
  }
  const suite = loadSuite(values.suite);
  const workflows = await loadSuiteWorkflows(suite, dirname(resolve(values.suite)), resolve(values.suite));
  return suiteTasks(suite, workflows).map((task, i) => ({ task, number: i + 1 }));
}
const tasks = (await loadTasks())
  .filter((t) => parity === "all" || t.number % 2 === (parity === "odd" ? 1 : 0))
  .map((t) => t.task)
  .filter((_, i) => i % Number(values.stride) === 0)
  .filter((t) => !values.tasks || values.tasks.split(",").includes(t.id));
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
  const tokens = new Map(records.map((r) => [r.taskId, r.generatedTokens ?? 0]));
  return { passed, tokens, asked, ms: performance.now() - started };
}

const all = await score(tasks, []);
const n = tasks.length;
process.stderr.write(`every rule on: ${all.passed.size}/${n} in ${(all.ms / 1000).toFixed(0)} s\n`);
/** Per rule (or set): the questions that asked it, how many of them passed on and off, and which changed. */
interface Row {
  rule: string;
  asked: number;
  on: number;
  off: number;
  gain: number;
  seconds: number;
  /** Tokens the questions that asked it generated, on and off (a guard that bounds a runaway earns its place here). */
  tokensOn: number;
  tokensOff: number;
  /** The questions that passed with the rule on and failed off, and the other way round. */
  lost: string[];
  won: string[];
}
const rows: Row[] = [];
const passedOn = [...all.passed].sort();
const summary = () => ({
  category,
  parity,
  stride: Number(values.stride),
  n,
  budget,
  allOn: all.passed.size,
  passedOn,
  rows,
});
/** The JSON so far (partial until the last row). */
function save(partial: boolean) {
  if (values.out) writeFileSync(values.out, `${JSON.stringify({ ...summary(), partial }, null, 2)}\n`);
}
// one ablation per rule, or (--together) one of the whole set
const ablations = values.together ? [rules] : items.map((item) => item.split("+"));
for (const off of ablations) {
  const subset = tasks.filter((t) => off.some((rule) => all.asked.get(t.id)?.has(rule)));
  const on = subset.filter((t) => all.passed.has(t.id)).length;
  const result =
    subset.length === 0
      ? { passed: new Set<string>(), tokens: new Map<string, number>(), ms: 0 }
      : await score(subset, off);
  const sum = (tokens: Map<string, number>) => subset.reduce((total, t) => total + (tokens.get(t.id) ?? 0), 0);
  const row = {
    rule: off.join("+"),
    asked: subset.length,
    on,
    off: result.passed.size,
    gain: (100 * (on - result.passed.size)) / n,
    seconds: Math.round(result.ms / 1000),
    tokensOn: sum(all.tokens),
    tokensOff: sum(result.tokens),
    lost: subset.filter((t) => all.passed.has(t.id) && !result.passed.has(t.id)).map((t) => t.id),
    won: subset.filter((t) => !all.passed.has(t.id) && result.passed.has(t.id)).map((t) => t.id),
  };
  rows.push(row);
  save(true);
  process.stderr.write(
    `${row.rule}: asked in ${row.asked}, ${row.on} -> ${row.off} off (${row.gain.toFixed(1)} points)\n`,
  );
}
const header = `${category} ${parity} (stride ${values.stride}), ${n} questions, budget ${budget}: every rule on ${all.passed.size}/${n} (${((100 * all.passed.size) / n).toFixed(1)}%)`;
console.log(header);
console.log("| rule | asked in | on | off | gain (points) | tokens on | tokens off |");
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const r of rows)
  console.log(
    `| ${r.rule} | ${r.asked} | ${r.on} | ${r.off} | ${r.gain >= 0 ? "+" : ""}${r.gain.toFixed(1)} | ${r.tokensOn} | ${r.tokensOff} |`,
  );
save(false);
await model.dispose();
