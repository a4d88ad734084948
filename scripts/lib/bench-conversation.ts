/**
 * KV-cache reuse across the turns of a conversation (issue 14): `Agent.invoke` with a memory token budget, a fixed
 * set of turns, the model's stats read after each model call. Token counts only: deterministic at temperature 0, so
 * measured once per model. Used by the benchmark (bench-model's (f)) and by test/model/agents-real.test.ts.
 */
import { Agent } from "../../src/agent/index.js";
import { Conversation } from "../../src/memory/index.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { calculatorSkill } from "../../src/skills/builtin/calculator.js";
import { Registry } from "../../src/skills/index.js";
import { round } from "./bench-stats.js";

/** One model call of the conversation. */
export interface ConversationCall {
  turn: number;
  promptTokens: number;
  reusedPromptTokens: number;
  evaluatedPromptTokens: number;
  /** A context-trimmed event came before this call (the prompt was rebuilt: the KV cache cannot hold it all). */
  trimmed: boolean;
}

/** What the conversation cost and how much of its prompts the KV cache held. */
export interface ConversationReuse {
  turns: number;
  tokenBudget: number;
  calls: ConversationCall[];
  largestPrompt: number;
  /** Turns whose fitting trimmed the history (old skill results or old turns left out). */
  trimmedTurns: number;
  /** Reused / prompt tokens over every call. */
  reuseAll: number;
  /** Reused / prompt tokens over the first call of turns 2 and on (the appended turn). */
  reuseFirstCalls: number;
  /** First calls of turns 2 and on with no trim before them. */
  appendedFirstCalls: number;
  /** Each turn's stop reason and largest prompt (invoke's `tokens.prompt`). */
  results: { turn: number; stopReason: string; prompt: number; estimated: boolean }[];
}

/**
 * Talk `turns` turns with an agent that has the calculator and a memory of `tokenBudget` tokens (each turn asks for
 * a product), reading the model's stats after every model call.
 */
export async function kvReuseConversation(
  handle: LlamaModelHandle,
  options: { turns?: number; tokenBudget?: number; maxTokens?: number } = {},
): Promise<ConversationReuse> {
  const turns = options.turns ?? 10;
  const tokenBudget = options.tokenBudget ?? 1_000;
  const agent = new Agent({
    model: handle,
    registry: new Registry([calculatorSkill]),
    name: "memo",
    maxTokens: options.maxTokens ?? 48,
    maxIterations: 2,
    memory: { tokenBudget },
  });
  const conversation = new Conversation();
  const calls: ConversationCall[] = [];
  const results: ConversationReuse["results"] = [];
  let trimmedTurns = 0;
  for (let turn = 1; turn <= turns; turn++) {
    let trimmed = false;
    const result = await agent.invoke(`Turn ${turn}: what is ${turn} times 7?`, {
      conversation,
      onEvent: (event) => {
        if (event.type === "context-trimmed") trimmed = true;
        if (event.type !== "call-skill" && event.type !== "final-answer" && event.type !== "validation-error") return;
        const s = handle.stats;
        calls.push({ turn, ...pick(s), trimmed });
        trimmed = false;
      },
    });
    results.push({
      turn,
      stopReason: result.stopReason,
      prompt: result.tokens.prompt,
      estimated: result.tokens.estimated,
    });
    if (result.state.stream.ofType("context-trimmed").some((e) => e.historyLevel)) trimmedTurns++;
  }
  const firsts = calls.filter((c, i) => i > 0 && c.turn !== calls[i - 1].turn);
  const ratio = (list: ConversationCall[]) =>
    round(
      list.reduce((n, c) => n + c.reusedPromptTokens, 0) /
        Math.max(
          1,
          list.reduce((n, c) => n + c.promptTokens, 0),
        ),
    );
  return {
    turns,
    tokenBudget,
    calls,
    largestPrompt: Math.max(0, ...calls.map((c) => c.promptTokens)),
    trimmedTurns,
    reuseAll: ratio(calls),
    reuseFirstCalls: ratio(firsts),
    appendedFirstCalls: firsts.filter((c) => !c.trimmed).length,
    results,
  };
}

function pick(s: LlamaModelHandle["stats"]) {
  return {
    promptTokens: s.promptTokens,
    reusedPromptTokens: s.reusedPromptTokens,
    evaluatedPromptTokens: s.evaluatedPromptTokens,
  };
}
