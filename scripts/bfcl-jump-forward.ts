/**
 * A grammar lever's correctness on every BFCL function schema, on a real model: for each distinct function in
 * evals/bfcl (all five categories), one greedy generation constrained by its parameters' schema, the lever on and
 * off (`--lever jump-forward`; `--lever candidates`: candidate sampling, with speculation as by default, against
 * llama.cpp's grammar sampler, with jump-forward on both sides; `--lever speculation`: speculation on and off, with
 * candidate sampling and jump-forward on both sides); every reply must parse as JSON and validate against the schema. Prints one line per
 * 100 schemas and a closing JSON summary (valid on / off, identical replies, tokens sampled / forced / generated,
 * full passes over the vocabulary with candidate sampling, wall time).
 *
 *   npx tsx scripts/bfcl-jump-forward.ts --model ~/.cache/gemma-agent/test-models/gemma-3-270m-q4_k_m.gguf [--lever candidates|speculation] [--threads 1] [--limit N] [--stride K [--offset O]]
 *
 * A full walk in pieces: `--stride 3 --offset 0`, `1` and `2` together cover every schema once.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { bfclToJsonSchema } from "../src/eval/bfcl/bfcl-json-schema.js";
import { loadModel } from "../src/model/llama/index.js";
import { benchAccess } from "../src/model/llama/bench-access.js";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    threads: { type: "string" },
    limit: { type: "string" },
    stride: { type: "string", default: "1" },
    offset: { type: "string", default: "0" },
    bfcl: { type: "string", default: join(import.meta.dirname, "../evals/bfcl") },
    "max-tokens": { type: "string", default: "96" },
    lever: { type: "string", default: "jump-forward" },
  },
});
const lever = values.lever;
if (lever !== "jump-forward" && lever !== "candidates" && lever !== "speculation") {
  process.stderr.write(`--lever must be jump-forward, candidates or speculation (got ${lever})\n`);
  process.exit(2);
}
if (!values.model) {
  process.stderr.write("usage: npx tsx scripts/bfcl-jump-forward.ts --model GGUF [--threads N] [--limit N]\n");
  process.exit(2);
}
const CATEGORIES = ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"];
const functions = new Map<string, { name: string; description: string; parameters: unknown }>();
for (const category of CATEGORIES) {
  for (const line of readFileSync(join(values.bfcl, `BFCL_v4_${category}.json`), "utf8").split("\n")) {
    if (line.trim() === "") continue;
    for (const fn of (JSON.parse(line) as { function: { name: string; description: string; parameters: unknown }[] })
      .function)
      functions.set(`${fn.name} ${JSON.stringify(fn.parameters)}`, fn);
  }
}
// --stride K: every K-th schema (a fixed sample spread over the five categories), beginning at --offset O (< K),
// then --limit N: the first N of those
const stride = Math.max(1, Number(values.stride));
const offset = Number(values.offset);
if (!Number.isInteger(offset) || offset < 0 || offset >= stride) {
  process.stderr.write(`--offset must be a whole number below --stride (got ${values.offset})\n`);
  process.exit(2);
}
const all = [...functions.values()]
  .filter((_, i) => i % stride === offset)
  .slice(0, values.limit ? Number(values.limit) : undefined);
const model = await loadModel({
  model: values.model,
  gpu: false,
  contextSize: 4096,
  ...(values.threads && { threads: Number(values.threads) }),
});
const maxTokens = Number(values["max-tokens"]);
const totals = {
  schemas: all.length,
  valid: { on: 0, off: 0 },
  identical: 0,
  tokens: { on: { sampled: 0, forced: 0, generated: 0 }, off: { sampled: 0, forced: 0, generated: 0 } },
  ms: { on: 0, off: 0 },
  /** Samplings that ran llama.cpp's grammar over the whole vocabulary (candidate sampling's fallback, side on). */
  fullPasses: 0,
  invalid: [] as string[],
};
const started = performance.now();
for (const [i, fn] of all.entries()) {
  const schema = bfclToJsonSchema(fn.parameters);
  const validator = z.fromJSONSchema(schema);
  const prompt = model.chatFormat.render([
    { role: "user", content: `Call ${fn.name}: ${fn.description}\nWrite its arguments as one JSON object.` },
  ]);
  const replies: string[] = [];
  for (const on of i % 2 === 0 ? [true, false] : [false, true]) {
    if (lever === "jump-forward") benchAccess(model).setJumpForward(on);
    else if (lever === "speculation") benchAccess(model).setSpeculation(on);
    else benchAccess(model).setCandidateSampling(on);
    const side = on ? "on" : "off";
    const t0 = performance.now();
    const text = await model.generate(prompt, { jsonSchema: schema, maxTokens });
    totals.ms[side] += performance.now() - t0;
    const stats = model.stats;
    totals.tokens[side].sampled += stats.sampledTokens ?? 0;
    totals.tokens[side].forced += stats.forcedTokens ?? 0;
    totals.tokens[side].generated += stats.generatedTokens;
    if (on && lever !== "jump-forward") totals.fullPasses += benchAccess(model).lastReply.fullPasses;
    let ok = false;
    try {
      ok = validator.safeParse(JSON.parse(text)).success;
    } catch {
      ok = false;
    }
    if (ok) totals.valid[side]++;
    else totals.invalid.push(`${fn.name} (${lever} ${side}): ${text.slice(0, 200)}`);
    replies[on ? 0 : 1] = text;
  }
  if (replies[0] === replies[1]) totals.identical++;
  if ((i + 1) % 100 === 0 || i + 1 === all.length)
    process.stderr.write(
      `${i + 1}/${all.length}: valid on ${totals.valid.on}, off ${totals.valid.off}, identical ${totals.identical} (${((performance.now() - started) / 60_000).toFixed(1)} min)\n`,
    );
}
await model.dispose();
console.log(
  JSON.stringify({ model: values.model, lever, stride, offset, maxTokens, threads: model.threads, ...totals }, null, 2),
);
process.exit(totals.invalid.length === 0 ? 0 : 1);
