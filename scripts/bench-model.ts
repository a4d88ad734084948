/**
 * Benchmark of the node-llama-cpp loader, printed as one JSON document on stdout (progress on stderr):
 *
 *   npm run bench:model                          # the fixture model (built on first use)
 *   npm run bench:model -- --model PATH          # the fixture, then that model
 *   npm run bench:model -- --threads 1 --tokens 64 --max-tokens 24
 *
 * For each model, in one process, with the same context settings and thread count:
 *   (a) raw LlamaContextSequence.evaluate generation tokens/s (greedy, no grammar, no token bias);
 *   (b) LlamaModelHandle.generate without a grammar, tokens/s, and (b)/(a);
 *   (c) generate with the agent's action grammar, tokens/s, and (c)/(b);
 *   tokens of an action written compactly (our grammar) vs as node-llama-cpp's JSON-schema grammar makes it;
 *   (d) an 8-step Agent run: evaluated prompt tokens / new prompt tokens over the steps (KV-cache reuse; 1.0 is ideal);
 *   (e) the same 8-step conversation through node-llama-cpp's LlamaChatSession: evaluated / new prompt tokens.
 * On random weights (the fixture) the agent never answers usefully; a validator keeps it going for 8 steps.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { LlamaChatSession, type Token } from "node-llama-cpp";
import { z } from "zod";
import { buildActionJsonSchema } from "../src/actions/action-json-schema.js";
import { Agent, type Validator } from "../src/agent/index.js";
import { gbnfLiteral, loadModel, type LlamaModelHandle } from "../src/model/llama/index.js";
import type { GenerateOptions, ModelHandle } from "../src/model/model-handle.js";
import type { ChatFormat, ChatMessage } from "../src/prompt/chat-format.js";
import { defineSkill, Registry } from "../src/skills/index.js";
import { FIXTURE_VERSION } from "./lib/fixture-model.js";
import { FIXTURE_MODEL_PATH, makeFixtureModel } from "./make-fixture-model.js";

interface BenchOptions {
  threads?: number;
  /** Tokens generated per throughput sample. */
  tokens: number;
  /** maxTokens of each agent step (random weights never stop on their own: the grammar wrap-up closes the JSON). */
  maxTokens: number;
  contextSize: number;
  repeats: number;
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

function fixturePath(): string {
  const stamp = `${FIXTURE_MODEL_PATH}.version`;
  if (!existsSync(FIXTURE_MODEL_PATH) || !existsSync(stamp) || readFileSync(stamp, "utf8") !== FIXTURE_VERSION) {
    log("building the fixture model");
    makeFixtureModel(FIXTURE_MODEL_PATH);
    writeFileSync(stamp, FIXTURE_VERSION);
  }
  return FIXTURE_MODEL_PATH;
}

const noop = () => "ok";
function benchRegistry(): Registry {
  return new Registry([
    defineSkill({ name: "weather", description: "Current weather in a city.", parameters: z.object({ city: z.string().min(1), unit: z.enum(["celsius", "fahrenheit"]).optional() }), run: () => ({ city: "Paris", celsius: 21, sky: "clear" }) }),
    defineSkill({ name: "add", description: "Add two numbers.", parameters: z.object({ a: z.number(), b: z.number() }), run: ({ a, b }) => a + b }),
    defineSkill({ name: "search", description: "Search notes.", parameters: z.object({ query: z.string().min(1), limit: z.int().min(1).max(10).optional() }), run: noop }),
  ]);
}

/** (a): generation tokens/s of a bare sequence (prompt evaluated first, then `tokens` greedy tokens timed). */
async function rawEvaluate(handle: LlamaModelHandle, prompt: Token[], options: BenchOptions): Promise<number> {
  const { model } = handle.llamaObjects;
  const context = await model.createContext({ contextSize: options.contextSize, threads: handle.threads, sequences: 1 });
  try {
    const sequence = context.getSequence();
    const rates: number[] = [];
    for (let r = 0; r < options.repeats; r++) {
      await sequence.clearHistory();
      await sequence.evaluateWithoutGeneratingNewTokens(prompt.slice(0, -1));
      let count = 0;
      const started = performance.now();
      for await (const _token of sequence.evaluate(prompt.slice(-1), { temperature: 0 })) {
        if (++count >= options.tokens) break;
      }
      rates.push((count * 1000) / (performance.now() - started));
    }
    return median(rates);
  } finally {
    await context.dispose();
  }
}

/** (b) / (c): generation tokens/s of the handle (its own stats: prompt excluded). */
async function handleRate(handle: LlamaModelHandle, prompt: string, options: BenchOptions, generate: GenerateOptions): Promise<{ tokensPerSecond: number; generatedTokens: number }> {
  const rates: number[] = [];
  let generatedTokens = 0;
  for (let r = 0; r < options.repeats; r++) {
    await handle.llamaObjects.sequence.clearHistory();
    await handle.generate(prompt, { temperature: 0, ...generate });
    rates.push(handle.stats.tokensPerSecond);
    generatedTokens = handle.stats.generatedTokens;
  }
  return { tokensPerSecond: median(rates), generatedTokens };
}

/** Tokens of sample actions written compactly vs as node-llama-cpp's JSON-schema grammar writes them. */
function grammarTokenCounts(handle: LlamaModelHandle) {
  const actions = [
    { thought: "I need the weather in Paris first.", skill_name: "weather", arguments: { city: "Paris", unit: "celsius" } },
    { thought: "Add the two totals.", skill_name: "add", arguments: { a: 1250.5, b: 87 } },
    { thought: "Search my notes for the meeting.", skill_name: "search", arguments: { query: "meeting with Ana", limit: 3 } },
    { thought: "The result answers the question.", final_answer: "It is 21 °C and clear in Paris." },
  ];
  const count = (text: string) => handle.tokenize(text).length;
  // node-llama-cpp's grammar: 4-space (or tab) indentation, a space after ':', then "\n\n\n\n" and more newlines.
  const compact = actions.map((a) => count(JSON.stringify(a)));
  const pretty = actions.map((a) => count(`${JSON.stringify(a, null, 4).replace(/":(?=\S)/g, '": ')}\n\n\n\n`));
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  return { compact, pretty, compactTotal: sum(compact), prettyTotal: sum(pretty), prettyOverCompact: round(sum(pretty) / sum(compact)) };
}

interface StepRecord {
  prompt: string;
  reply: string;
  promptTokens: number;
  evaluatedPromptTokens: number;
  messages: ChatMessage[];
}

/** New prompt tokens of step k: tokens of what was appended after the previous prompt and reply. */
function newTokens(handle: LlamaModelHandle, steps: StepRecord[], k: number): { count: number; appendOnly: boolean } {
  const step = steps[k];
  if (k === 0) return { count: step.promptTokens, appendOnly: true };
  const held = steps[k - 1].prompt + steps[k - 1].reply;
  if (step.prompt.startsWith(held)) return { count: handle.tokenize(step.prompt.slice(held.length)).length, appendOnly: true };
  const a = handle.tokenize(step.prompt);
  const b = handle.tokenize(held);
  let common = 0;
  while (common < a.length && a[common] === b[common]) common++;
  return { count: a.length - common, appendOnly: false };
}

/** (d): an 8-step Agent run through a recording wrapper of the handle. */
async function agentRun(handle: LlamaModelHandle, options: BenchOptions, steps = 8) {
  const records: StepRecord[] = [];
  let lastMessages: ChatMessage[] = [];
  const format = handle.chatFormat;
  const recordingFormat: ChatFormat = { ...format, render: (messages, opts) => ((lastMessages = messages.map((m) => ({ ...m }))), format.render(messages, opts)) };
  const recording: ModelHandle = {
    chatFormat: recordingFormat,
    info: handle.info,
    get stats() {
      return handle.stats;
    },
    async generate(prompt, generateOptions) {
      const reply = await handle.generate(prompt, generateOptions);
      const stats = handle.stats;
      records.push({ prompt, reply, promptTokens: stats.promptTokens, evaluatedPromptTokens: stats.evaluatedPromptTokens, messages: lastMessages });
      return reply;
    },
  };
  // Random weights would answer at once or never; this keeps the conversation going for `steps` model calls.
  const keepGoing: Validator = { name: "bench_keep_going", check: (action) => (action.type === "final-answer" ? { ok: false, feedback: "Use a skill first." } : { ok: true }) };
  const agent = new Agent({ model: recording, registry: benchRegistry(), chatFormat: recordingFormat, maxTokens: options.maxTokens, validators: [keepGoing] });
  await handle.llamaObjects.sequence.clearHistory();
  const started = performance.now();
  const state = await agent.run("What is the weather in Paris, and what is 1250.5 + 87?", { maxIterations: steps, maxRetries: steps });
  const elapsedMs = performance.now() - started;
  const perStep = records.map((r, k) => ({ promptTokens: r.promptTokens, evaluated: r.evaluatedPromptTokens, ...newTokens(handle, records, k) }));
  const evaluated = perStep.reduce((s, x) => s + x.evaluated, 0);
  const fresh = perStep.reduce((s, x) => s + x.count, 0);
  return {
    records,
    result: {
      steps: records.length,
      stopReason: state.stopReason,
      appendOnly: perStep.every((s) => s.appendOnly),
      evaluatedPromptTokens: evaluated,
      newPromptTokens: fresh,
      evaluatedOverNew: round(evaluated / fresh),
      promptTokensAllSteps: perStep.reduce((s, x) => s + x.promptTokens, 0),
      perStep: perStep.map((s) => ({ promptTokens: s.promptTokens, evaluated: s.evaluated, new: s.count })),
      seconds: round(elapsedMs / 1000, 1),
    },
  };
}

/**
 * (e): the same conversation through node-llama-cpp's LlamaChatSession (its own KV reuse). Each step preloads the
 * user turn (prompt tokens evaluated, counted) and then generates the agent's reply, forced by a grammar that allows
 * only that text, so the session's history and tokens evolve as a real chat would.
 */
async function chatSessionRun(handle: LlamaModelHandle, records: StepRecord[], options: BenchOptions) {
  const { model } = handle.llamaObjects;
  const context = await model.createContext({ contextSize: options.contextSize, threads: handle.threads, sequences: 1 });
  try {
    const sequence = context.getSequence();
    const session = new LlamaChatSession({ contextSequence: sequence });
    const system = records[0]?.messages.find((m) => m.role === "system");
    if (system) session.setChatHistory([{ type: "system", text: system.content }]);
    const perStep: Array<{ evaluated: number; new: number }> = [];
    for (let k = 0; k < records.length; k++) {
      const messages = records[k].messages;
      const user = messages[messages.length - 1].content;
      const before = sequence.tokenMeter.usedInputTokens;
      await session.preloadPrompt(user);
      perStep.push({ evaluated: sequence.tokenMeter.usedInputTokens - before, new: newTokens(handle, records, k).count });
      const forced = await model.llama.createGrammar({ grammar: `root ::= ${gbnfLiteral(records[k].reply)}\n` });
      await session.prompt(user, { grammar: forced, maxTokens: 4 * records[k].reply.length + 8 });
    }
    const evaluated = perStep.reduce((s, x) => s + x.evaluated, 0);
    const fresh = perStep.reduce((s, x) => s + x.new, 0);
    return { chatWrapper: session.chatWrapper.wrapperName, evaluatedPromptTokens: evaluated, newPromptTokens: fresh, evaluatedOverNew: round(evaluated / fresh), perStep };
  } finally {
    await context.dispose();
  }
}

async function benchModel(path: string, options: BenchOptions) {
  log(`loading ${path}`);
  const handle = await loadModel({ model: path, gpu: false, contextSize: options.contextSize, ...(options.threads !== undefined && { threads: options.threads }) });
  try {
    const registry = benchRegistry();
    const prompt = handle.chatFormat.render([{ role: "system", content: "You are a helpful assistant." }, { role: "user", content: "Write a long story about a lighthouse keeper." }]);
    log("(a) raw evaluate and (b) generate without grammar, interleaved so that machine load hits both alike");
    const rawRates: number[] = [];
    const freeRates: number[] = [];
    for (let r = 0; r < options.repeats; r++) {
      rawRates.push(await rawEvaluate(handle, handle.tokenize(prompt), { ...options, repeats: 1 }));
      freeRates.push((await handleRate(handle, prompt, { ...options, repeats: 1 }, { maxTokens: options.tokens })).tokensPerSecond);
    }
    const raw = median(rawRates);
    const free = { tokensPerSecond: median(freeRates) };
    log("(c) generate with the action grammar");
    const constrained = await handleRate(handle, prompt, options, { maxTokens: Math.max(8, Math.floor(options.tokens / 2)), jsonSchema: buildActionJsonSchema(registry) });
    log("(d) 8-step agent run");
    const agent = await agentRun(handle, options);
    log("(e) the same conversation through LlamaChatSession");
    const session = await chatSessionRun(handle, agent.records, options);
    return {
      model: { path, ...handle.info },
      backend: handle.backend,
      threads: handle.threads,
      contextSize: options.contextSize,
      a_rawEvaluateTokensPerSecond: round(raw, 1),
      b_generateTokensPerSecond: round(free.tokensPerSecond, 1),
      b_over_a: round(free.tokensPerSecond / raw),
      c_grammarTokensPerSecond: round(constrained.tokensPerSecond, 1),
      c_over_b: round(constrained.tokensPerSecond / free.tokensPerSecond),
      grammarTokens: grammarTokenCounts(handle),
      d_agent: agent.result,
      e_llamaChatSession: session,
      targets: { b_over_a: ">= 0.9", d_evaluatedOverNew: "<= 1.1" },
    };
  } finally {
    await handle.dispose();
  }
}

const options: BenchOptions = {
  ...(argValue("--threads") !== undefined && { threads: Number(argValue("--threads")) }),
  tokens: Number(argValue("--tokens") ?? 64),
  maxTokens: Number(argValue("--max-tokens") ?? 24),
  contextSize: Number(argValue("--context-size") ?? 4096),
  repeats: Number(argValue("--repeats") ?? 3),
};
const results: Record<string, unknown> = { node: process.version, fixture: await benchModel(fixturePath(), options) };
const extra = argValue("--model");
if (extra) results.model = await benchModel(extra, options);
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
