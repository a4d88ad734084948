/**
 * A trim inside a turn (issue 42 item 5): the turn's first prompt fits the budget, its skill result does not, and
 * fitting the next step's prompt leaves old turns out. Under `summarize_oldest` those turns are summarized before they
 * leave (the summary stands for them in the prompt, in the turn's events and in the conversation file); under
 * `drop_oldest` they are left out with a note, as before.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { MEMORY_SUMMARY_MAX_TOKENS } from "../../src/defaults.js";
import { Conversation, type TrimPolicy } from "../../src/memory/index.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";

/** Turns 1..EARLIER answer at once; turn LOOKUP looks a word up (a long result), then answers; then one more turn. */
const EARLIER = 8;
const LOOKUP = EARLIER + 1;
const count = (prompt: string) => Math.ceil(prompt.length / 4);
const SUMMARIZE = "Summarize the conversation below";
const dir = mkdtempSync(join(tmpdir(), "ga-summarize-in-turn-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const registry = new Registry([
  defineSkill({
    name: "lookup",
    description: "Look a word up.",
    parameters: z.object({ word: z.string() }),
    run: ({ word }) => `${word} means ${"a thing that takes a while to explain ".repeat(16)}(entry ${word})`,
  }),
]);

const question = (n: number) => `question ${n}: tell me about w${n}`;
/** The questions of turns before `before` that `prompt` shows. */
const shownQuestions = (prompt: string, before: number) =>
  Array.from({ length: before - 1 }, (_, i) => i + 1).filter((k) => prompt.includes(question(k)));

/** The model: answers each turn at once, but for turn LOOKUP calls `lookup` first; asked to summarize, it says which turns. */
function model(): ScriptedModel & { countTokens(p: string): number; contextSize: number } {
  const reply = (prompt: string): string => {
    if (prompt.includes(SUMMARIZE)) {
      const asked = [...prompt.matchAll(/User: question (\d+):/g)].map((m) => m[1]);
      return `The user asked questions ${asked[0]} to ${asked.at(-1)}.`;
    }
    const n = Number([...prompt.matchAll(/question (\d+): tell me/g)].at(-1)![1]);
    if (n === LOOKUP && !prompt.includes(`(entry w${n})`)) return callReply("lookup", { word: `w${n}` });
    return answerReply(`w${n} is ${"a word with a long story behind it, ".repeat(4)}that is all.`);
  };
  const scripted = new ScriptedModel(Array.from({ length: 40 }, () => reply)) as ScriptedModel & {
    countTokens(p: string): number;
    contextSize: number;
  };
  scripted.countTokens = count;
  scripted.contextSize = 8_192;
  return scripted;
}

/** The conversation's turns under `budget` (tokens; none: a budget no prompt reaches), each with its model calls. */
async function talk(policy: TrimPolicy, budget = 1_000_000, name = `${policy}-${budget}`) {
  const scripted = model();
  const agent = new Agent({
    model: scripted,
    registry,
    maxTokens: 100,
    memory: { tokenBudget: budget, trimPolicy: policy },
  });
  const file = join(dir, `${name}.jsonl`);
  const conversation = Conversation.open(file);
  const turns = [];
  for (let n = 1; n <= LOOKUP + 1; n++) {
    const before = scripted.calls.length;
    const result = await agent.invoke(question(n), { conversation });
    turns.push({ n, result, calls: scripted.calls.slice(before) });
  }
  conversation.close();
  return { conversation, file, turns };
}

let measured = 0;

/**
 * A budget that the lookup turn's first prompt fits and its second (with the skill result) does not: measured on the
 * same conversation without a budget, halfway between the two.
 */
async function budgetInsideTheTurn(): Promise<number> {
  const { turns } = await talk("drop_oldest", undefined, `measure-${measured++}`);
  const [first, second] = turns[LOOKUP - 1].calls.map((c) => count(c.prompt));
  expect(second - first).toBeGreaterThan(100);
  return Math.floor((first + second) / 2);
}

describe("a trim inside a turn that leaves old turns out", () => {
  it("summarize_oldest: the turns are summarized before they leave; the summary stands for them everywhere", async () => {
    const budget = await budgetInsideTheTurn();
    const { conversation, file, turns } = await talk("summarize_oldest", budget);
    // nothing was summarized or trimmed before the lookup turn: its first prompt fit
    for (const { result } of turns.slice(0, LOOKUP - 1))
      expect(result.state.stream.toArray().filter((e) => e.type === "memory-summarized")).toEqual([]);
    const { result, calls } = turns[LOOKUP - 1];
    const events = result.state.stream.toArray();
    const summarized = events.filter((e) => e.type === "memory-summarized");
    const trimmed = events.filter((e) => e.type === "context-trimmed");
    // the call, the summary, the answer
    expect(calls.map((c) => (c.prompt.includes(SUMMARIZE) ? "summary" : "step"))).toEqual(["step", "summary", "step"]);
    expect(result.state.stats.modelCalls).toBe(calls.length);
    expect(summarized).toHaveLength(1);
    expect(trimmed).toHaveLength(1);
    const [summary] = summarized;
    const [trim] = trimmed;
    if (summary.type !== "memory-summarized" || trim.type !== "context-trimmed") throw new Error("event types");
    // inside the turn: at the step after the skill result, before that step's trim is recorded
    expect(trim.step).toBe(2);
    expect(summary.step).toBe(2);
    expect(events.indexOf(summary)).toBeLessThan(events.indexOf(trim));

    const [, summaryCall, second] = calls;
    // the summary is of the turns the second prompt leaves out, and nothing else; at most the summary token cap
    const kept = shownQuestions(second.prompt, LOOKUP);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(EARLIER);
    const left = Array.from({ length: kept[0] - 1 }, (_, i) => i + 1);
    expect(kept).toEqual(Array.from({ length: EARLIER - left.length }, (_, i) => kept[0] + i));
    expect([...summaryCall.prompt.matchAll(/User: question (\d+):/g)].map((m) => Number(m[1]))).toEqual(left);
    expect(summaryCall.options.maxTokens).toBe(MEMORY_SUMMARY_MAX_TOKENS);
    expect(summary).toMatchObject({ covers: left.at(-1), summarizedTurns: left.length });
    const text = `The user asked questions 1 to ${left.at(-1)}.`;
    expect(second.prompt).toContain(`Summary of the earlier part of this conversation: ${text}`);
    expect(second.prompt).not.toMatch(/earlier turn\(s\) of this conversation are left out/);
    expect(count(second.prompt)).toBeLessThanOrEqual(budget);
    expect(result.answer).toMatch(/^w9 is /);

    // the conversation keeps it, in memory and in its file, standing for those turns
    expect(conversation.summary).toMatchObject({ covers: left.at(-1), text });
    const stored = Conversation.open(file);
    expect(stored.summary).toMatchObject({ covers: left.at(-1), text });
    expect(stored.turns.map((t) => t.index)).toEqual(Array.from({ length: LOOKUP + 1 }, (_, i) => i + 1));
    stored.close();

    // the next turn starts where this one ended: its first prompt extends the turn's last, the summary in it
    const next = turns[LOOKUP].calls[0].prompt;
    expect(next.startsWith(second.prompt.slice(0, second.prompt.lastIndexOf(question(LOOKUP))))).toBe(true);
    expect(shownQuestions(next, LOOKUP + 1)).toEqual([...kept, LOOKUP]);
  });

  it("drop_oldest: the same trim leaves the turns out with a note, and nothing is summarized", async () => {
    const budget = await budgetInsideTheTurn();
    const { conversation, turns } = await talk("drop_oldest", budget);
    const { result, calls } = turns[LOOKUP - 1];
    expect(calls.some((c) => c.prompt.includes(SUMMARIZE))).toBe(false);
    expect(result.state.stream.toArray().filter((e) => e.type === "memory-summarized")).toEqual([]);
    const second = calls[1].prompt;
    const kept = shownQuestions(second, LOOKUP);
    expect(kept.length).toBeLessThan(EARLIER);
    expect(second).toContain(`(${kept[0] - 1} earlier turn(s) of this conversation are left out to save space.)`);
    expect(second).not.toContain("Summary of the earlier part");
    expect(count(second)).toBeLessThanOrEqual(budget);
    expect(conversation.summary).toBeUndefined();
  });
});
