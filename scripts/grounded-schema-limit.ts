/**
 * How large a grounded schema a real llama-server takes (issue 41: the cap on a grounded schema's values, in
 * model/grounding/defaults.ts, is set below it). Starts llama.cpp's own llama-server (scripts/build-llama-server.sh)
 * on 127.0.0.1 serving a test model, then sends one agent step's request (our rendered prompt, completion mode,
 * at most 24 tokens) under the action schema of one skill whose string argument is limited to N spans (the spans of
 * every BFCL simple_python question, as groundedSchema takes them), through the JSON Schema path and through our
 * GBNF, for each N in turn, alternated over the rounds. Prints per N and path the median time of a step (min-max),
 * its time over the unconstrained step's, the request's size, and any refusal.
 *
 *   npx tsx scripts/grounded-schema-limit.ts --model $GEMMA_AGENT_TEST_MODEL [--rounds 3] [--sizes 0,256,1024,...]
 *
 * Env: GEMMA_AGENT_LLAMA_SERVER (the binary; default: the cached build). Run it alone: it measures time.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { groundedSchema } from "../src/model/grounding/grounded-schema.js";
import { HttpModelError, openAICompatibleModel } from "../src/model/http/index.js";
import { gemma3ChatFormat } from "../src/prompt/chat-format.js";
import type { JsonSchema } from "../src/json-schema.js";
import { cachedLlamaServer, startLlamaServer } from "./lib/llama-server.js";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    rounds: { type: "string", default: "3" },
    sizes: { type: "string", default: "0,256,1024,4096,16384" },
    threads: { type: "string", default: "2" },
  },
});
if (!values.model) throw new Error("--model PATH.gguf is needed");
const sizes = values.sizes.split(",").map(Number);
const rounds = Number(values.rounds);

const questions = readFileSync("evals/bfcl/BFCL_v4_simple_python.json", "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => (JSON.parse(line) as { question: { content: string }[][] }).question[0][0].content);
const action: JsonSchema = {
  anyOf: [
    {
      type: "object",
      properties: {
        skill_name: { const: "find_city" },
        arguments: {
          type: "object",
          properties: { city: { type: "string", description: "The city." } },
          required: ["city"],
          additionalProperties: false,
        },
      },
      required: ["skill_name", "arguments"],
      additionalProperties: false,
    },
    {
      type: "object",
      properties: { final_answer: { type: "string", minLength: 1 } },
      required: ["final_answer"],
      additionalProperties: false,
    },
  ],
};

/** The action schema with N spans offered (0: the schema as it is). */
function schemaOf(n: number): { schema: JsonSchema; offered: number } {
  if (n === 0) return { schema: action, offered: 0 };
  const grounded = groundedSchema(
    action,
    { mode: "strict", source: questions },
    { maxValues: n, maxBytes: Number.MAX_SAFE_INTEGER },
  )!;
  return { schema: grounded.schema, offered: grounded.strings };
}

const prompt = gemma3ChatFormat.render([
  {
    role: "user",
    content:
      'Reply with JSON: {"skill_name":"find_city","arguments":{"city":...}} or {"final_answer":...}.\n\nFind a hotel in Paris for two nights.',
  },
]);

const binary = process.env.GEMMA_AGENT_LLAMA_SERVER ?? cachedLlamaServer();
const server = await startLlamaServer({ binary, model: values.model, threads: Number(values.threads) });
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
try {
  const paths = ["json-schema", "gbnf"] as const;
  const handles = Object.fromEntries(
    paths.map((path) => [
      path,
      openAICompatibleModel({
        baseURL: server.baseURL,
        model: "gemma-3-270m",
        promptMode: "completion",
        structuredOutput: path,
        timeoutMs: 120_000,
        totalTimeoutMs: 120_000,
        retries: 0,
      }),
    ]),
  );
  const schemas = sizes.map(schemaOf);
  const times = new Map<string, number[]>();
  const notes = new Map<string, string>();
  for (let round = 0; round < rounds; round++)
    for (const [i, n] of sizes.entries())
      for (const path of round % 2 ? [...paths].reverse() : paths) {
        const key = `${n} ${path}`;
        if (notes.has(key)) continue; // refused once: not asked again
        const started = performance.now();
        try {
          await handles[path].generate(prompt, { jsonSchema: schemas[i].schema, maxTokens: 24, temperature: 0 });
          times.set(key, [...(times.get(key) ?? []), performance.now() - started]);
        } catch (error) {
          if (!(error instanceof HttpModelError)) throw error;
          notes.set(key, `${error.code}: ${error.message.slice(0, 120)}`);
        }
      }
  console.log(`llama-server (llama-cpp-python 0.3.36), ${values.model}, ${values.threads} threads, ${rounds} rounds`);
  console.log(
    "| values asked | offered | schema bytes | path | step ms, median (min-max) | x unconstrained | refused |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- |");
  for (const [i, n] of sizes.entries())
    for (const path of paths) {
      const key = `${n} ${path}`;
      const list = times.get(key) ?? [];
      const base = median(times.get(`0 ${path}`) ?? [NaN]);
      const ms = list.length
        ? `${median(list).toFixed(0)} (${Math.min(...list).toFixed(0)}-${Math.max(...list).toFixed(0)})`
        : "-";
      const ratio = list.length ? (median(list) / base).toFixed(2) : "-";
      const bytes = JSON.stringify(schemas[i].schema).length;
      console.log(`| ${n} | ${schemas[i].offered} | ${bytes} | ${path} | ${ms} | ${ratio} | ${notes.get(key) ?? ""} |`);
    }
} finally {
  await server.stop();
}
