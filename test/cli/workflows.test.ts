/**
 * `gemma-agent run FILE.ts MESSAGE`: the built CLI runs a workflow file (loaded through tsx), on scripted replies, with
 * ask's output, --json document, --trace file and exit codes. `npm test` builds first.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { EventStream } from "../../src/agent/event-stream.js";

const CLI = resolve("dist/cli/main.js");
const work = mkdtempSync(join(tmpdir(), "cli-workflows-"));

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, npm_lifecycle_event: undefined, GEMMA_AGENT_MODELS: join(work, "models") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", fail);
    child.on("close", (code) => (clearTimeout(timer), done({ code, stdout, stderr })));
  });
}

const script = (name: string) => `script:examples/workflows/replies/${name}.json`;

describe("gemma-agent run WORKFLOW.ts", () => {
  it("runs a TypeScript workflow file: the answer on stdout, the steps on stderr, exit 0", async () => {
    const result = await run([
      "run",
      "examples/workflows/router.ts",
      "What is 17 times 23 plus 4?",
      "--model",
      script("router"),
    ]);
    expect(result.stdout).toBe("17*23+4 = 395\n");
    expect(result.stderr).toContain('classify: {"route":"calculate"}');
    expect(result.stderr).toContain("→ calculator");
    expect(result.code).toBe(0);
  });

  it("lets the workflow file catch a failed skill call (the built runtime's error is the file's WorkflowCallError)", async () => {
    const result = await run([
      "run",
      "examples/workflows/router.ts",
      "What is 2 plus?",
      "--model",
      script("router-bad-expression"),
    ]);
    expect(result.stdout).toMatch(/^2\+ could not be computed: /);
    expect(result.code).toBe(0);
  });

  it("writes the --json document and a --trace that reads back as the run's events", async () => {
    const trace = join(work, "chain.jsonl");
    const question = "How many kilograms is 150 pounds?";
    const result = await run([
      "run",
      "examples/workflows/chain.ts",
      question,
      "--model",
      script("chain"),
      "--json",
      "--trace",
      trace,
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      answer: string;
      stopReason: string;
      workflow: unknown;
      events: { type: string }[];
    };
    expect(report).toMatchObject({
      answer: "150 pounds is 68.0388555 kilograms.",
      stopReason: "answer",
      workflow: { name: "chain" },
    });
    const events = EventStream.fromJSONL(readFileSync(trace, "utf8")).toArray();
    expect(events.map((e) => e.type)).toEqual(report.events.map((e) => e.type));
    expect(events.map((e) => e.type)).toEqual([
      "model-call",
      "call-skill",
      "observation",
      "model-call",
      "final-answer",
    ]);
  });

  it("gives the workflow only the skills it names", async () => {
    const file = join(work, "greedy.mjs");
    writeFileSync(
      file,
      'export default { name: "greedy", skills: ["calculator"], run: (ctx) => ctx.call("convert_units", { value: 1, from: "km", to: "m" }) };\n',
    );
    const result = await run(["run", file, "q", "--model", script("router")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /\[scope\].*\n.*workflow greedy failed: convert_units failed: the skill "convert_units" is not available here/,
    );
  });

  it("exits 1 with a workflow-error when the workflow throws, and 2 for a file that is no workflow", async () => {
    const throwing = join(work, "throwing.mjs");
    writeFileSync(throwing, 'export default async function broken() { throw new Error("not written yet"); }\n');
    const failed = await run(["run", throwing, "q", "--model", script("router")]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("workflow broken failed: not written yet");
    const empty = join(work, "empty.mjs");
    writeFileSync(empty, "export const answer = 42;\n");
    const refused = await run(["run", empty, "q", "--model", script("router")]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("exports no workflow");
    const missing = await run(["run", join(work, "missing.ts"), "q", "--model", script("router")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("no such file");
    const conversation = await run([
      "run",
      "examples/workflows/router.ts",
      "q",
      "--conversation",
      join(work, "c.jsonl"),
    ]);
    expect(conversation.code).toBe(2);
    expect(conversation.stderr).toContain("--conversation goes with an agent definition");
  });

  it("ends at --max-iterations as the loop does (exit 1)", async () => {
    const result = await run([
      "run",
      "examples/workflows/router.ts",
      "What is 2+2?",
      "--model",
      script("router"),
      "--max-iterations",
      "1",
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no answer: max_iterations");
  });
});
