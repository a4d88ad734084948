/**
 * The CLI in a real pseudo-terminal (util-linux `script` allocates one), answered as a person would: the
 * `--approve` questions, the offer to download (or resume) a missing model, Ctrl-C typed at a question, during a
 * scripted evaluation and during one on the fixture model, and a download that waits on a silent server.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { EventStream } from "../../src/agent/event-stream.js";
import { fixtureModelPath } from "../helpers/fixture-model.js";

const CLI = resolve("dist/cli/main.js");
/** A terminal session is not CI: drop the variable so the spinner and questions behave as for a person. */
function withoutCI(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  // nor npm's: the CLI is started as `node dist/cli/main.js`, and its hints say so
  const { CI: _ci, npm_lifecycle_event: _npm, ...rest } = env;
  return rest;
}
const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;

/** Ctrl-C as a terminal sends it: the pty turns the byte into SIGINT for the foreground processes (or, in raw mode, a key). */
const CTRL_C = "\x03";

interface Session {
  code: number | null;
  screen: string;
  /** `Date.now()` when the session ended. */ endedAt: number;
}

/**
 * Run the CLI under a pty. `onScreen` sees the whole screen output so far after each chunk and may type into the
 * terminal. The session is killed after `killAfterMs`, so a stuck CLI never outlives its test.
 */
function terminalSession(
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    onScreen?: (screen: string, type: (text: string) => void) => void;
    killAfterMs?: number;
  } = {},
): Promise<Session> {
  return new Promise((done, fail) => {
    const command = `stty cols 120 rows 40; ${[process.execPath, CLI, ...args].map(quote).join(" ")}`;
    const child = spawn("script", ["-q", "-e", "-f", "-c", command, "/dev/null"], {
      env: withoutCI({ ...process.env, ...options.env }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let screen = "";
    const type = (text: string) => child.stdin.write(text);
    child.stdout.on("data", (d) => {
      screen += d;
      options.onScreen?.(screen, type);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.killAfterMs ?? 30_000);
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, screen, endedAt: Date.now() });
    });
  });
}

/** Run the CLI under a pty; each time `prompt` appears in the screen output, type the next answer. */
async function inTerminal(
  args: string[],
  prompt: RegExp,
  answers: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; screen: string }> {
  let answered = 0;
  return terminalSession(args, {
    env,
    onScreen: (screen, type) => {
      const seen = screen.match(new RegExp(prompt.source, "g"))?.length ?? 0;
      while (answered < seen && answered < answers.length) type(`${answers[answered++]}\r`);
    },
  });
}

/**
 * Start an eval on a terminal and press Ctrl-C once `ready` shows on the screen, then (with `twice`) again as soon as
 * the CLI says it is stopping. Returns the session and when the first Ctrl-C went.
 */
async function interruptEval(
  args: string[],
  ready: RegExp,
  twice: boolean,
  killAfterMs: number,
): Promise<Session & { pressedAt: number }> {
  let pressedAt = 0;
  let second = false;
  const session = await terminalSession(args, {
    killAfterMs,
    onScreen: (screen, type) => {
      if (!pressedAt && ready.test(screen)) {
        pressedAt = Date.now();
        type(CTRL_C);
      } else if (twice && pressedAt && !second && screen.includes("Ctrl-C again to quit now")) {
        second = true;
        type(CTRL_C);
      }
    },
  });
  expect(pressedAt, session.screen.slice(-2000)).toBeGreaterThan(0);
  return { ...session, pressedAt };
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
    expect(events.ofType("call-skill")[1]).toMatchObject({
      arguments: { expression: "5*5" },
      originalArguments: { expression: "3*3" },
    });
    expect(events.ofType("observation").map((o) => o.result)).toEqual(["25", "5"]);
  }, 60_000);

  it("an edited call that is then refused shows the edited arguments on its step line, not the model's", async () => {
    const work = mkdtempSync(join(tmpdir(), "ga-tty-"));
    writeFileSync(
      join(work, "script.json"),
      JSON.stringify([{ skill_name: "calculator", arguments: { expression: "3*3" } }, { final_answer: "done" }]),
    );
    const { code, screen } = await inTerminal(
      ["ask", "math", "--model", `script:${join(work, "script.json")}`, "--approve"],
      /\[y\]es \/ \[n\]o \/ \[e\]dit: |New arguments \(JSON\): /,
      ["e", '{"expression": 5}'],
    );
    expect(code, screen).toBe(0);
    expect(screen).toContain('[1] → calculator {"expression":5} (corrected from {"expression":"3*3"})');
    expect(screen).toMatch(/\[1\] +✗ calculator \[approval\]: the corrected arguments are invalid/);
  }, 60_000);

  it("offers to download a missing default model, and a no gives the pull command", async () => {
    const models = mkdtempSync(join(tmpdir(), "ga-models-"));
    const { code, screen } = await inTerminal(["ask", "hi"], /Download it to .* now\? \[y\/N\] /, ["n"], {
      GEMMA_AGENT_MODELS: models,
    });
    expect(screen).toMatch(/Gemma 4 E2B .*\(gemma-4-e2b:Q4_K_M, 3\.11 GB\) is not downloaded/);
    expect(screen).toContain("run: node dist/cli/main.js pull gemma-4-e2b:Q4_K_M");
    expect(code).toBe(2);
  }, 60_000);

  it("Ctrl-C at the download question exits 130, not 2", async () => {
    const models = mkdtempSync(join(tmpdir(), "ga-models-"));
    let pressed = false;
    const { code, screen } = await terminalSession(["ask", "hi"], {
      env: { GEMMA_AGENT_MODELS: models },
      onScreen: (text, type) => {
        if (!pressed && /now\? \[y\/N\] /.test(text)) {
          pressed = true;
          type(CTRL_C);
        }
      },
    });
    expect(pressed).toBe(true);
    expect(code, screen).toBe(130);
    expect(screen).not.toMatch(/run: .* pull/);
  }, 60_000);

  it("a partial download is offered for resuming, with the bytes already there", async () => {
    const models = mkdtempSync(join(tmpdir(), "ga-models-"));
    writeFileSync(join(models, "gemma-3-270m-it-Q8_0.gguf.part"), Buffer.alloc(40_000_000));
    const { code, screen } = await inTerminal(["ask", "hi", "--model", "gemma-3-270m"], /now\? \[y\/N\] /, ["n"], {
      GEMMA_AGENT_MODELS: models,
    });
    expect(screen).toMatch(
      /Gemma 3 270M .*\(gemma-3-270m, 291\.5 MB\) is partly downloaded \(40\.0 MB of 291\.5 MB\)\. Resume the download to .* now\? \[y\/N\]/,
    );
    expect(screen).toContain("run: node dist/cli/main.js pull gemma-3-270m to resume");
    expect(code).toBe(2);
  }, 60_000);

  it("a download from a server that answers nothing shows what it waits for and for how long, then gives up in one clear line", async () => {
    const sockets = new Set<import("node:net").Socket>();
    const server: Server = createServer(() => {}); // takes every request, answers none
    server.on("connection", (socket) => sockets.add(socket));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const { code, screen } = await terminalSession(["pull", `http://${host}/model.gguf`], {
        env: { GEMMA_AGENT_MODELS: mkdtempSync(join(tmpdir(), "ga-pull-")), GEMMA_AGENT_DOWNLOAD_TIMEOUT: "4" },
      });
      expect(screen).toMatch(new RegExp(`waiting for ${host} to answer \\([1-3]s; gives up after 4s\\)`));
      expect(screen).toContain(
        `gemma-agent: No answer from ${host} in 4 s: the request went out but nothing came back.`,
      );
      expect(code).toBe(2);
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  }, 60_000);
});

describe("Ctrl-C during an evaluation", () => {
  // 36 tasks × 12 budgets × 300 seeds = 129,600 scripted runs: tens of seconds of work, all in one process
  const long = [
    "eval",
    "evals/basic.json",
    "--model",
    "profile:chaotic",
    "--budgets",
    "1,2,3,4,5,6,7,8,9,10,11,12",
    "--seeds",
    "300",
  ];
  const progress = /\] [1-9]\d*\/129600 profile:chaotic/;

  it("scripted: the first Ctrl-C stops starting runs, writes a partial report marked interrupted, and exits 130 promptly", async () => {
    const out = mkdtempSync(join(tmpdir(), "ga-eval-"));
    const session = await interruptEval([...long, "--out", out], progress, false, 120_000);
    expect(session.code, session.screen.slice(-2000)).toBe(130);
    expect(session.endedAt - session.pressedAt).toBeLessThan(10_000);
    expect(session.screen).toContain("Interrupted: partial results.");
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8"));
    expect(report.interrupted).toBe(true);
    expect(report.runs.length).toBeGreaterThan(0);
    expect(report.runs.length).toBeLessThan(129_600);
  }, 150_000);

  it("scripted: a second Ctrl-C exits at once", async () => {
    const session = await interruptEval(long, progress, true, 120_000);
    expect(session.code).toBe(130);
    expect(session.endedAt - session.pressedAt).toBeLessThan(10_000);
  }, 150_000);

  it("on the fixture model (a child process, mid-generation): Ctrl-C stops the run in flight and writes the partial report; a second quits", async () => {
    const fixture = fixtureModelPath();
    const out = mkdtempSync(join(tmpdir(), "ga-eval-"));
    const args = [
      "eval",
      "evals/basic.json",
      "--model",
      fixture,
      "--budgets",
      "1",
      "--limit",
      "3",
      "--threads",
      "1",
      "--out",
      out,
    ];
    // the first run done: the second is generating when Ctrl-C comes
    const once = await interruptEval(args, /\] 1\/3 tiny-gemma3\.gguf/, false, 170_000);
    expect(once.code, once.screen.slice(-2000)).toBe(130);
    expect(once.endedAt - once.pressedAt).toBeLessThan(15_000);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8"));
    expect(report).toMatchObject({ interrupted: true });
    expect(report.runs).toHaveLength(1); // the run Ctrl-C cut short measured nothing, and is not a failure
    const twice = await interruptEval(args.slice(0, -2), /\] 1\/3 tiny-gemma3\.gguf/, true, 170_000);
    expect(twice.code).toBe(130);
    expect(twice.endedAt - twice.pressedAt).toBeLessThan(15_000);
  }, 400_000);
});
