/**
 * 50 turns of a scripted conversation under a token budget: each turn calls a skill whose result is long, then
 * answers. Every prompt stays within the budget; the oldest skill results leave first, then whole old turns (dropped,
 * or summarized by the model); the system prompt and the current message are always there; the file keeps all 50 turns.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { Conversation, MemoryBudgetError, type TrimPolicy } from "../../src/memory/index.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";

const TURNS = 50;
// At 1,500 most trims come inside a turn, after its skill result (the step-2 prompt outgrows the budget), old turns
// leaving with them: summarize_oldest must summarize them there too, not only at a turn's first prompt.
const BUDGET = 1_500;
const count = (prompt: string) => Math.ceil(prompt.length / 4);

const registry = new Registry([
  defineSkill({
    name: "lookup",
    description: "Look a word up.",
    parameters: z.object({ word: z.string() }),
    run: ({ word }) => `${word} means ${"something rather long ".repeat(8)}(entry ${word})`,
  }),
]);

/**
 * A model that, for each turn, looks the turn's word up and then answers; asked to summarize, it summarizes. It counts
 * tokens at 4 characters a token (its "tokenizer") and has a 4,096-token context.
 */
function conversationModel(): ScriptedModel & { countTokens(p: string): number; contextSize: number } {
  let step = 0;
  const reply = (prompt: string): string => {
    if (prompt.includes("Summarize the conversation below")) {
      const asked = [...prompt.matchAll(/User: question (\d+)/g)].map((m) => m[1]);
      return `The user looked up the words of questions ${asked[0]} to ${asked.at(-1)}.`;
    }
    const turn = Number([...prompt.matchAll(/question (\d+): look up/g)].at(-1)![1]);
    return step++ % 2 === 0 ? callReply("lookup", { word: `w${turn}` }) : answerReply(`w${turn} is a long word.`);
  };
  const model = new ScriptedModel(Array.from({ length: 400 }, () => reply)) as ScriptedModel & {
    countTokens(p: string): number;
    contextSize: number;
  };
  model.countTokens = count;
  model.contextSize = 4_096;
  return model;
}

async function talk(policy: TrimPolicy) {
  const model = conversationModel();
  const agent = new Agent({ model, registry, maxTokens: 100, memory: { tokenBudget: BUDGET, trimPolicy: policy } });
  const file = join(mkdtempSync(join(tmpdir(), "ga-budget-")), "fifty.jsonl");
  const conversation = Conversation.open(file);
  const turns = [];
  for (let n = 1; n <= TURNS; n++) {
    const before = model.calls.length;
    const result = await agent.invoke(`question ${n}: look up w${n}`, { conversation });
    const prompts = model.calls.slice(before).map((c) => c.prompt);
    turns.push({ n, result, prompts: prompts.filter((p) => !p.includes("Summarize the conversation below")) });
  }
  return { agent, model, file, turns };
}

/** The turns whose question, and whose lookup result, a prompt shows (earlier turns only). */
function shown(prompt: string, before: number) {
  const questions: number[] = [];
  const results: number[] = [];
  for (let k = 1; k < before; k++) {
    if (prompt.includes(`question ${k}: look up`)) questions.push(k);
    if (prompt.includes(`(entry w${k})`)) results.push(k);
  }
  return { questions, results };
}

/** The newest `length` numbers before `before`, in order: what is left of a history of turns 1, 2, ... */
const newestBefore = (length: number, before: number) => Array.from({ length }, (_, i) => before - length + i);

describe("a 50-turn conversation under a token budget", () => {
  for (const policy of ["drop_oldest", "summarize_oldest"] as const) {
    it(`${policy}: every prompt within the budget, old results out first, then old turns; no turn lost on disk`, async () => {
      const { agent, file, turns } = await talk(policy);
      let firstStrip = Infinity;
      let firstDrop = Infinity;
      let reused = 0;
      for (const { n, result, prompts } of turns) {
        expect(result.answer).toBe(`w${n} is a long word.`);
        expect(result.tokens.prompt).toBeLessThanOrEqual(BUDGET);
        expect(result.tokens.budget).toBe(BUDGET);
        for (const prompt of prompts) {
          expect(count(prompt)).toBeLessThanOrEqual(BUDGET);
          expect(prompt).toContain(agent.systemPrompt.slice(0, 200));
          expect(prompt).toContain(`question ${n}: look up w${n}`);
          const { questions, results } = shown(prompt, n);
          // what is left of the history is always its newest part
          expect(questions, `turn ${n}: questions`).toEqual(newestBefore(questions.length, n));
          expect(results, `turn ${n}: results`).toEqual(newestBefore(results.length, n));
          if (results.length < questions.length) firstStrip = Math.min(firstStrip, n);
          if (questions.length < n - 1) {
            firstDrop = Math.min(firstDrop, n);
            // when old turns leave, every turn older than the ones kept whole lost its result before
            if (n === firstDrop) expect(results.length).toBe(0);
          }
        }
        const previous = turns[n - 2];
        if (previous && prompts[0].startsWith(previous.prompts.at(-1)!)) reused++;
      }
      expect(firstStrip).toBeLessThan(firstDrop);
      expect(firstDrop).toBeLessThan(TURNS);
      // trims are rare and large: most turns' first prompt extends the previous turn's last (the KV cache holds)
      expect(reused).toBeGreaterThanOrEqual(TURNS - 1 - TURNS / 4);
      const trims = turns.flatMap((t) => t.result.state.stream.ofType("context-trimmed"));
      // each trim takes the history down to 3/4 of the budget (MEMORY_TRIM_TARGET), so it leaves room for a few turns
      expect(trims.length).toBeLessThanOrEqual(TURNS / 4);
      for (const trim of trims) expect(trim.promptTokensAfter).toBeLessThanOrEqual(BUDGET * 0.75);
      const stored = Conversation.open(file);
      expect(stored.turns.map((t) => t.index)).toEqual(Array.from({ length: TURNS }, (_, i) => i + 1));
      expect(stored.turns.map((t) => t.calls[0].result)).toEqual(
        stored.turns.map((_, i) => expect.stringContaining(`(entry w${i + 1})`)),
      );
      expect(stored.turns[0].messages.length).toBe(3);
      if (policy === "summarize_oldest") {
        const summaries = turns.flatMap((t) => t.result.state.stream.ofType("memory-summarized"));
        expect(summaries.length).toBeGreaterThan(0);
        expect(summaries.length).toBeLessThanOrEqual(10);
        expect(stored.summary?.text).toMatch(/^The user looked up the words of questions \d+ to \d+\.$/);
        expect(turns.at(-1)!.prompts[0]).toContain(
          "Summary of the earlier part of this conversation: The user looked up",
        );
        const covers = summaries.map((s) => s.covers);
        expect(covers).toEqual([...covers].sort((a, b) => a - b));
        // old turns left the prompt inside turns (at a later step than the first), and were summarized there
        expect(summaries.filter((s) => s.step >= 2).length).toBeGreaterThan(0);
        // no turn ever left a prompt unsummarized: where turns are missing, the summary there covers exactly them
        for (const { n, prompts } of turns)
          for (const prompt of prompts) {
            const { questions } = shown(prompt, n);
            if (questions.length === n - 1) continue;
            expect(prompt).not.toMatch(/earlier turn\(s\) of this conversation are left out/);
            const upTo = /Summary of the earlier part of this conversation: .*questions \d+ to (\d+)\./.exec(prompt);
            expect(Number(upTo?.[1]), `turn ${n}`).toBe((questions[0] ?? n) - 1);
          }
        expect(stored.summary?.covers).toBe(covers.at(-1));
      } else expect(turns.at(-1)!.prompts[0]).toMatch(/\(\d+ earlier turn\(s\) of this conversation are left out/);
    }, 60_000);
  }

  it("a system prompt and message that alone exceed the budget are an error before any generation", async () => {
    const model = conversationModel();
    const agent = new Agent({ model, registry, memory: { tokenBudget: 100 } });
    await expect(agent.invoke("question 1: look up w1")).rejects.toThrowError(MemoryBudgetError);
    await expect(agent.invoke("question 1: look up w1")).rejects.toThrowError(
      /the system prompt and the message alone need \d+ tokens \(the model's tokenizer\), more than the memory's token budget of 100/,
    );
    expect(model.calls).toHaveLength(0);
    // a model without a tokenizer gets the labelled estimate
    const plain = new Agent({ model: new ScriptedModel([]), registry, memory: { tokenBudget: 100 } });
    await expect(plain.invoke("hi")).rejects.toThrowError(/\(estimate: 3 characters a token/);
  });
});
