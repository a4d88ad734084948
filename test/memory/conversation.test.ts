import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Conversation, ConversationError, historyView, type NewTurn } from "../../src/memory/index.js";

const work = () => mkdtempSync(join(tmpdir(), "ga-conv-"));

/** A turn with `calls` skill calls: the model's replies and the results between them, then its answer. */
function turn(n: number, calls = 1): NewTurn {
  const messages: NewTurn["messages"][number][] = [];
  for (let i = 0; i < calls; i++) {
    messages.push({ role: "model", content: `{"skill_name":"calculator","arguments":{"expression":"${n}+${i}"}}` });
    messages.push({ role: "user", content: `calculator returned: ${n + i}` });
  }
  messages.push({ role: "model", content: `{"final_answer":"answer ${n}"}` });
  return {
    user: `question ${n}`,
    answer: `answer ${n}`,
    stopReason: "answer",
    calls: Array.from({ length: calls }, (_, i) => ({
      skill: "calculator",
      arguments: { expression: `${n}+${i}` },
      result: String(n + i),
    })),
    messages,
  };
}

describe("a conversation on disk", () => {
  it("appends one JSON line per turn (after a header), flushed as the turn ends, and reads them back", () => {
    const path = join(work(), "chat.jsonl");
    const conversation = Conversation.open(path, { agent: "unit_helper" });
    conversation.addTurn(turn(1));
    expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(2);
    conversation.addTurn(turn(2, 0));
    const lines = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(["conversation", "turn", "turn"]);
    expect(lines[0]).toMatchObject({ version: 1, agent: "unit_helper" });
    expect(lines[1]).toMatchObject({ index: 1, user: "question 1", answer: "answer 1", calls: [{ result: "1" }] });
    const again = Conversation.open(path);
    expect(again.turns.map((t) => [t.index, t.user, t.answer])).toEqual([
      [1, "question 1", "answer 1"],
      [2, "question 2", "answer 2"],
    ]);
    expect(again.turns[0].messages).toEqual(turn(1).messages);
    expect(again.warnings).toEqual([]);
  });

  it("a torn last line (a crash mid-write) is reported and cut off; the earlier turns are kept and the next turn appends cleanly", () => {
    const path = join(work(), "torn.jsonl");
    const conversation = Conversation.open(path);
    for (let n = 1; n <= 3; n++) conversation.addTurn(turn(n));
    appendFileSync(path, '{"type":"turn","index":4,"at":"2026-01-01T00:00:00Z","user":"quest');
    const reopened = Conversation.open(path);
    expect(reopened.turns.map((t) => t.index)).toEqual([1, 2, 3]);
    expect(reopened.warnings).toHaveLength(1);
    expect(reopened.warnings[0]).toMatch(
      /torn\.jsonl:5: the last line was not a whole record .* the 3 turn\(s\) before it kept/,
    );
    reopened.addTurn(turn(4));
    const third = Conversation.open(path);
    expect(third.turns.map((t) => t.index)).toEqual([1, 2, 3, 4]);
    expect(third.warnings).toEqual([]);
  });

  it("a bad line that is not the last is an error naming it, not a silent loss", () => {
    const path = join(work(), "bad.jsonl");
    const conversation = Conversation.open(path);
    conversation.addTurn(turn(1));
    appendFileSync(path, "not json at all\n");
    conversation.addTurn(turn(2));
    expect(() => Conversation.open(path)).toThrowError(ConversationError);
    expect(() => Conversation.open(path)).toThrowError(/bad\.jsonl:3: not JSON/);
    writeFileSync(path, '{"type":"turn","index":"one"}\n{"type":"reset","at":"x"}\n');
    expect(() => Conversation.open(path)).toThrowError(/bad\.jsonl:1: not a conversation record \(index: /);
  });

  it("reset leaves the turns in the file, and a later open starts after it", () => {
    const path = join(work(), "reset.jsonl");
    const conversation = Conversation.open(path);
    conversation.addTurn(turn(1));
    conversation.reset();
    expect(conversation.turns).toEqual([]);
    conversation.addTurn(turn(2));
    expect(conversation.turns.map((t) => t.index)).toEqual([2]);
    const types = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).type);
    expect(types).toEqual(["conversation", "turn", "reset", "turn"]);
    expect(Conversation.open(path).turns.map((t) => t.user)).toEqual(["question 2"]);
  });

  it("saveAs writes the conversation to a new file and never replaces one", () => {
    const dir = work();
    const conversation = new Conversation();
    conversation.addTurn(turn(1));
    conversation.setSummary({ covers: 1, text: "The user asked about 1." });
    conversation.addTurn(turn(2));
    conversation.saveAs(join(dir, "saved.jsonl"));
    const saved = Conversation.open(join(dir, "saved.jsonl"));
    expect(saved.turns.map((t) => t.index)).toEqual([1, 2]);
    expect(saved.summary).toEqual({ covers: 1, text: "The user asked about 1." });
    expect(() => conversation.saveAs(join(dir, "saved.jsonl"))).toThrowError(/already exists/);
  });
});

describe("the history a prompt shows", () => {
  it("trims old skill results first (oldest turn first), then whole old turns; the levels only grow", () => {
    const conversation = new Conversation();
    conversation.addTurn(turn(1));
    conversation.addTurn(turn(2, 0));
    conversation.addTurn(turn(3, 2));
    const view = historyView(conversation);
    // strip turn 1, strip turn 3 (turn 2 has no steps), then drop 1, 2, 3
    expect(view.levels).toBe(5);
    expect([0, 1, 2, 3, 4, 5].map((l) => view.trimAt(l))).toEqual([
      { strippedTurns: 0, droppedTurns: 0 },
      { strippedTurns: 1, droppedTurns: 0 },
      { strippedTurns: 3, droppedTurns: 0 },
      { strippedTurns: 3, droppedTurns: 1 },
      { strippedTurns: 3, droppedTurns: 2 },
      { strippedTurns: 3, droppedTurns: 3 },
    ]);
    const full = view.messages(0);
    expect(full.map((m) => m.content)).toContain("calculator returned: 1");
    const stripped = view.messages(1);
    expect(stripped.slice(0, 2)).toEqual([
      { role: "user", content: "question 1" },
      { role: "model", content: '{"final_answer":"answer 1"}' },
    ]);
    expect(stripped.map((m) => m.content)).toContain("calculator returned: 4");
    const dropped = view.messages(3);
    expect(dropped[0].content).toMatch(/1 earlier turn\(s\) of this conversation are left out/);
    expect(dropped.map((m) => m.content)).not.toContain("question 1");
    expect(view.droppedAt(4).map((t) => t.index)).toEqual([1, 2]);
    // the next turn starts from the trim the conversation keeps: its prompt extends this one
    conversation.trim = view.trimAt(2);
    conversation.addTurn(turn(4));
    const next = historyView(conversation).messages(0);
    expect(next.slice(0, view.messages(2).length)).toEqual(view.messages(2));
    expect(next.slice(view.messages(2).length)[0]).toEqual({ role: "user", content: "question 4" });
  });

  it("a summary stands for the turns it covers; aborted turns are not shown", () => {
    const conversation = new Conversation();
    for (let n = 1; n <= 3; n++) conversation.addTurn(turn(n));
    conversation.addTurn({ ...turn(4), answer: undefined, stopReason: "aborted" });
    conversation.setSummary({ covers: 2, text: "Two sums were done." });
    const messages = historyView(conversation).messages(0);
    expect(messages[0]).toEqual({
      role: "user",
      content: "Summary of the earlier part of this conversation: Two sums were done.",
    });
    const users = messages.filter((m) => m.content.startsWith("question"));
    expect(users.map((m) => m.content)).toEqual(["question 3"]);
  });
});
