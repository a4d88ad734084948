/**
 * The CLI in a real pseudo-terminal (util-linux `script` allocates one), answered as a person would: the
 * `--approve` questions and the offer to download a missing model.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { EventStream } from "../../src/agent/event-stream.js";

const CLI = resolve("dist/cli/main.js");
/** A terminal session is not CI: drop the variable so the spinner and questions behave as for a person. */
function withoutCI(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { CI: _ci, ...rest } = env;
  return rest;
}
const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** Run the CLI under a pty; each time `prompt` appears in the screen output, type the next answer. */
function inTerminal(args: string[], prompt: RegExp, answers: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; screen: string }> {
  return new Promise((done, fail) => {
    const command = `stty cols 120 rows 40; ${[process.execPath, CLI, ...args].map(quote).join(" ")}`;
    const child = spawn("script", ["-q", "-e", "-f", "-c", command, "/dev/null"], { env: withoutCI({ ...process.env, ...env }), stdio: ["pipe", "pipe", "pipe"] });
    let screen = "";
    let answered = 0;
    child.stdout.on("data", (d) => {
      screen += d;
      const seen = screen.match(new RegExp(prompt.source, "g"))?.length ?? 0;
      while (answered < seen && answered < answers.length) child.stdin.write(`${answers[answered++]}\r`);
    });
    // never leave a stuck terminal session behind a failed test
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, screen });
    });
  });
}

describe("on a terminal", () => {
  it("--approve asks before each call: n denies it, e corrects its arguments, y runs it", async () => {
    const work = mkdtempSync(join(tmpdir(), "ga-tty-"));
    const replies = [
      { skill_name: "calculator", arguments: { expression: "1+1" } },
      { skill_name: "calculator", arguments: { expression: "3*3" } },
      { skill_name: "calculator", arguments: { expression: "7-2" } },
      { final_answer: "done" },
    ].map((r) => JSON.stringify(r));
    writeFileSync(join(work, "script.json"), JSON.stringify(replies));
    const trace = join(work, "trace.jsonl");
    const { code, screen } = await inTerminal(
      ["ask", "math", "--model", `script:${join(work, "script.json")}`, "--approve", "--trace", trace],
      /\[y\]es \/ \[n\]o \/ \[e\]dit: |New arguments \(JSON\): /,
      ["n", "e", '{"expression": "5*5"}', "y"],
    );
    expect(code, screen).toBe(0);
    expect(screen).toContain('Run calculator {"expression":"1+1"}?');
    const events = EventStream.fromJSONL(readFileSync(trace, "utf8"));
    expect(events.ofType("tool-error")[0]).toMatchObject({ guard: "approval", message: "denied: the user said no" });
    expect(events.ofType("call-skill")[1]).toMatchObject({ arguments: { expression: "5*5" }, originalArguments: { expression: "3*3" } });
    expect(events.ofType("observation").map((o) => o.result)).toEqual(["25", "5"]);
  }, 60_000);

  it("offers to download a missing default model, and a no gives the pull command", async () => {
    const models = mkdtempSync(join(tmpdir(), "ga-models-"));
    const { code, screen } = await inTerminal(["ask", "hi"], /Download it to .* now\? \[y\/N\] /, ["n"], { GEMMA_AGENT_MODELS: models });
    expect(screen).toMatch(/Gemma 4 E2B .*\(gemma-4-e2b:Q4_K_M, 3\.11 GB\) is not downloaded/);
    expect(screen).toContain("run: gemma-agent pull gemma-4-e2b:Q4_K_M");
    expect(code).toBe(2);
  }, 60_000);
});
