/**
 * `run` and `agent inspect` on the example agents (examples/agents/), spawned as a user runs them, with scripted
 * replies: the loop, the definitions, the skills, the memory file and the output are the real ones.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { answerReply, callReply } from "../../src/testing/index.js";

const CLI = resolve("dist/cli/main.js");
const UNIT = "examples/agents/unit-helper/agent.yaml";
const FILES = "examples/agents/file-assistant/agent.yaml";
const SUPERVISOR = "examples/agents/supervisor/agent.yaml";
let work: string;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], input?: string): Promise<Result> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, npm_lifecycle_event: undefined, GEMMA_AGENT_MODELS: join(work, "models") },
      stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    if (input !== undefined) child.stdin!.end(input);
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** A script file of raw replies. */
function script(name: string, replies: string[]): string {
  const path = join(work, name);
  writeFileSync(path, JSON.stringify(replies));
  return `script:${path}`;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "ga-agents-cli-"));
});

describe("run", () => {
  it("runs each example on its scripted replies: the answer on stdout, progress on stderr, exit 0", async () => {
    const unit = await cli([
      "run",
      UNIT,
      "How many km is 26.2 miles?",
      "--model",
      "script:examples/replies/unit-helper.json",
    ]);
    expect(unit.code, unit.stderr).toBe(0);
    expect(JSON.parse(unit.stdout)).toEqual({ value: 42.16, unit: "km", text: "26.2 miles is about 42.16 km." });
    expect(unit.stderr).toContain('→ convert_units {"value":26.2,"from":"mi","to":"km"}');
    expect(unit.stderr).toContain('"result":42.1648128');
    const files = await cli([
      "run",
      FILES,
      "What is on the shopping list?",
      "--allow-dir",
      "examples/agents/file-assistant/files",
      "--model",
      "script:examples/replies/file-assistant.json",
    ]);
    expect(files.code, files.stderr).toBe(0);
    expect(files.stdout).toBe("The shopping list: 2 kg of flour, 6 eggs, 1 litre of milk and basil.\n");
    expect(files.stderr).toContain("- 2 kg of flour");
    const boss = await cli([
      "run",
      SUPERVISOR,
      "A recipe needs 3 times 250 g of sugar; how many pounds is that?",
      "--model",
      "script:examples/replies/supervisor.json",
    ]);
    expect(boss.code, boss.stderr).toBe(0);
    expect(boss.stdout).toBe("750 g of sugar is about 1.65 lb.\n");
    // the nested specialist's steps, indented under the supervisor's call
    expect(boss.stderr).toMatch(/ {2}\[1\] → ask_math_expert \{"task":"3 \* 250"\}\n {4}\[1\] → calculator/);
  });

  it("the file assistant is confined to --allow-dir: without it, a setup error; with it, nothing outside is read", async () => {
    const missing = await cli(["run", FILES, "hi", "--model", "script:examples/replies/file-assistant.json"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(
      "gemma-agent: examples/agents/file-assistant/agent.yaml: ## Tools: list_files needs --allow-dir DIR (the folder it may read)",
    );
    const escape = script("escape.json", [
      callReply("read_file", { path: "../../unit-helper/SOUL.md" }),
      answerReply("I could not read it."),
    ]);
    const confined = await cli([
      "run",
      FILES,
      "Read the unit helper's soul",
      "--allow-dir",
      "examples/agents/file-assistant/files",
      "--model",
      escape,
      "--json",
    ]);
    expect(confined.code, confined.stderr).toBe(0);
    const report = JSON.parse(confined.stdout);
    const error = report.events.find((e: { type: string }) => e.type === "tool-error");
    expect(error.message).toMatch(/outside the allowed directory/);
    expect(JSON.stringify(report.events)).not.toContain("Unit Helper");
  });

  it("--json: ask's document, with the typed reply, the turn's tokens and the agent", async () => {
    const result = await cli([
      "run",
      UNIT,
      "How many km is 26.2 miles?",
      "--model",
      "script:examples/replies/unit-helper.json",
      "--json",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      answer: '{"value":42.16,"unit":"km","text":"26.2 miles is about 42.16 km."}',
      reply: { value: 42.16, unit: "km" },
      stopReason: "answer",
      iterations: 2,
      agent: { name: "unit_helper", file: resolve(UNIT) },
      conversation: null,
      tokens: { budget: 3000, estimated: true },
    });
    expect(report.tokens.prompt).toBeGreaterThan(100);
    expect(report.tokens.prompt).toBeLessThanOrEqual(3000);
    expect(report.events.map((e: { type: string }) => e.type)).toEqual(["call-skill", "observation", "final-answer"]);
  });

  it("--conversation FILE keeps the turns: a second run continues the file, one line per turn", async () => {
    const file = join(work, "chat.jsonl");
    const first = script("first.json", [answerReply("Noted: the trip is 26.2 miles.")]);
    const a = await cli(["run", SUPERVISOR, "My trip is 26.2 miles.", "--model", first, "--conversation", file]);
    expect(a.code, a.stderr).toBe(0);
    const second = script("second.json", [
      callReply("convert_units", { value: 26.2, from: "mi", to: "km" }),
      answerReply("Your trip is 42.16 km."),
    ]);
    const trace = join(work, "second.trace.jsonl");
    const b = await cli([
      "run",
      SUPERVISOR,
      "How long is my trip in km?",
      "--model",
      second,
      "--conversation",
      file,
      "--json",
      "--trace",
      trace,
    ]);
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout).conversation).toEqual({ file, turns: 2 });
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(["conversation", "turn", "turn"]);
    expect(lines[2]).toMatchObject({
      user: "How long is my trip in km?",
      answer: "Your trip is 42.16 km.",
      calls: [{ skill: "convert_units" }],
    });
    expect(readFileSync(trace, "utf8").trim().split("\n")).toHaveLength(3);
  });

  it("constraint_violated exits 1 and says which; a bad definition is a one-line setup error (exit 2)", async () => {
    const forbidden = script("forbidden.json", [
      JSON.stringify({ final_answer: { value: 1, unit: "As a language model", text: "x" } }),
    ]);
    const violated = await cli(["run", UNIT, "hi", "--model", forbidden]);
    expect(violated.code).toBe(1);
    expect(violated.stdout).toBe("");
    expect(violated.stderr).toMatch(/stopped: the answer matches the forbidden pattern "As a language model"/);
    expect(violated.stderr).toContain("no answer: constraint_violated");
    const bad = join(work, "bad.yaml");
    writeFileSync(bad, "name: bad\nloop_policy: { max_iterations: 0 }\n");
    const invalid = await cli(["run", bad, "hi", "--model", forbidden]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toBe(`gemma-agent: ${bad}: loop_policy.max_iterations: expected an integer >= 1\n`);
  });

  it("reads the message from stdin, as ask does", async () => {
    const result = await cli(
      ["run", UNIT, "--model", "script:examples/replies/unit-helper.json"],
      "How many km is 26.2 miles?\n",
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).value).toBe(42.16);
  });
});

describe("agent inspect", () => {
  it("shows the tools with their schemas, the nested agents as a tree, the policies and the system prompt", async () => {
    const result = await cli(["agent", "inspect", SUPERVISOR]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "agents:\n  supervisor\n  ├─ convert_units\n  └─ ask_math_expert → agent math_expert (examples/agents/supervisor/math-expert.yaml)\n     └─ calculator\n",
    );
    expect(result.stdout).toContain("ask_math_expert (agent math_expert): Does arithmetic exactly");
    expect(result.stdout).toMatch(/arguments: \{"type":"object","properties":\{"task":/);
    expect(result.stdout).toContain("loop policy   max_iterations 8, max_retries 3, on_max_iterations error");
    expect(result.stdout).toContain('constraints   {"maxLatencyMs":300000}');
    expect(result.stdout).toContain("system prompt:\n# Name & Role\nYou are the Supervisor.");
    expect(result.stdout).toMatch(
      /tokens {8}system prompt \d+, first prompt \d+; counted with estimate: 3 characters a token/,
    );
  });

  it("--json: the memory budget, output schema and constraints, and token counts against the budget", async () => {
    const result = await cli(["agent", "inspect", UNIT, "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      name: "unit_helper",
      model: "gemma-4-e2b",
      memory: { tokenBudget: 3000, trimPolicy: "drop_oldest" },
      loopPolicy: { maxIterations: 6, maxRetries: 3, onMaxIterations: "error", finalRoundWithoutTools: true },
      outputSchema: { required: ["value", "unit", "text"] },
      constraints: { maxLatencyMs: 120000, maxTotalTokens: 20000, forbiddenPatterns: ["As a language model"] },
      tokens: { budget: 3000, contextSize: null },
    });
    expect(report.tools.map((t: { name: string }) => t.name)).toEqual(["convert_units", "calculator"]);
    expect(report.tokens.firstPrompt).toBeGreaterThan(report.tokens.systemPrompt);
    expect(report.tokens.counted).toMatch(/gemma-4-e2b is not downloaded/);
  });
});
