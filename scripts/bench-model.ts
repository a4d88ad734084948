/**
 * Benchmark of the node-llama-cpp loader on one model, in one process: one JSON document on stdout, progress on stderr.
 *
 *   npm run bench:model                                  # the fixture model (random weights, built on first use)
 *   npm run bench:model -- --model PATH                  # a real GGUF (add --with-fixture for the fixture too)
 *   npm run bench:model -- --model PATH --out docs/results/bench-NAME --note "..."   # also NAME.json and NAME.md
 *   npm run bench:model -- --threads 1 --rounds 2 --tokens 16 --task-max-tokens 48   # a quick trial
 *
 * Every figure is measured over `--rounds` rounds (default 9); in each round every pair runs once, in alternating
 * order, and each sample starts from an empty sequence of the handle's own context (same threads, same batch):
 *   prefill: a fixed ~`--prefill-tokens` prompt, raw `evaluateWithoutGeneratingNewTokens` and through `generate`
 *     (prompt tokens over the time to the first token);
 *   (a) raw LlamaContextSequence.evaluate decode tokens/s (greedy, no grammar, no token bias);
 *   (b) LlamaModelHandle.generate without a grammar, tokens/s, and (b)/(a) per round;
 *   (c) generate with the agent's action grammar, tokens/s, and (c)/(b) and ms-per-token (c)/(b) per round;
 *   an agent run on a real task (calculator + weather skills, "What is 17% of 2,340?"): wall ms and generated tokens
 *     per step, whether each reply parsed;
 *   one call: Agent.step against LlamaChatSession.prompt with the same functions (defineChatSessionFunction):
 *     wall ms, generated tokens, valid / correct calls, and step / session per round.
 * Measured once (token counts, deterministic): the compact vs pretty grammar's tokens of sample actions; (d) an 8-step
 * agent run's evaluated / new prompt tokens (KV reuse; 1.0 is ideal); (e) the same conversation through
 * LlamaChatSession. Medians and spread (min, p25, p75, max) are reported for every figure measured in rounds.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { basename, dirname } from "node:path";
import { buildActionJsonSchema } from "../src/actions/action-json-schema.js";
import { loadModel, type LlamaModelHandle } from "../src/model/llama/index.js";
import { benchRegistry, grammarTokenCounts, kvReuseAgentRun, kvReuseChatSession } from "./lib/bench-kv-reuse.js";
import { kvReuseConversation } from "./lib/bench-conversation.js";
import { commandLine, parseBenchArgs, type BenchOptions } from "./lib/bench-options.js";
import { renderMarkdown, type BenchMeta, type ModelReport } from "./lib/bench-report.js";
import { ratios, round, spread } from "./lib/bench-stats.js";
import {
  agentOneStep,
  agentTaskRun,
  chatSessionOneCall,
  taskAgent,
  TASK_QUESTION,
  type OneCallSample,
  type RunSample,
} from "./lib/bench-task.js";
import { actionFigures, parallelFigures, promptCacheFigures, type SpeedReport } from "./lib/bench-speed.js";
import { handleDecode, handlePrefill, prefillPrompt, rawDecode, rawPrefill } from "./lib/bench-throughput.js";
import { FIXTURE_VERSION } from "./lib/fixture-model.js";
import { FIXTURE_MODEL_PATH, makeFixtureModel } from "./make-fixture-model.js";

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function fixturePath(): string {
  const stamp = `${FIXTURE_MODEL_PATH}.version`;
  let current = false;
  try {
    current = readFileSync(stamp, "utf8") === FIXTURE_VERSION && statSync(FIXTURE_MODEL_PATH).isFile();
  } catch {
    current = false;
  }
  if (!current) {
    log("building the fixture model");
    makeFixtureModel(FIXTURE_MODEL_PATH);
    writeFileSync(stamp, FIXTURE_VERSION);
  }
  return FIXTURE_MODEL_PATH;
}

/** One round's samples of every figure. */
interface RoundSample {
  prefillRaw: number;
  prefillHandle: number;
  a: number;
  b: number;
  bTokens: number;
  c: number;
  cTokens: number;
  step: OneCallSample;
  session: OneCallSample;
  run: RunSample;
}

/** Run `first` and `second` in this order, or the other way round; results in the same order either way. */
async function pair<A, B>(forward: boolean, first: () => Promise<A>, second: () => Promise<B>): Promise<[A, B]> {
  if (forward) {
    const a = await first();
    return [a, await second()];
  }
  const b = await second();
  return [await first(), b];
}

async function oneRound(
  handle: LlamaModelHandle,
  r: number,
  inputs: { prefill: { text: string; tokens: ReturnType<LlamaModelHandle["tokenize"]> }; story: string },
  options: BenchOptions,
): Promise<RoundSample> {
  const forward = r % 2 === 0;
  const storyTokens = handle.tokenize(inputs.story);
  const actionSchema = buildActionJsonSchema(benchRegistry());
  const [prefillRaw, prefillHandle] = await pair(
    forward,
    () => rawPrefill(handle, inputs.prefill.tokens),
    () => handlePrefill(handle, inputs.prefill.text),
  );
  const decode = [
    () => rawDecode(handle, storyTokens, options.tokens),
    () => handleDecode(handle, inputs.story, { maxTokens: options.tokens }),
    () =>
      handleDecode(handle, inputs.story, {
        maxTokens: Math.max(8, Math.floor(options.tokens / 2)),
        jsonSchema: actionSchema,
      }),
  ];
  const results: Array<{ tokensPerSecond: number; generatedTokens: number }> = [];
  for (const k of forward ? [0, 1, 2] : [2, 1, 0]) results[k] = await decode[k]();
  const [a, b, c] = results;
  const agent = taskAgent(handle, options.taskMaxTokens);
  const [step, session] = await pair(
    forward,
    () => agentOneStep(handle, agent),
    () => chatSessionOneCall(handle, options.taskMaxTokens),
  );
  const run = await agentTaskRun(handle, options.taskMaxTokens, options.agentSteps, options.calculatorFirst);
  return {
    prefillRaw,
    prefillHandle,
    a: a.tokensPerSecond,
    b: b.tokensPerSecond,
    bTokens: b.generatedTokens,
    c: c.tokensPerSecond,
    cTokens: c.generatedTokens,
    step,
    session,
    run,
  };
}

const count = (xs: boolean[]) => `${xs.filter(Boolean).length}/${xs.length}`;

function oneCallSide(samples: OneCallSample[]) {
  return {
    wallMs: spread(
      samples.map((s) => s.wallMs),
      1,
    ),
    toCallMs: spread(
      samples.map((s) => s.toCallMs),
      1,
    ),
    tokensToCall: spread(
      samples.map((s) => s.tokensToCall),
      1,
    ),
    generatedTokens: spread(
      samples.map((s) => s.generatedTokens),
      1,
    ),
    evaluatedTokens: spread(
      samples.map((s) => s.evaluatedTokens),
      1,
    ),
    validCalls: count(samples.map((s) => s.valid)),
    correctCalls: count(samples.map((s) => s.correct)),
    ...(samples[0].call && { firstCall: samples[0].call }),
    firstText: samples[0].text,
  };
}

function agentRunSummary(runs: RunSample[], options: BenchOptions) {
  const stepCount = Math.max(...runs.map((x) => x.steps.length));
  const perStep = Array.from({ length: stepCount }, (_, k) => {
    const here = runs.map((x) => x.steps[k]).filter((s) => s !== undefined);
    const first = here[0];
    return {
      step: k + 1,
      wallMs: spread(
        here.map((s) => s.wallMs),
        1,
      ),
      modelMs: spread(
        here.map((s) => s.modelMs),
        1,
      ),
      promptTokens: first.promptTokens,
      evaluatedPromptTokens: first.evaluatedPromptTokens,
      generatedTokens: first.generatedTokens,
      parsed: first.parsed,
      outcome: first.outcome,
      raw: first.raw,
      sameInEveryRound:
        here.length === runs.length &&
        here.every((s) => s.outcome === first.outcome && s.generatedTokens === first.generatedTokens),
    };
  });
  const allSteps = runs.flatMap((x) => x.steps);
  return {
    question: TASK_QUESTION,
    skills: ["calculator", "weather"],
    calculatorFirst: options.calculatorFirst,
    maxIterations: options.agentSteps,
    maxTokens: options.taskMaxTokens,
    stepWallMs: spread(
      runs.map((x) => x.wallMs / Math.max(1, x.steps.length)),
      1,
    ),
    generatedTokensPerStep: spread(
      runs.map((x) => x.steps.reduce((s, y) => s + y.generatedTokens, 0) / Math.max(1, x.steps.length)),
      1,
    ),
    runWallMs: spread(
      runs.map((x) => x.wallMs),
      1,
    ),
    steps: spread(
      runs.map((x) => x.steps.length),
      1,
    ),
    parsedSteps: count(allSteps.map((s) => s.parsed)),
    stopReasons: runs.map((x) => x.stopReason ?? "none"),
    ...(runs[0].answer !== undefined && { answer: runs[0].answer }),
    perStep,
  };
}

async function benchModel(path: string, options: BenchOptions) {
  log(`loading ${path}`);
  const handle = await loadModel({
    model: path,
    gpu: false,
    contextSize: options.contextSize,
    ...(options.threads !== undefined && { threads: options.threads }),
  });
  try {
    const prefill = prefillPrompt(handle, options.prefillTokens);
    const story = handle.chatFormat.render([
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: "Write a long story about a lighthouse keeper." },
    ]);
    log(`warm-up (grammars compiled, chat wrapper resolved); prefill prompt ${prefill.tokens.length} tokens`);
    await handle.generate(story, { maxTokens: 1, jsonSchema: buildActionJsonSchema(benchRegistry()) });
    await agentOneStep(handle, taskAgent(handle, 1));
    const warm = await chatSessionOneCall(handle, 1);
    log(`chat wrapper: ${warm.chatWrapper}`);

    const samples: RoundSample[] = [];
    const started = performance.now();
    for (let r = 0; r < options.rounds; r++) {
      const roundStarted = performance.now();
      samples.push(await oneRound(handle, r, { prefill, story }, options));
      const s = samples[r];
      log(
        `round ${r + 1}/${options.rounds} (${((performance.now() - roundStarted) / 1000).toFixed(1)} s): prefill ${s.prefillRaw.toFixed(0)} tok/s, ` +
          `(a) ${s.a.toFixed(1)} (b) ${s.b.toFixed(1)} (c) ${s.c.toFixed(1)} tok/s, step ${s.step.wallMs.toFixed(0)} ms vs session ${s.session.wallMs.toFixed(0)} ms, ` +
          `run ${s.run.steps.length} steps ${(s.run.wallMs / 1000).toFixed(1)} s`,
      );
    }
    log(`rounds done in ${((performance.now() - started) / 1000).toFixed(1)} s; (d) 8-step agent run for KV reuse`);
    const kvAgent = await kvReuseAgentRun(handle, options.maxTokens);
    log("(e) the same conversation through LlamaChatSession");
    const kvSession = await kvReuseChatSession(handle, kvAgent.records);
    log("(f) a 10-turn conversation (Agent.invoke with a 1,000-token memory budget) for KV reuse across turns");
    const kvConversation = await kvReuseConversation(handle, { turns: 10, tokenBudget: 1_000 });

    const speed = options.skipSpeed ? undefined : await speedFigures(handle, path, options);

    const col = <K extends keyof RoundSample>(key: K) => samples.map((s) => s[key]);
    const steps = col("step");
    const sessions = col("session");
    const msPerToken = (rates: number[]) => rates.map((x) => (x > 0 ? 1000 / x : undefined));
    return {
      model: { path, file: basename(path), sizeBytes: statSync(path).size, ...handle.info },
      backend: handle.backend,
      threads: handle.threads,
      contextSize: options.contextSize,
      rounds: options.rounds,
      settings: {
        rounds: options.rounds,
        tokens: options.tokens,
        constrainedTokens: Math.max(8, Math.floor(options.tokens / 2)),
        prefillTokens: prefill.tokens.length,
        taskMaxTokens: options.taskMaxTokens,
        agentSteps: options.agentSteps,
        taskRun: options.calculatorFirst ? "calculator first" : "free",
        kvMaxTokens: options.maxTokens,
      },
      prefill: {
        promptTokens: prefill.tokens.length,
        rawTokensPerSecond: spread(col("prefillRaw"), 1),
        handleTokensPerSecond: spread(col("prefillHandle"), 1),
        handleOverRaw: spread(ratios(col("prefillHandle"), col("prefillRaw"))),
      },
      a_rawEvaluateTokensPerSecond: spread(col("a"), 1),
      b_generateTokensPerSecond: spread(col("b"), 1),
      b_over_a: spread(ratios(col("b"), col("a"))),
      b_generatedTokens: spread(col("bTokens"), 1),
      c_grammarTokensPerSecond: spread(col("c"), 1),
      c_over_b: spread(ratios(col("c"), col("b"))),
      c_msPerTokenOverB: spread(ratios(msPerToken(col("c")), msPerToken(col("b")))),
      c_generatedTokens: spread(col("cTokens"), 1),
      grammarTokens: grammarTokenCounts(handle),
      agentRun: agentRunSummary(col("run"), options),
      oneCall: {
        question: TASK_QUESTION,
        maxTokens: options.taskMaxTokens,
        chatWrapper: warm.chatWrapper,
        agentStep: oneCallSide(steps),
        chatSession: { ...oneCallSide(sessions), stopReasons: sessions.map((s) => s.stopReason ?? "none") },
        stepOverSessionWall: spread(
          ratios(
            steps.map((s) => s.wallMs),
            sessions.map((s) => s.wallMs),
          ),
        ),
        stepOverSessionToCall: spread(
          ratios(
            steps.map((s) => s.toCallMs),
            sessions.map((s) => s.toCallMs),
          ),
        ),
        stepOverSessionGeneratedTokens: spread(
          ratios(
            steps.map((s) => s.generatedTokens),
            sessions.map((s) => s.generatedTokens),
          ),
        ),
        perRound: steps.map((s, r) => ({ agentStep: s, chatSession: sessions[r] })),
      },
      d_agent: kvAgent.result,
      e_llamaChatSession: kvSession,
      f_conversation: {
        turns: kvConversation.turns,
        tokenBudget: kvConversation.tokenBudget,
        modelCalls: kvConversation.calls.length,
        largestPrompt: kvConversation.largestPrompt,
        trimmedTurns: kvConversation.trimmedTurns,
        reuseAll: kvConversation.reuseAll,
        reuseFirstCalls: kvConversation.reuseFirstCalls,
      },
      perRound: samples.map((s) => ({
        prefillRaw: round(s.prefillRaw, 1),
        prefillHandle: round(s.prefillHandle, 1),
        a: round(s.a, 1),
        b: round(s.b, 1),
        bTokens: s.bTokens,
        c: round(s.c, 1),
        cTokens: s.cTokens,
        runSteps: s.run.steps.map((x) => ({
          wallMs: round(x.wallMs, 1),
          modelMs: round(x.modelMs, 1),
          generatedTokens: x.generatedTokens,
          parsed: x.parsed,
        })),
      })),
      ...(speed && { speed }),
      targets: {
        b_over_a: ">= 0.9",
        d_evaluatedOverNew: "<= 1.1",
        refusalRate: "< 0.02",
        constrainedOverFreePerSampledToken: "<= 1.15",
        sampledOnOverGeneratedOff: "<= 0.5",
        stepOnOverOff: "<= 0.7",
        warmOverColdTimeToFirstToken: "<= 0.3",
        tasksPerMinuteAt4OverAt1: ">= 2",
      },
    };
  } finally {
    await handle.dispose();
  }
}

/** The speed figures: actions with a grammar lever on and off, the prompt cache, parallel sequences. */
async function speedFigures(handle: LlamaModelHandle, path: string, options: BenchOptions): Promise<SpeedReport> {
  log(`speed: agent steps, ${options.actionLever} on and off`);
  const actions = await actionFigures(handle, {
    rounds: options.rounds,
    maxTokens: options.taskMaxTokens,
    lever: options.actionLever,
    withoutJumpForward: options.actionsWithoutJumpForward,
    log,
  });
  if (options.actionsOnly) return { actions };
  log("speed: prompt cache, cold and warm");
  const common = { threads: options.threads ?? handle.threads, log };
  const promptCache = await promptCacheFigures(path, {
    ...common,
    rounds: options.rounds,
    contextSize: options.contextSize,
  });
  log("speed: parallel sequences");
  const parallel = await parallelFigures(path, {
    ...common,
    rounds: options.parallelRounds,
    tasks: options.parallelTasks,
    budget: 2,
  });
  return { actions, promptCache, parallel };
}

function nodeLlamaCppVersion(): string {
  try {
    return JSON.parse(readFileSync(new URL("../node_modules/node-llama-cpp/package.json", import.meta.url), "utf8"))
      .version;
  } catch {
    return "unknown";
  }
}

const { options, modelPath, out, note, withFixture, argv } = parseBenchArgs(process.argv.slice(2));
const meta: BenchMeta = {
  command: commandLine(argv),
  date: new Date().toISOString(),
  node: process.version,
  nodeLlamaCpp: nodeLlamaCppVersion(),
  cpuCores: availableParallelism(),
  cpuModel: cpus()[0]?.model?.trim() ?? "unknown",
  rounds: options.rounds,
  loadAverage: { start: loadavg().map((x) => round(x, 2)) },
  ...(note !== undefined && { note }),
};
const results: Record<string, unknown> = { meta };
if (!modelPath || withFixture) results.fixture = await benchModel(fixturePath(), options);
if (modelPath) results.model = await benchModel(modelPath, options);
meta.loadAverage.end = loadavg().map((x) => round(x, 2));
const json = `${JSON.stringify(results, null, 2)}\n`;
process.stdout.write(json);
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(`${out}.json`, json);
  const reports = [results.fixture, results.model].filter((x) => x !== undefined) as ModelReport[];
  writeFileSync(`${out}.md`, renderMarkdown(meta, reports));
  log(`wrote ${out}.json and ${out}.md`);
}
