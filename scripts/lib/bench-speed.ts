/**
 * The benchmark's speed-on-real-weights figures (issue 11), each measured in one process, pairs alternated:
 * - actions: one agent step (the new turn's prefill and the action) on fixed prompts, a grammar lever on and off
 *   (candidate sampling against llama.cpp's grammar sampler, jump-forward or speculation on and off): wall ms, sampled / forced /
 *   generated tokens, the grammar's refusals (replayed without the grammar), the passes over the whole vocabulary,
 *   and the constrained ms per sampled token against free text's ms per token on the same prompt;
 * - prompt cache: time to the first token with the system prompt prefilled (cold) and restored (warm), by length;
 * - parallel: runs of evals/basic.json tasks per minute on one model loaded with 1, 2 and 4 sequences.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, AgentState } from "../../src/agent/index.js";
import type { ParsedReply } from "../../src/actions/action.js";
import { loadSuite } from "../../src/eval/suite/load-suite.js";
import { suiteTasks } from "../../src/eval/suite/suite-tasks.js";
import { loadModel, type LlamaModelHandle } from "../../src/model/llama/index.js";
import { benchAccess } from "../../src/model/llama/bench-access.js";
import { sharedOpeningLength } from "../../src/prompt/shared-opening.js";
import { promisePool } from "../../src/promise-pool.js";
import { Registry } from "../../src/skills/registry.js";
import { builtinSkills } from "../../src/skills/builtin/index.js";
import { callReply, ScriptedModel } from "../../src/testing/index.js";
import { benchRegistry } from "./bench-kv-reuse.js";
import { ratios, spread, type Spread } from "./bench-stats.js";
import { countRefusals } from "./grammar-refusals.js";

/** Questions of the action figures, each with the call its first (scripted) step made. */
const ACTION_QUESTIONS: { question: string; skill: string; args: Record<string, unknown> }[] = [
  { question: "What is 17% of 2,340?", skill: "calculator", args: { expression: "0.17*2340" } },
  { question: "What is the weather in Paris?", skill: "weather", args: { city: "Paris" } },
  { question: "What is (3+4)*2^3?", skill: "calculator", args: { expression: "(3+4)*2^3" } },
  { question: "Is it warmer in Rome or in Oslo today?", skill: "weather", args: { city: "Rome" } },
];

/** The lever the action figures turn on and off (the other stays at its default, on). */
export type ActionLever = "candidates" | "jump-forward" | "speculation";

interface ActionSample {
  on: boolean;
  wallMs: number;
  generated: number;
  sampled: number;
  forced: number;
  /** Generation only (the prompt's prefill excluded), ms. */
  generationMs: number;
  /** Samplings that passed over the whole vocabulary (candidate sampling's fallback); undefined without it. */
  fullPasses: number | undefined;
  /** The reply's batches evaluated again with no grammar, no bias and llama.cpp's greedy sampler, ms (see replay). */
  replayMs: number;
}

/** One side (jump-forward on or off) of the action figures, summed over the questions per round. */
export interface ActionSide {
  stepWallMs?: Spread;
  generatedPerAction: number;
  sampledPerAction: number;
  forcedPerAction: number;
  msPerSampledToken?: Spread;
  refused: number;
  /** Refusals about form (whitespace, fences, spacing), and their rate over the samplings. */
  formRefused: number;
  formRefusalRate: number;
  sampledInReplay: number;
  refusalRate: number;
  refusalExamples: string[];
  /**
   * Samplings that ran a grammar pass over the whole vocabulary, of all samplings: with candidate sampling, its
   * fallbacks (every round); under llama.cpp's grammar sampler, its refusals (the replay, first round).
   */
  fullPasses: number;
  fullPassSamplings: number;
  fullPassRate: number;
}

export interface ActionFigures {
  lever: ActionLever;
  /** Jump-forward off on both sides (candidates lever only). */
  withoutJumpForward?: boolean;
  questions: string[];
  maxTokens: number;
  on: ActionSide;
  off: ActionSide;
  /** Per round: step wall time with the lever over without (the same prompts). */
  stepOnOverOff?: Spread;
  /** Per round: sampled tokens per action with the lever on over generated tokens with it off. */
  sampledOnOverGeneratedOff?: Spread;
  /** Free text on the same prompts: ms per token. */
  freeMsPerToken?: Spread;
  /** Per round: constrained ms per sampled token (jump-forward on / off) over free ms per token. */
  constrainedOverFreeOn?: Spread;
  constrainedOverFreeOff?: Spread;
  /**
   * Per round: the replies' generation time over the same tokens in the same batches evaluated as free text (see
   * replay): what the grammar and its sampling cost, whatever jump-forward put in a batch.
   */
  constrainedOverReplayOn?: Spread;
  constrainedOverReplayOff?: Spread;
  /**
   * Per round: the replay's ms per sampled token over free text's ms per token: the per-sampled-token figure a
   * sampler that cost nothing would get with these batches (the forced tokens' share of them), its floor.
   */
  replayOverFreeOn?: Spread;
  replayOverFreeOff?: Spread;
  /** Actions identical with the lever on and off (greedy), of all compared. */
  sameAction: string;
}

/**
 * The last reply's batches (see TokenRun.batches) evaluated again on a sequence that holds the prompt up to them,
 * with no grammar, no bias and llama.cpp's greedy sampler (an argmax over the vocabulary, as free text samples): the
 * same tokens in the same batch shapes, so that what the constrained reply took beyond this is its sampling's cost.
 * Returns the replay's ms (0 when the reply evaluated nothing).
 */
async function replay(handle: LlamaModelHandle): Promise<number> {
  const { promptTokens, batches, samples } = benchAccess(handle).lastReply;
  const { sequence } = benchAccess(handle).llamaObjects;
  if (batches.length === 0) return 0;
  // the first batch is the prompt's tail and the forced opening (the tokens before the first sampled one)
  const tail = batches[0].length - (samples[0]?.[0] ?? 0);
  await sequence.clearHistory();
  await sequence.evaluateWithoutGeneratingNewTokens(promptTokens.slice(0, promptTokens.length - tail));
  const started = performance.now();
  const iterator = sequence.evaluate(batches[0], { temperature: 0, yieldEogToken: true });
  try {
    await iterator.next();
    for (const batch of batches.slice(1)) await iterator.next(batch);
  } finally {
    await iterator.return();
  }
  return performance.now() - started;
}

function sampleOf(
  handle: LlamaModelHandle,
  on: boolean,
  candidates: boolean,
  wallMs: number,
): Omit<ActionSample, "replayMs"> {
  const stats = handle.stats;
  return {
    on,
    wallMs,
    generated: stats.generatedTokens,
    sampled: stats.sampledTokens ?? stats.generatedTokens,
    forced: stats.forcedTokens ?? 0,
    generationMs: stats.tokensPerSecond > 0 ? (stats.generatedTokens * 1000) / stats.tokensPerSecond : 0,
    fullPasses: candidates ? benchAccess(handle).lastReply.fullPasses : undefined,
  };
}

/** The state after a first step that made `call` and got its result (scripted: the same for every measurement). */
async function afterFirstCall(registry: Registry, q: (typeof ACTION_QUESTIONS)[number]): Promise<AgentState> {
  const scripted = new ScriptedModel([callReply(q.skill, q.args)]);
  return new Agent({ model: scripted, registry }).run(q.question, { maxIterations: 1 });
}

function describeReply(reply: ParsedReply): string {
  return JSON.stringify(reply, (key, value) => (key === "at" || key === "raw" ? undefined : value));
}

/**
 * Agent steps on fixed prompts (a question, a scripted call and its result: the second step of a run), `lever` on
 * and off alternated (candidate sampling: on against llama.cpp's grammar sampler, jump-forward on for both;
 * jump-forward: on and off, candidate sampling on for both; speculation: on and off, both on for both); before each, the sequence holds the first step's prompt, so the step evaluates the new turn
 * and writes the action, as in a run. Free text on the same prompts gives the per-token baseline.
 */
export async function actionFigures(
  handle: LlamaModelHandle,
  options: {
    rounds: number;
    maxTokens: number;
    lever: ActionLever;
    /** With the candidates lever: jump-forward off on both sides (the sampling path alone, no forced batches). */
    withoutJumpForward?: boolean;
    log: (m: string) => void;
  },
): Promise<ActionFigures> {
  const registry = benchRegistry();
  const agent = new Agent({ model: handle, registry, maxTokens: options.maxTokens });
  const states = await Promise.all(ACTION_QUESTIONS.map((q) => afterFirstCall(registry, q)));
  const firstPrompts = ACTION_QUESTIONS.map((q) => agent.renderPrompt(new AgentState(q.question)));
  const { sequence, model } = benchAccess(handle).llamaObjects;
  const access = benchAccess(handle);
  const setLever = (on: boolean) => {
    const { lever } = options;
    access.setJumpForward(lever === "candidates" ? !options.withoutJumpForward : lever === "speculation" || on);
    access.setCandidateSampling(lever !== "candidates" || on);
    access.setSpeculation(lever === "speculation" && on);
  };
  const step = async (k: number, on: boolean) => {
    setLever(on);
    await sequence.clearHistory();
    await handle.generate(firstPrompts[k], { maxTokens: 1 });
    const started = performance.now();
    const reply = await agent.step(states[k]);
    const candidates = options.lever !== "candidates" || on;
    const sample = sampleOf(handle, on, candidates, performance.now() - started);
    return { sample: { ...sample, replayMs: await replay(handle) }, reply };
  };
  const rounds: { on: ActionSample[]; off: ActionSample[]; free: number[] }[] = [];
  const refusals = {
    on: { refused: 0, form: 0, sampled: 0, examples: [] as string[] },
    off: { refused: 0, form: 0, sampled: 0, examples: [] as string[] },
  };
  let same = 0;
  for (let r = 0; r < options.rounds; r++) {
    const round = { on: [] as ActionSample[], off: [] as ActionSample[], free: [] as number[] };
    for (const k of ACTION_QUESTIONS.keys()) {
      const order = (r + k) % 2 === 0 ? [true, false] : [false, true];
      const replies: Record<string, string> = {};
      for (const on of order) {
        const { sample, reply } = await step(k, on);
        round[on ? "on" : "off"].push(sample);
        replies[String(on)] = describeReply(reply);
        if (r === 0) {
          const count = await countRefusals(model, sequence, benchAccess(handle).lastReply);
          const side = refusals[on ? "on" : "off"];
          side.refused += count.refused;
          side.form += count.formRefused;
          side.sampled += count.sampled;
          side.examples.push(...count.examples.map((e) => `${JSON.stringify(e.wanted)}→${JSON.stringify(e.got)}`));
        }
      }
      if (r === 0 && replies.true === replies.false) same++;
      // free text on the step's prompt, as many tokens as the jump-forward action sampled
      await sequence.clearHistory();
      await handle.generate(firstPrompts[k], { maxTokens: 1 });
      const tokens = Math.max(8, round.on.at(-1)!.sampled);
      await handle.generate(agent.renderPrompt(states[k]), { maxTokens: tokens });
      const free = handle.stats;
      round.free.push(free.tokensPerSecond > 0 ? 1000 / free.tokensPerSecond : Number.NaN);
    }
    rounds.push(round);
    options.log(`actions round ${r + 1}/${options.rounds}`);
  }
  setLever(true);
  access.setJumpForward(true);
  access.setSpeculation(false);
  const sum = (xs: ActionSample[], key: keyof ActionSample) => xs.reduce((a, x) => a + Number(x[key]), 0);
  const perStep = (side: "on" | "off") => rounds.map((x) => sum(x[side], "wallMs") / x[side].length);
  const msPerSampled = (side: "on" | "off") =>
    rounds.map((x) => sum(x[side], "generationMs") / sum(x[side], "sampled"));
  const freeMs = rounds.map((x) => x.free.reduce((a, b) => a + b, 0) / x.free.length);
  const overReplay = (side: "on" | "off") =>
    ratios(
      rounds.map((x) => sum(x[side], "generationMs")),
      rounds.map((x) => sum(x[side], "replayMs")),
    );
  const replayPerSampled = (side: "on" | "off") =>
    rounds.map((x) => sum(x[side], "replayMs") / sum(x[side], "sampled"));
  const side = (name: "on" | "off"): ActionSide => {
    const all = rounds.flatMap((x) => x[name]);
    const counted = all[0]?.fullPasses !== undefined;
    const fullPasses = counted ? sum(all, "fullPasses") : refusals[name].refused;
    const fullPassSamplings = counted ? sum(all, "sampled") : refusals[name].sampled;
    return {
      fullPasses,
      fullPassSamplings,
      fullPassRate: fullPassSamplings > 0 ? fullPasses / fullPassSamplings : 0,
      stepWallMs: spread(perStep(name), 1),
      generatedPerAction: sum(all, "generated") / all.length,
      sampledPerAction: sum(all, "sampled") / all.length,
      forcedPerAction: sum(all, "forced") / all.length,
      msPerSampledToken: spread(msPerSampled(name), 2),
      refused: refusals[name].refused,
      formRefused: refusals[name].form,
      formRefusalRate: refusals[name].sampled > 0 ? refusals[name].form / refusals[name].sampled : 0,
      sampledInReplay: refusals[name].sampled,
      refusalRate: refusals[name].sampled > 0 ? refusals[name].refused / refusals[name].sampled : 0,
      refusalExamples: refusals[name].examples.slice(0, 12),
    };
  };
  return {
    lever: options.lever,
    ...(options.withoutJumpForward && { withoutJumpForward: true }),
    questions: ACTION_QUESTIONS.map((q) => q.question),
    maxTokens: options.maxTokens,
    on: side("on"),
    off: side("off"),
    stepOnOverOff: spread(ratios(perStep("on"), perStep("off"))),
    sampledOnOverGeneratedOff: spread(
      ratios(
        rounds.map((x) => sum(x.on, "sampled")),
        rounds.map((x) => sum(x.off, "generated")),
      ),
    ),
    freeMsPerToken: spread(freeMs, 2),
    constrainedOverFreeOn: spread(ratios(msPerSampled("on"), freeMs)),
    constrainedOverFreeOff: spread(ratios(msPerSampled("off"), freeMs)),
    constrainedOverReplayOn: spread(overReplay("on")),
    constrainedOverReplayOff: spread(overReplay("off")),
    replayOverFreeOn: spread(ratios(replayPerSampled("on"), freeMs)),
    replayOverFreeOff: spread(ratios(replayPerSampled("off"), freeMs)),
    sameAction: `${same}/${ACTION_QUESTIONS.length}`,
  };
}

/** Time to the first token with the shared opening prefilled (cold) and restored from the prompt cache (warm). */
export interface PromptCacheFigures {
  /** With every built-in skill (calculator, datetime, convert_units, list_files, read_file). */
  full: { openingTokens: number; stateBytes: number; coldMs?: Spread; warmMs?: Spread; warmOverCold?: Spread };
  /** By the opening's length (the system prompt padded): prefill (cold) against restore (warm). */
  byLength: { openingTokens: number; stateBytes: number; coldMs?: Spread; warmMs?: Spread }[];
}

export async function promptCacheFigures(
  path: string,
  options: { rounds: number; threads?: number; contextSize: number; log: (m: string) => void },
): Promise<PromptCacheFigures> {
  const dir = mkdtempSync(join(tmpdir(), "bench-prompt-cache-"));
  const handle = await loadModel({
    model: path,
    gpu: false,
    contextSize: options.contextSize,
    promptCache: { dir },
    ...(options.threads !== undefined && { threads: options.threads }),
  });
  try {
    const registry = new Registry();
    for (const skill of builtinSkills({ allowDir: tmpdir() })) registry.register(skill);
    const measure = async (soul: string | undefined) => {
      const agent = new Agent({ model: handle, registry, ...(soul !== undefined && { soul }) });
      const prompt = agent.renderPrompt(new AgentState("What is 17% of 2,340?"));
      const sharedPrefix = sharedOpeningLength(handle.chatFormat, agent.systemPrompt);
      const ttft = async () => {
        await benchAccess(handle).llamaObjects.sequence.clearHistory();
        await handle.generate(prompt, { maxTokens: 1, sharedPrefix });
        return handle.stats;
      };
      const cold: number[] = [];
      const warm: number[] = [];
      let openingTokens = 0;
      for (let r = 0; r < options.rounds; r++) {
        for (const which of r % 2 === 0 ? ["cold", "warm"] : ["warm", "cold"]) {
          if (which === "cold")
            for (const name of readdirSync(dir)) rmSync(join(dir, name), { force: true, recursive: true });
          const stats = await ttft();
          if (which === "warm") openingTokens = stats.restoredPromptTokens ?? 0;
          (which === "cold" ? cold : warm).push(stats.timeToFirstTokenMs);
        }
      }
      const state = readdirSync(dir).find((name) => name.endsWith(".state"));
      const stateBytes = state ? statSync(join(dir, state)).size : 0;
      return {
        openingTokens,
        stateBytes,
        coldMs: spread(cold, 1),
        warmMs: spread(warm, 1),
        warmOverCold: spread(ratios(warm, cold)),
      };
    };
    const full = await measure(undefined);
    options.log(`prompt cache: full skill set, opening ${full.openingTokens} tokens`);
    const byLength = [];
    for (const repeat of [0, 8, 24, 56]) {
      const soul = `You are a careful assistant.\n${"Check every figure twice before you answer, and say which skill gave it. ".repeat(repeat)}`;
      const { openingTokens, stateBytes, coldMs, warmMs } = await measure(soul);
      byLength.push({ openingTokens, stateBytes, coldMs, warmMs });
      options.log(`prompt cache: opening ${openingTokens} tokens`);
    }
    return { full, byLength };
  } finally {
    await handle.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs of the same tasks on one model loaded with N sequences, N runs at a time. */
export interface ParallelFigures {
  tasks: number;
  budget: number;
  byParallel: {
    parallel: number;
    tasksPerMinute?: Spread;
    rssMb: number;
    /** Runs whose answer and calls equal the run at N = 1 (greedy). */
    sameAsSequential: string;
  }[];
  /** Per round: tasks per minute at N over N = 1. */
  speedup: { parallel: number; overSequential?: Spread }[];
}

export async function parallelFigures(
  path: string,
  options: { rounds: number; threads?: number; tasks: number; budget: number; log: (m: string) => void },
): Promise<ParallelFigures> {
  const suitePath = join(import.meta.dirname, "../../evals/basic.json");
  const tasks = suiteTasks(loadSuite(suitePath)).slice(0, options.tasks);
  const levels = [1, 2, 4];
  const rates = new Map<number, number[]>(levels.map((n) => [n, []]));
  const outcomes = new Map<number, string[]>();
  const rss = new Map<number, number>();
  for (let r = 0; r < options.rounds; r++) {
    for (const n of r % 2 === 0 ? levels : [...levels].reverse()) {
      const handle = await loadModel({
        model: path,
        gpu: false,
        contextSize: 4096,
        sequences: n,
        ...(options.threads !== undefined && { threads: options.threads }),
      });
      try {
        rss.set(n, Math.max(rss.get(n) ?? 0, process.memoryUsage().rss / 2 ** 20));
        const started = performance.now();
        const results = await promisePool(tasks, n, async (task) => {
          const state = await new Agent({ model: handle, registry: task.registry }).run(task.query, {
            maxIterations: options.budget,
          });
          const calls = state.stream.ofType("call-skill").map((e) => [e.skillName, e.arguments]);
          return JSON.stringify({ answer: state.answer, stop: state.stopReason, calls });
        });
        rates.get(n)!.push((tasks.length * 60_000) / (performance.now() - started));
        if (r === 0)
          outcomes.set(
            n,
            results.map((x) => x ?? ""),
          );
      } finally {
        await handle.dispose();
      }
      options.log(`parallel ${n}: round ${r + 1}/${options.rounds}`);
    }
  }
  const sequential = outcomes.get(1)!;
  return {
    tasks: tasks.length,
    budget: options.budget,
    byParallel: levels.map((n) => ({
      parallel: n,
      tasksPerMinute: spread(rates.get(n)!, 2),
      rssMb: Math.round(rss.get(n)!),
      sameAsSequential: `${outcomes.get(n)!.filter((x, i) => x === sequential[i]).length}/${sequential.length}`,
    })),
    speedup: levels
      .slice(1)
      .map((n) => ({ parallel: n, overSequential: spread(ratios(rates.get(n)!, rates.get(1)!)) })),
  };
}

/** Issue 11's figures in the benchmark's JSON document (`speed`). */
export interface SpeedReport {
  actions: ActionFigures;
  /** Absent with `--actions-only`. */
  promptCache?: PromptCacheFigures;
  parallel?: ParallelFigures;
}
