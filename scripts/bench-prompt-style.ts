/**
 * Issue 19 §5: the first prompt of a run in the full and the compact system-prompt style, on a real model: its tokens
 * and the time to the first generated token (prompt evaluation from an empty cache), alternating the two styles
 * round by round (order swapped every round), median and spread, and the per-round ratio compact / full.
 *
 *   npx tsx scripts/bench-prompt-style.ts --model <gguf> [--rounds 5] [--threads 1] [--out docs/results/prompt-style-<name>.json]
 *
 * The skills are the three built-in ones every `ask` has (calculator, datetime, convert_units).
 */
import { writeFileSync } from "node:fs";
import { arch, cpus, platform } from "node:os";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { Agent } from "../src/agent/agent.js";
import { AgentState } from "../src/agent/agent-state.js";
import { loadModel } from "../src/model/llama/index.js";
import { benchAccess } from "../src/model/llama/bench-access.js";
import { calculatorSkill, convertUnitsSkill, datetimeSkill } from "../src/skills/builtin/index.js";
import { Registry } from "../src/skills/registry.js";
import type { PromptStyle } from "../src/prompt/system-prompt.js";
import { ratios, spread } from "./lib/bench-stats.js";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    rounds: { type: "string", default: "5" },
    threads: { type: "string" },
    out: { type: "string" },
  },
});
if (!values.model) {
  process.stderr.write("bench-prompt-style: --model <gguf> is needed\n");
  process.exit(2);
}
const rounds = Number(values.rounds);
const model = await loadModel({
  model: values.model,
  gpu: false,
  contextSize: 4096,
  ...(values.threads && { threads: Number(values.threads) }),
});
const registry = new Registry([calculatorSkill, datetimeSkill, convertUnitsSkill]);
const query = "What is 17% of 2,340?";
const styles: PromptStyle[] = ["full", "compact"];
const measured: Record<PromptStyle, { tokens: number[]; ttftMs: number[] }> = {
  full: { tokens: [], ttftMs: [] },
  compact: { tokens: [], ttftMs: [] },
};
for (let round = 0; round < rounds; round++) {
  for (const style of round % 2 === 0 ? styles : [...styles].reverse()) {
    const agent = new Agent({ model, registry, promptStyle: style });
    const prompt = agent.renderPrompt(new AgentState(query));
    await benchAccess(model).llamaObjects.sequence.clearHistory(); // an empty cache: the whole prompt is evaluated, as on a run's first step
    await model.generate(prompt, { maxTokens: 1, jsonSchema: agent.actionJsonSchema, temperature: 0 });
    const stats = model.stats;
    measured[style].tokens.push(stats.promptTokens);
    measured[style].ttftMs.push(stats.timeToFirstTokenMs);
    process.stderr.write(
      `round ${round + 1} ${style}: ${stats.promptTokens} tokens (${stats.evaluatedPromptTokens} evaluated), first token after ${stats.timeToFirstTokenMs.toFixed(0)} ms\n`,
    );
  }
}
const result = {
  command: `npx tsx scripts/bench-prompt-style.ts --model <test-models>/${basename(values.model)} --rounds ${rounds}${values.threads ? ` --threads ${values.threads}` : ""}`,
  model: basename(values.model),
  machine: `${platform()} ${arch()}, ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), threads ${model.threads}`,
  date: new Date().toISOString().slice(0, 10),
  query,
  full: { promptTokens: measured.full.tokens[0], timeToFirstTokenMs: spread(measured.full.ttftMs, 0) },
  compact: { promptTokens: measured.compact.tokens[0], timeToFirstTokenMs: spread(measured.compact.ttftMs, 0) },
  compactOverFull: {
    promptTokens: measured.compact.tokens[0] / measured.full.tokens[0],
    timeToFirstToken: spread(ratios(measured.compact.ttftMs, measured.full.ttftMs), 2),
  },
};
await model.dispose();
const text = `${JSON.stringify(result, null, 2)}\n`;
if (values.out) writeFileSync(values.out, text);
process.stdout.write(text);
