/**
 * `chat` in a real pseudo-terminal (util-linux `script` allocates one), typed into as a person would: turns with
 * memory, /save, /reset, /exit, Ctrl-C stopping an answer on the fixture model (real llama.cpp, mid-generation)
 * without ending the session, and two Ctrl-C at an empty prompt quitting with 130.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { callReply } from "../../src/testing/index.js";
import { fixtureModelPath } from "../helpers/fixture-model.js";
import { chatSession } from "../helpers/pty-session.js";

const CTRL_C = "\x03";

describe("chat on a terminal", () => {
  it("turns with memory, /save, /reset, then two Ctrl-C at an empty prompt quit with 130", async () => {
    const work = mkdtempSync(join(tmpdir(), "ga-chat-"));
    const replies = [
      callReply("convert_units", { value: 26.2, from: "mi", to: "km" }),
      JSON.stringify({ final_answer: { value: 42.16, unit: "km", text: "26.2 miles is about 42.16 km." } }),
      JSON.stringify({ final_answer: { value: 2, unit: "km", text: "Twice one kilometre is 2 km." } }),
    ];
    writeFileSync(join(work, "script.json"), JSON.stringify(replies));
    const conversation = join(work, "kept.jsonl");
    const saved = join(work, "saved.jsonl");
    const { code, screen, typedAt } = await chatSession(
      [
        "chat",
        "examples/agents/unit-helper/agent.yaml",
        "--model",
        `script:${join(work, "script.json")}`,
        "--conversation",
        conversation,
      ],
      [
        { until: "/exit; Ctrl-C stops an answer", type: "How many km is 26.2 miles?\r" },
        { until: "26.2 miles is about 42.16 km.", type: `/save ${saved}\r` },
        { until: "(saved 1 turn(s) to", type: "/reset\r" },
        { until: "(conversation reset", type: "What is twice one kilometre?\r" },
        { until: "Twice one kilometre is 2 km.", type: "half a line" },
        { until: "half a line", type: CTRL_C },
        { until: "> ", type: CTRL_C },
        { until: "(Ctrl-C again to quit, or /exit)", type: CTRL_C },
      ],
    );
    expect(code, screen).toBe(130);
    // the Ctrl-C on a line with text cleared it; only the next two, at the empty prompt, armed and quit
    expect(typedAt).toHaveLength(8);
    expect(screen.split("(Ctrl-C again to quit, or /exit)")).toHaveLength(2);
    expect(screen).toContain("chatting with unit_helper on");
    expect(screen).toMatch(/→ convert_units \{"value":26\.2,"from":"mi","to":"km"\}/);
    expect(screen).toContain('{"value":42.16,"unit":"km","text":"26.2 miles is about 42.16 km."}');
    const kept = readFileSync(conversation, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(kept.map((r) => r.type)).toEqual(["conversation", "turn", "reset", "turn"]);
    expect(kept[1]).toMatchObject({ user: "How many km is 26.2 miles?", reply: { value: 42.16 } });
    expect(kept[3]).toMatchObject({ user: "What is twice one kilometre?" });
    const copy = readFileSync(saved, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(copy.map((r) => r.type)).toEqual(["conversation", "turn"]);
  }, 90_000);

  it("on the fixture model: Ctrl-C stops the answer under way, the session goes on, /exit ends it (0)", async () => {
    const fixture = fixtureModelPath();
    const { code, screen, typedAt, endedAt } = await chatSession(
      ["chat", "--model", fixture, "--threads", "1", "--no-grammar", "--max-tokens", "2000", "--context-size", "4096"],
      [
        { until: "/exit; Ctrl-C stops an answer", type: "Tell me a long story.\r" },
        { until: "thinking", type: CTRL_C },
        { until: "stopped (the conversation goes on)", type: "/exit\r" },
      ],
      120_000,
    );
    expect(code, screen.slice(-2000)).toBe(0);
    expect(screen).toContain("stopped (the conversation goes on)");
    expect(screen).not.toContain("unexpected error");
    // the answer stopped promptly: the stop line came within a few seconds of the Ctrl-C
    expect(typedAt).toHaveLength(3);
    expect(typedAt[2] - typedAt[1]).toBeLessThan(5_000);
    expect(endedAt - typedAt[2]).toBeLessThan(15_000);
  }, 180_000);
});
