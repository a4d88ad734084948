/**
 * KV-cache reuse figures of the benchmark (token counts: deterministic, measured once per model):
 *   (d) an 8-step Agent run: evaluated prompt tokens / new prompt tokens over the steps (1.0 is ideal);
 *   (e) the same 8-step conversation through node-llama-cpp's LlamaChatSession: evaluated / new prompt tokens.
 * On random weights (the fixture) the agent never answers usefully; a validator keeps it going for 8 steps.
 */
import { LlamaChatSession } from "node-llama-cpp";
import { z } from "zod";
import { Agent, type Validator } from "../../src/agent/index.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { benchAccess } from "../../src/model/llama/bench-access.js";
import { gbnfLiteral } from "../../src/model/gbnf/json-schema-to-gbnf.js";
import type { ModelHandle } from "../../src/model/model-handle.js";
import type { ChatFormat, ChatMessage } from "../../src/prompt/chat-format.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { round } from "./bench-stats.js";

const noop = () => "ok";

/** The three skills of the throughput and KV-reuse figures (their action grammar is what (c) measures). */
export function benchRegistry(): Registry {
  return new Registry([
    defineSkill({
      name: "weather",
      description: "Current weather in a city.",
      parameters: z.object({ city: z.string().min(1), unit: z.enum(["celsius", "fahrenheit"]).optional() }),
      run: () => ({ city: "Paris", celsius: 21, sky: "clear" }),
    }),
    defineSkill({
      name: "add",
      description: "Add two numbers.",
      parameters: z.object({ a: z.number(), b: z.number() }),
      run: ({ a, b }) => a + b,
    }),
    defineSkill({
      name: "search",
      description: "Search notes.",
      parameters: z.object({ query: z.string().min(1), limit: z.int().min(1).max(10).optional() }),
      run: noop,
    }),
  ]);
}

/** Tokens of sample actions written compactly vs as node-llama-cpp's JSON-schema grammar writes them. */
export function grammarTokenCounts(handle: LlamaModelHandle) {
  const actions = [
    {
      thought: "I need the weather in Paris first.",
      skill_name: "weather",
      arguments: { city: "Paris", unit: "celsius" },
    },
    { thought: "Add the two totals.", skill_name: "add", arguments: { a: 1250.5, b: 87 } },
    {
      thought: "Search my notes for the meeting.",
      skill_name: "search",
      arguments: { query: "meeting with Ana", limit: 3 },
    },
    { thought: "The result answers the question.", final_answer: "It is 21 °C and clear in Paris." },
  ];
  const count = (text: string) => handle.tokenize(text).length;
  // node-llama-cpp's grammar: 4-space (or tab) indentation, a space after ':', then "\n\n\n\n" and more newlines.
  const compact = actions.map((a) => count(JSON.stringify(a)));
  const pretty = actions.map((a) => count(`${JSON.stringify(a, null, 4).replace(/":(?=\S)/g, '": ')}\n\n\n\n`));
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  return {
    compact,
    pretty,
    compactTotal: sum(compact),
    prettyTotal: sum(pretty),
    prettyOverCompact: round(sum(pretty) / sum(compact)),
  };
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
  if (step.prompt.startsWith(held))
    return { count: handle.tokenize(step.prompt.slice(held.length)).length, appendOnly: true };
  const a = handle.tokenize(step.prompt);
  const b = handle.tokenize(held);
  let common = 0;
  while (common < a.length && a[common] === b[common]) common++;
  return { count: a.length - common, appendOnly: false };
}

/** (d): an 8-step Agent run through a recording wrapper of the handle. */
export async function kvReuseAgentRun(handle: LlamaModelHandle, maxTokens: number, steps = 8) {
  const records: StepRecord[] = [];
  let lastMessages: ChatMessage[] = [];
  const format = handle.chatFormat;
  const recordingFormat: ChatFormat = {
    ...format,
    render: (messages, opts) => ((lastMessages = messages.map((m) => ({ ...m }))), format.render(messages, opts)),
  };
  const recording: ModelHandle = {
    chatFormat: recordingFormat,
    info: handle.info,
    get stats() {
      return handle.stats;
    },
    async generate(prompt, generateOptions) {
      const reply = await handle.generate(prompt, generateOptions);
      const stats = handle.stats;
      records.push({
        prompt,
        reply,
        promptTokens: stats.promptTokens,
        evaluatedPromptTokens: stats.evaluatedPromptTokens,
        messages: lastMessages,
      });
      return reply;
    },
  };
  // Random weights would answer at once or never; this keeps the conversation going for `steps` model calls.
  const keepGoing: Validator = {
    name: "bench_keep_going",
    check: (action) => (action.type === "final-answer" ? { ok: false, feedback: "Use a skill first." } : { ok: true }),
  };
  const agent = new Agent({
    model: recording,
    registry: benchRegistry(),
    chatFormat: recordingFormat,
    maxTokens,
    temperature: 0,
    validators: [keepGoing],
  });
  await benchAccess(handle).llamaObjects.sequence.clearHistory();
  const started = performance.now();
  const state = await agent.run("What is the weather in Paris, and what is 1250.5 + 87?", {
    maxIterations: steps,
    maxRetries: steps,
  });
  const elapsedMs = performance.now() - started;
  const perStep = records.map((r, k) => ({
    promptTokens: r.promptTokens,
    evaluated: r.evaluatedPromptTokens,
    ...newTokens(handle, records, k),
  }));
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
 * (e): the same conversation through node-llama-cpp's LlamaChatSession (its own KV reuse), on the handle's sequence
 * emptied first. Each step preloads the user turn (prompt tokens evaluated, counted) and then generates the agent's
 * reply, forced by a grammar that allows only that text, so the session's history and tokens evolve as a real chat
 * would.
 */
export async function kvReuseChatSession(handle: LlamaModelHandle, records: StepRecord[]) {
  const { model, sequence } = benchAccess(handle).llamaObjects;
  await sequence.clearHistory();
  const session = new LlamaChatSession({ contextSequence: sequence });
  try {
    const system = records[0]?.messages.find((m) => m.role === "system");
    if (system) session.setChatHistory([{ type: "system", text: system.content }]);
    const perStep: Array<{ evaluated: number; new: number }> = [];
    for (let k = 0; k < records.length; k++) {
      const messages = records[k].messages;
      const user = messages[messages.length - 1].content;
      const before = sequence.tokenMeter.usedInputTokens;
      await session.preloadPrompt(user);
      perStep.push({
        evaluated: sequence.tokenMeter.usedInputTokens - before,
        new: newTokens(handle, records, k).count,
      });
      const forced = await model.llama.createGrammar({ grammar: `root ::= ${gbnfLiteral(records[k].reply)}\n` });
      await session.prompt(user, { grammar: forced, maxTokens: 4 * records[k].reply.length + 8 });
    }
    const evaluated = perStep.reduce((s, x) => s + x.evaluated, 0);
    const fresh = perStep.reduce((s, x) => s + x.new, 0);
    return {
      chatWrapper: session.chatWrapper.wrapperName,
      evaluatedPromptTokens: evaluated,
      newPromptTokens: fresh,
      evaluatedOverNew: round(evaluated / fresh),
      perStep,
    };
  } finally {
    session.dispose({ disposeSequence: false });
    await sequence.clearHistory();
  }
}
