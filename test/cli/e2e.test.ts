/**
 * The built CLI, spawned as a user runs it (`node dist/cli/main.js ...`; `npm test` builds first), on the fixture
 * model through real llama.cpp, and on scripted replies where a test needs the model to write something exact.
 */
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  closeSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EventStream } from "../../src/agent/event-stream.js";
import { fixtureModelPath } from "../helpers/fixture-model.js";

const CLI = resolve("dist/cli/main.js");
let fixture: string;
let work: string;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  args: string[],
  options: { onStderr?: (text: string, child: ReturnType<typeof spawn>) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<Result> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      // started as `node dist/cli/main.js` (not through npm or npx, whatever ran the tests): hints name it so
      env: { ...process.env, npm_lifecycle_event: undefined, GEMMA_AGENT_MODELS: join(work, "models"), ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => {
      stderr += d;
      options.onStderr?.(stderr, child);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 150_000); // a stuck CLI must not outlive its test
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

const script = (name: string, replies: unknown[]) => {
  const path = join(work, name);
  writeFileSync(path, JSON.stringify(replies.map((r) => (typeof r === "string" ? r : JSON.stringify(r)))));
  return `script:${path}`;
};

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error("dist/cli/main.js is missing: run `npm run build` (npm test does it first)");
  fixture = fixtureModelPath();
  work = mkdtempSync(join(tmpdir(), "ga-e2e-"));
});

describe("gemma-agent ask on the fixture model", () => {
  it("--json prints one JSON document with the documented fields and the documented exit code; --trace writes the same events as JSONL", async () => {
    const trace = join(work, "run.jsonl");
    const { code, stdout, stderr } = await run([
      "ask",
      "What is 2+2?",
      "--model",
      fixture,
      "--max-iterations",
      "3",
      "--max-tokens",
      "24",
      "--json",
      "--trace",
      trace,
    ]);
    const doc = JSON.parse(stdout);
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(["answer", "stopReason", "iterations", "events", "stats"]));
    expect(["answer", "max_iterations", "retries_exhausted"]).toContain(doc.stopReason);
    expect(code).toBe(doc.stopReason === "answer" ? 0 : 1);
    expect(doc.iterations).toBeGreaterThanOrEqual(1);
    expect(doc.iterations).toBeLessThanOrEqual(3);
    expect(doc.stats.modelCalls).toBe(doc.iterations);
    expect(doc.stats.generatedTokens).toBeGreaterThan(0);
    expect(doc.model).toMatchObject({ architecture: "gemma3", backend: "cpu" });
    expect(typeof doc.answer === "string" || doc.answer === null).toBe(true);
    expect(stderr).toMatch(/loaded .*tiny-gemma3\.gguf \(gemma3/);
    const traced = EventStream.fromJSONL(readFileSync(trace, "utf8")).toArray();
    expect(traced).toEqual(doc.events);
  }, 180_000);

  it("prints only the answer on stdout without --json", async () => {
    const { code, stdout } = await run([
      "ask",
      "Say hi",
      "--model",
      script("hi.json", [{ final_answer: "Hi there." }]),
      "--quiet",
    ]);
    expect(code).toBe(0);
    expect(stdout).toBe("Hi there.\n");
  });

  it("exits 1 when the run ends without an answer", async () => {
    const { code, stdout } = await run([
      "ask",
      "q",
      "--model",
      script("loop.json", ["nonsense", "more nonsense"]),
      "--max-iterations",
      "2",
      "--json",
      "--quiet",
    ]);
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ answer: null, stopReason: "max_iterations", iterations: 2 });
  });

  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)(
    "%s aborts the run cleanly: exit %i, and the trace holds every event up to the abort",
    async (signal, exitCode) => {
      const trace = join(work, `interrupted-${signal}.jsonl`);
      let sent = false;
      const { code } = await run(
        [
          "ask",
          "Count forever",
          "--model",
          fixture,
          "--max-iterations",
          "200",
          "--max-retries",
          "200",
          "--max-tokens",
          "8",
          "--no-grammar",
          "--trace",
          trace,
        ],
        {
          onStderr: (_text, child) => {
            if (sent || !existsSync(trace) || readFileSync(trace, "utf8").split("\n").length < 3) return;
            sent = true;
            child.kill(signal);
          },
        },
      );
      expect(sent).toBe(true);
      expect(code).toBe(exitCode);
      const events = EventStream.fromJSONL(readFileSync(trace, "utf8")).toArray();
      expect(events.length).toBeGreaterThanOrEqual(2);
      expect(events.at(-1)!.type).toBe("aborted");
    },
    180_000,
  );
});

describe("bad input: exit 2 and one clear line, no stack trace", () => {
  const oneLine = (stderr: string) =>
    stderr
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("gemma-agent:") || l.startsWith("error:"));

  it.each([
    [["ask", "hi", "--max-iterations", "abc"], /expected a whole number, got "abc"/],
    [["ask", "hi", "--max-iterations", "-1"], /expected a whole number >= 1/],
    [["ask", "hi", "--nope"], /unknown option '--nope'/],
  ])("%j", async (args, message) => {
    const { code, stderr, stdout } = await run(args);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it("missing, non-GGUF, truncated and directory model files", async () => {
    const notGguf = join(work, "notes.gguf");
    writeFileSync(notGguf, "these are not weights");
    const truncated = join(work, "truncated.gguf");
    const head = Buffer.alloc(4096);
    const fd = openSync(fixture, "r");
    readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
    writeFileSync(truncated, head);
    const dir = join(work, "dir.gguf");
    mkdirSync(dir, { recursive: true });
    for (const [path, message] of [
      [join(work, "missing.gguf"), /no model file at/i],
      [notGguf, /not a GGUF/i],
      [truncated, /corrupt|truncated/i],
      [dir, /directory/i],
    ] as const) {
      const { code, stderr, stdout } = await run(["ask", "hi", "--model", path]);
      expect(code, stderr).toBe(2);
      expect(stdout).toBe("");
      expect(oneLine(stderr)).toHaveLength(1);
      expect(oneLine(stderr)[0]).toMatch(message);
      expect(stderr).not.toMatch(/\n\s+at /);
    }
  }, 60_000);

  it("a missing default model names the pull command", async () => {
    const { code, stderr } = await run(["ask", "hi"]);
    expect(code).toBe(2);
    expect(stderr).toContain("run: node dist/cli/main.js pull gemma-4-e2b:Q4_K_M");
  });
});

describe("read_file is confined to --allow-dir", () => {
  it("refuses .., absolute paths and symlinks that leave the folder, as tool-errors, without reading them", async () => {
    const root = mkdtempSync(join(tmpdir(), "ga-allow-"));
    const allowed = join(root, "allowed");
    mkdirSync(allowed);
    writeFileSync(join(root, "secret.txt"), "TOP-SECRET-CONTENT");
    writeFileSync(join(allowed, "notes.txt"), "inside notes");
    symlinkSync(join(root, "secret.txt"), join(allowed, "link.txt"));
    const model = script("files.json", [
      { skill_name: "read_file", arguments: { path: "../secret.txt" } },
      { skill_name: "read_file", arguments: { path: join(root, "secret.txt") } },
      { skill_name: "read_file", arguments: { path: "link.txt" } },
      { skill_name: "read_file", arguments: { path: "notes.txt" } },
      { final_answer: "done" },
    ]);
    const { code, stdout } = await run([
      "ask",
      "read the secret",
      "--model",
      model,
      "--allow-dir",
      allowed,
      "--skills",
      "read_file",
      "--json",
      "--quiet",
    ]);
    expect(code).toBe(0);
    expect(stdout).not.toContain("TOP-SECRET-CONTENT");
    const events = JSON.parse(stdout).events as { type: string; message?: string; result?: string }[];
    const outcomes = events.filter((e) => e.type === "tool-error" || e.type === "observation");
    expect(outcomes.map((e) => e.type)).toEqual(["tool-error", "tool-error", "tool-error", "observation"]);
    expect(outcomes[0].message).toMatch(/outside/i);
    expect(outcomes[1].message).toMatch(/outside/i);
    expect(outcomes[2].message).toMatch(/symlink|outside/i);
    expect(outcomes[3].result).toContain("inside notes");
  });

  it("without --allow-dir, file skills are not there at all, whatever the model writes", async () => {
    const model = script("nofiles.json", [
      { skill_name: "read_file", arguments: { path: "/etc/passwd" } },
      { final_answer: "ok" },
    ]);
    const { stdout } = await run(["ask", "q", "--model", model, "--json", "--quiet"]);
    const events = JSON.parse(stdout).events as { type: string; errorType?: string }[];
    expect(events[0]).toMatchObject({ type: "validation-error", errorType: "unknown_skill" });
    expect(stdout).not.toContain("root:x:0:0");
  });
});
