/**
 * The built CLI says what an answer rests on: on the terminal a note under "answered" and in `--json` the fields
 * `truncated`, `withoutSkillCall` and `forcedByFinalRound` (scripted replies: the test needs exact ones).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const CLI = resolve("dist/cli/main.js");
let work: string;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error("dist/cli/main.js is missing: run `npm run build` (npm test does it first)");
  work = mkdtempSync(join(tmpdir(), "ga-marks-"));
});

function ask(name: string, replies: unknown[], ...args: string[]) {
  const path = join(work, name);
  writeFileSync(path, JSON.stringify(replies.map((r) => JSON.stringify(r))));
  const result = spawnSync(process.execPath, [CLI, "ask", "What is 2+3?", "--model", `script:${path}`, ...args], {
    encoding: "utf8",
    env: { ...process.env, CI: "1", npm_lifecycle_event: undefined },
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("ask: an answer says what it rests on", () => {
  it("an answer given without any skill call: a note on the terminal, withoutSkillCall in --json", () => {
    const text = ask("no-call.json", [{ final_answer: "It is 5." }]);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe("It is 5.\n");
    expect(text.stderr).toContain("note: answered without calling a skill: no result backs it");
    const json = ask("no-call-json.json", [{ final_answer: "It is 5." }], "--json");
    expect(JSON.parse(json.stdout)).toMatchObject({
      answer: "It is 5.",
      truncated: false,
      withoutSkillCall: true,
      forcedByFinalRound: false,
    });
  });

  it("an answer forced by the final round, after a call: a note and forcedByFinalRound", () => {
    const replies = [{ skill_name: "calculator", arguments: { expression: "2+3" } }, { final_answer: "5" }];
    const text = ask("final-round.json", replies, "--max-iterations", "2");
    expect(text.code).toBe(0);
    expect(text.stderr).toContain("note: answered in a final round");
    expect(text.stderr).not.toContain("without calling a skill");
    const json = JSON.parse(ask("final-round-json.json", replies, "--max-iterations", "2", "--json").stdout);
    expect(json).toMatchObject({ truncated: false, withoutSkillCall: false, forcedByFinalRound: true });
  });

  it("an answer cut at its bound: a note, truncated in --json and on its event", () => {
    const replies = [
      { skill_name: "calculator", arguments: { expression: "2+3" } },
      { final_answer: "The sum of two and three is five, as the calculator" },
    ];
    const args = ["--max-answer-chars", "50", "--max-iterations", "8"];
    const text = ask("cut.json", replies, ...args);
    expect(text.stderr).toMatch(/note: the answer was cut at \d+ characters/);
    const json = JSON.parse(ask("cut-json.json", replies, ...args, "--json").stdout);
    expect(json).toMatchObject({ truncated: true, withoutSkillCall: false, forcedByFinalRound: false });
    expect(json.events.at(-1)).toMatchObject({ type: "final-answer", truncated: true });
  });

  it("a plain answer after a result carries no note", () => {
    const replies = [{ skill_name: "calculator", arguments: { expression: "2+3" } }, { final_answer: "5" }];
    const text = ask("plain.json", replies, "--max-iterations", "8");
    expect(text.code).toBe(0);
    expect(text.stderr).not.toContain("note:");
  });
});
