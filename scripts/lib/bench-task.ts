/**
 * Real-task figures of the benchmark, on a real skill (the built-in `calculator`, next to a `weather` skill so that
 * the right name has to be chosen) and one question, "What is 17% of 2,340?" (397.8):
 *
 * - an agent run: wall time and generated tokens of each step, and whether each reply parsed as an action;
 * - one call, two ways on the same model and sequence: our `Agent.step` (action grammar) against node-llama-cpp's
 *   `LlamaChatSession.prompt` with the same two functions through `defineChatSessionFunction` (its own function
 *   calling, the model's own chat wrapper, its default system prompt). A valid call names `calculator` with arguments
 *   that pass the skill's zod schema; a correct one's expression evaluates to 397.8.
 *
 * Every sample starts from an empty sequence, greedy (temperature 0).
 */
import { defineChatSessionFunction, LlamaChatSession } from "node-llama-cpp";
import { z } from "zod";
import { Agent, AgentState, type AgentEvent, type Validator } from "../../src/agent/index.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { benchAccess } from "../../src/model/llama/bench-access.js";
import type { ModelHandle } from "../../src/model/model-handle.js";
import { calculatorSkill, evaluateExpression, tidyNumber } from "../../src/skills/builtin/index.js";
import { defineSkill, Registry } from "../../src/skills/index.js";

export const TASK_QUESTION = "What is 17% of 2,340?";
export const TASK_ANSWER = 397.8;

const weatherSkill = defineSkill({
  name: "weather",
  description: "Current weather in a city.",
  parameters: z.object({ city: z.string().min(1) }),
  run: ({ city }) => ({ city, celsius: 21, sky: "clear" }),
});

/** The registry of the task: calculator and weather. */
export function taskRegistry(): Registry {
  return new Registry([calculatorSkill, weatherSkill]);
}

/**
 * Refuses a final answer while no calculator result is on the stream, so that a model that answers at once still
 * makes a multi-step run (its later steps are the incremental ones, evaluated on top of the KV cache).
 */
const calculatorFirstValidator: Validator = {
  name: "bench_calculator_first",
  check: (action, state) =>
    action.type === "final-answer" &&
    !state.stream.toArray().some((e) => e.type === "observation" && e.skillName === "calculator")
      ? { ok: false, feedback: "Use the calculator skill first, then answer with its result." }
      : { ok: true },
};

/** The agent of the task figures, on `model` (the handle itself or a wrapper of it). */
export function taskAgent(model: ModelHandle, maxTokens: number, options: { calculatorFirst?: boolean } = {}): Agent {
  return new Agent({
    model,
    registry: taskRegistry(),
    maxTokens,
    temperature: 0,
    ...(options.calculatorFirst && { validators: [calculatorFirstValidator] }),
  });
}

const clip = (text: string, max = 160) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** Whether a call is the valid one, and whether its expression gives the answer. */
function judgeCall(name: string | undefined, args: unknown): { valid: boolean; correct: boolean } {
  if (name !== "calculator") return { valid: false, correct: false };
  const parsed = calculatorSkill.parameters.safeParse(args);
  if (!parsed.success) return { valid: false, correct: false };
  try {
    return { valid: true, correct: Math.abs(evaluateExpression(parsed.data.expression) - TASK_ANSWER) < 1e-9 };
  } catch {
    return { valid: true, correct: false };
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The agent run: time and tokens per step.

/** One step of an agent run. */
export interface StepSample {
  /** Wall ms of the step: from its model call to the next step's (or the run's end): render, generate, parse, skill. */
  wallMs: number;
  /** Wall ms of the model call alone (prompt evaluation included). */
  modelMs: number;
  promptTokens: number;
  evaluatedPromptTokens: number;
  generatedTokens: number;
  /** The reply parsed as an action (no parse error; a validator's refusal still counts as parsed). */
  parsed: boolean;
  /** What came of the step, in a few words. */
  outcome: string;
  raw: string;
}

/** One agent run. */
export interface RunSample {
  wallMs: number;
  stopReason: string | undefined;
  answer: string | undefined;
  steps: StepSample[];
}

function stepOutcome(events: AgentEvent[]): { parsed: boolean; outcome: string; raw: string } {
  const parts: string[] = [];
  let parsed = true;
  let raw = "";
  for (const e of events) {
    if (e.type === "call-skill") {
      parts.push(`call ${e.skillName} ${JSON.stringify(e.arguments)}`);
      raw ||= e.raw;
    } else if (e.type === "final-answer") {
      parts.push(`answer ${JSON.stringify(clip(e.answer, 80))}`);
      raw = e.raw;
    } else if (e.type === "validation-error") {
      // A parse failure, or a validator's refusal of a well-formed action (the action parsed).
      if (e.validatorName === "action_parse") {
        parsed = false;
        parts.push(`invalid (${e.errorType ?? "parse"})`);
      } else parts.push(`refused by ${e.validatorName}: ${clip(e.raw, 80)}`);
      raw = e.raw;
    } else if (e.type === "observation") parts.push(`→ ${clip(e.result, 40)}`);
    else if (e.type === "tool-error") parts.push(`→ tool error: ${clip(e.message, 60)}`);
    else if (e.type === "model-error") parts.push(`model error: ${clip(e.message, 60)}`);
  }
  return { parsed, outcome: parts.join(" ") || "nothing", raw: clip(raw, 300) };
}

/** An agent run on the task, each model call timed through a wrapper of the handle. */
export async function agentTaskRun(
  handle: LlamaModelHandle,
  maxTokens: number,
  maxIterations: number,
  calculatorFirst: boolean,
): Promise<RunSample> {
  const calls: Array<{
    startedAt: number;
    modelMs: number;
    promptTokens: number;
    evaluatedPromptTokens: number;
    generatedTokens: number;
  }> = [];
  const timing: ModelHandle = {
    chatFormat: handle.chatFormat,
    info: handle.info,
    get stats() {
      return handle.stats;
    },
    async generate(prompt, options) {
      const startedAt = performance.now();
      try {
        return await handle.generate(prompt, options);
      } finally {
        const s = handle.stats;
        calls.push({
          startedAt,
          modelMs: performance.now() - startedAt,
          promptTokens: s.promptTokens,
          evaluatedPromptTokens: s.evaluatedPromptTokens,
          generatedTokens: s.generatedTokens,
        });
      }
    },
  };
  const agent = taskAgent(timing, maxTokens, { calculatorFirst });
  await benchAccess(handle).llamaObjects.sequence.clearHistory();
  const started = performance.now();
  const state = await agent.run(TASK_QUESTION, { maxIterations, maxRetries: maxIterations });
  const ended = performance.now();
  const events = state.stream.toArray().filter((e) => (e.depth ?? 0) === 0);
  const steps = calls.map((c, k): StepSample => ({
    wallMs: (calls[k + 1]?.startedAt ?? ended) - c.startedAt,
    modelMs: c.modelMs,
    promptTokens: c.promptTokens,
    evaluatedPromptTokens: c.evaluatedPromptTokens,
    generatedTokens: c.generatedTokens,
    ...stepOutcome(events.filter((e) => e.step === k + 1)),
  }));
  return { wallMs: ended - started, stopReason: state.stopReason, answer: state.answer, steps };
}

// ---------------------------------------------------------------------------------------------------------------
// One call: Agent.step against LlamaChatSession with functions.

/** One side of the one-call comparison, one round. */
export interface OneCallSample {
  wallMs: number;
  /** Prompt tokens evaluated (ours: the step's prompt; the session: everything it evaluated, results included). */
  evaluatedTokens: number;
  generatedTokens: number;
  /** The first call made, if any. */
  call?: { name: string; arguments: unknown };
  valid: boolean;
  correct: boolean;
  /** The reply: our action JSON, or the session's text response. */
  text: string;
  /** Ms and generated tokens up to the moment the first call was complete (ours: the step, when it was a call). */
  toCallMs?: number;
  tokensToCall?: number;
  calls?: number;
  stopReason?: string;
  /** The session only: node-llama-cpp's chat wrapper for the model. */
  chatWrapper?: string;
}

/** Our side: one `Agent.step` on a fresh state, from an empty sequence. */
export async function agentOneStep(handle: LlamaModelHandle, agent: Agent): Promise<OneCallSample> {
  await benchAccess(handle).llamaObjects.sequence.clearHistory();
  const state = new AgentState(TASK_QUESTION);
  const started = performance.now();
  const reply = await agent.step(state);
  const wallMs = performance.now() - started;
  const stats = handle.stats;
  const call = reply.type === "call-skill" ? { name: reply.skillName, arguments: reply.arguments } : undefined;
  return {
    wallMs,
    evaluatedTokens: stats.evaluatedPromptTokens,
    generatedTokens: stats.generatedTokens,
    ...(call && { call, toCallMs: wallMs, tokensToCall: stats.generatedTokens }),
    ...judgeCall(call?.name, call?.arguments),
    text: clip(reply.raw, 300),
  };
}

/**
 * node-llama-cpp's side: a new LlamaChatSession on the handle's emptied sequence, `prompt(question, { functions,
 * maxTokens, temperature: 0 })`. The handlers record the call and return the skill's result, so the session goes on
 * to answer, as an application would use it. `maxTokens` caps everything the prompt generates: node-llama-cpp passes
 * the remainder to the next turn after a call, and a remainder of 0 would mean no limit, so the benchmark stops the
 * prompt itself (abort signal, stopOnAbortSignal) once the budget is spent: in a handler, or on a text token.
 */
export async function chatSessionOneCall(
  handle: LlamaModelHandle,
  maxTokens: number,
  question = TASK_QUESTION,
): Promise<OneCallSample> {
  const { sequence } = benchAccess(handle).llamaObjects;
  await sequence.clearHistory();
  const session = new LlamaChatSession({ contextSequence: sequence });
  const meter = sequence.tokenMeter;
  const input0 = meter.usedInputTokens;
  const output0 = meter.usedOutputTokens;
  const controller = new AbortController();
  const spent = () => meter.usedOutputTokens - output0;
  const cap = () => {
    if (spent() >= maxTokens && !controller.signal.aborted) controller.abort(new Error("token budget spent"));
  };
  const calls: Array<{ name: string; arguments: unknown; atMs: number; tokens: number }> = [];
  let started = 0;
  const record = (name: string, args: unknown) => {
    calls.push({ name, arguments: args, atMs: performance.now() - started, tokens: spent() });
    cap();
  };
  const functions = {
    calculator: defineChatSessionFunction({
      description: calculatorSkill.description,
      params: {
        type: "object",
        properties: {
          expression: { type: "string", description: 'The expression, e.g. "15/100*80" or "round(2^0.5, 3)"' },
        },
      },
      handler(params) {
        record("calculator", params);
        try {
          return tidyNumber(evaluateExpression(params.expression));
        } catch (error) {
          return `error: ${(error as Error).message}`;
        }
      },
    }),
    weather: defineChatSessionFunction({
      description: weatherSkill.description,
      params: { type: "object", properties: { city: { type: "string" } } },
      handler(params) {
        record("weather", params);
        return { city: params.city, celsius: 21, sky: "clear" };
      },
    }),
  };
  try {
    started = performance.now();
    let responseText = "";
    let stopReason: string;
    try {
      const result = await session.promptWithMeta(question, {
        functions,
        maxTokens,
        temperature: 0,
        signal: controller.signal,
        stopOnAbortSignal: true,
        onToken: cap,
      });
      responseText = result.responseText;
      stopReason = controller.signal.aborted ? "maxTokens (benchmark cap)" : result.stopReason;
    } catch (error) {
      // An abort that lands inside a function call's parameters throws even with stopOnAbortSignal.
      if (!controller.signal.aborted) throw error;
      stopReason = "maxTokens (benchmark cap)";
    }
    const wallMs = performance.now() - started;
    const first = calls[0];
    return {
      wallMs,
      evaluatedTokens: meter.usedInputTokens - input0,
      generatedTokens: spent(),
      ...(first && { call: { name: first.name, arguments: first.arguments } }),
      ...judgeCall(first?.name, first?.arguments),
      text: clip(responseText, 300),
      ...(first && { toCallMs: first.atMs, tokensToCall: first.tokens }),
      calls: calls.length,
      stopReason,
      chatWrapper: session.chatWrapper.wrapperName,
    };
  } finally {
    session.dispose({ disposeSequence: false });
  }
}
