/**
 * The first call of BFCL simple_python questions under each grounding mode (issue 26): one step per question (budget
 * 1), its call scored by BFCL's AST rule, on one real GGUF loaded once. For choosing the grounding strengths on the
 * even-numbered questions (`--parity even`) and reporting the odd ones apart; the bias never sees the answers (only
 * the scoring here reads them).
 *
 *   npx tsx scripts/grounding-first-call.ts --model <gguf> [--parity even|odd|all] [--stride K] [--limit N]
 *     [--modes off,soft,strict] [--threads 1] [--verbose]
 */
import { parseArgs } from "node:util";
import { Agent } from "../src/agent/agent.js";
import type { SkillCall } from "../src/actions/action.js";
import { BUNDLED_BFCL_DIR, loadBfclCategory } from "../src/eval/bfcl/bfcl-files.js";
import { bfclTasks } from "../src/eval/bfcl/bfcl-tasks.js";
import { checkBfclCalls } from "../src/eval/bfcl/check-bfcl-calls.js";
import type { GroundingMode } from "../src/model/model-handle.js";
import { loadModel } from "../src/model/llama/index.js";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    parity: { type: "string", default: "even" },
    stride: { type: "string", default: "1" },
    limit: { type: "string", default: "400" },
    modes: { type: "string", default: "off,soft,strict" },
    threads: { type: "string", default: "1" },
    verbose: { type: "boolean", default: false },
  },
});
if (!values.model) throw new Error("--model <gguf> is required");
const modes = values.modes.split(",") as GroundingMode[];
const category = loadBfclCategory(BUNDLED_BFCL_DIR, "simple_python");
const { tasks } = bfclTasks(category);
const number = (id: string) => Number(id.split("_").at(-1));
const chosen = tasks
  .filter((t) => values.parity === "all" || number(t.id) % 2 === (values.parity === "even" ? 0 : 1))
  .filter((_, i) => i % Number(values.stride) === 0)
  .slice(0, Number(values.limit));

const model = await loadModel({ model: values.model, gpu: false, contextSize: 4096, threads: Number(values.threads) });
const totals = new Map(modes.map((m) => [m, { valid: 0, runaway: 0, long: 0, noCall: 0, ms: 0 }]));
for (const task of chosen) {
  const question = category.questions.find((q) => q.id === task.id)!;
  const line: string[] = [task.id];
  for (const mode of modes) {
    const started = performance.now();
    const state = await new Agent({ model, registry: task.registry, grounding: mode }).run(task.query, {
      maxIterations: 1,
    });
    const total = totals.get(mode)!;
    total.ms += performance.now() - started;
    const calls: SkillCall[] = state.stream
      .ofType("call-skill")
      .map((e) => ({ skillName: e.skillName, arguments: e.arguments }));
    const verdict = checkBfclCalls("simple", question.functions, calls, category.answers?.get(task.id));
    const args = JSON.stringify(calls[0]?.arguments ?? null);
    if (verdict.valid) total.valid++;
    if (calls.length === 0) total.noCall++;
    if (/\d{10,}/.test(args)) total.runaway++;
    if (Object.values(calls[0]?.arguments ?? {}).some((v) => typeof v === "string" && v.length > 60)) total.long++;
    line.push(`${mode}:${verdict.valid ? "ok" : "x"} ${args.slice(0, 100)}`);
  }
  if (values.verbose) console.log(line.join("\n  "));
}
console.log(
  `${chosen.length} questions (${values.parity}, stride ${values.stride}), ${values.model.split("/").at(-1)}`,
);
for (const [mode, t] of totals)
  console.log(
    `${mode.padEnd(7)} valid ${t.valid}/${chosen.length}  runaway numbers ${t.runaway}  strings>60 ${t.long}  no call ${t.noCall}  ${(t.ms / chosen.length).toFixed(0)} ms/question`,
  );
await model.dispose();
