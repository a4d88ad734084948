/**
 * A newcomer's first run, as the README's "Set up" walks it: the built CLI spawned the ways people start it (node,
 * npm start, a `gemma-agent` on the PATH, npx), offline. Nothing here downloads anything.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { formatBytes } from "../../src/cli/format.js";
import { invocation, withInvocation } from "../../src/cli/invocation.js";
import { describePull } from "../../src/cli/model-setup.js";
import { catalogFileFor, findCatalogEntry } from "../../src/model/catalog.js";
import { gemmaLikeGguf } from "../helpers/gemma-like-gguf.js";

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = join(ROOT, "dist/cli/main.js");
const README = readFileSync(join(ROOT, "README.md"), "utf8");

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment without what npm or npx put there for whatever ran the tests (that changes how hints read). */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("npm_")) env[key] = value;
  return { ...env, GEMMA_AGENT_MODELS: mkdtempSync(join(tmpdir(), "ga-first-")), ...extra };
}

function spawnRun(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: string } = {},
): Promise<Result> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: ROOT, env: options.env ?? cleanEnv(), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.stdin.end(options.input ?? "");
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", fail);
    child.on("close", (code) => (clearTimeout(timer), done({ code, stdout, stderr })));
  });
}

const cli = (args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}) =>
  spawnRun(process.execPath, [CLI, ...args], options);

/** Shell words of a README command line (double quotes only, as the README writes them). */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
}

/** The `npm start -s -- ...` commands of the README's "Set up" section, in order, without their comments. */
function setUpCommands(): string[][] {
  const section = README.slice(README.indexOf("## Set up"), README.indexOf("\n## ", README.indexOf("## Set up") + 1));
  return section
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line.startsWith("npm start -s -- "))
    .map((line) => words(line.slice("npm start -s -- ".length)));
}

describe("how the tool was started decides how its hints read", () => {
  it.each([
    [{ npm_lifecycle_event: "npx" }, "/x/node_modules/.bin/gemma-agent", "npx gemma-agent"],
    [{ npm_lifecycle_event: "start", npm_package_name: "gemma-agent" }, `${ROOT}/dist/cli/main.js`, "npm start --"],
    [{ npm_lifecycle_event: "start", npm_package_name: "someone-else" }, "/usr/local/bin/gemma-agent", "gemma-agent"],
    [{}, "/usr/local/bin/gemma-agent", "gemma-agent"],
    [{}, "/home/me/app/node_modules/.bin/gemma-agent", "npx gemma-agent"],
    [{}, `${ROOT}/dist/cli/main.js`, "node dist/cli/main.js"],
    [{}, "C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\gemma-agent\\dist\\cli\\main.js", "gemma-agent"],
    [{}, undefined, "gemma-agent"],
  ])("%j %s → %s", (env, script, expected) => {
    expect(invocation(env, script, ROOT)).toBe(expected);
  });

  it("rewrites the commands a message suggests, and only those", () => {
    const line = "Model x is not downloaded; run: gemma-agent pull x (see gemma-agent models), or update gemma-agent.";
    expect(withInvocation(line, "npm start --")).toBe(
      "Model x is not downloaded; run: npm start -- pull x (see npm start -- models), or update gemma-agent.",
    );
    expect(withInvocation("run: npx gemma-agent pull x", "npx gemma-agent")).toBe("run: npx gemma-agent pull x");
    expect(withInvocation(line, "gemma-agent")).toBe(line);
  });
});

describe("the README's Set up, command by command", () => {
  it("its first command answers offline, from scripted replies, through the real loop and calculator", async () => {
    const [first] = setUpCommands();
    expect(first).toEqual(["ask", "What is 17% of 2,340?", "--model", "script:examples/replies/percent.json"]);
    const { code, stdout, stderr } = await cli(first);
    expect(code, stderr).toBe(0);
    expect(stdout).toBe("17% of 2,340 is 397.8.\n");
    expect(stderr).toContain('[1] → calculator {"expression":"0.17 * 2340"}');
    expect(stderr).toContain("[1]   = 397.8"); // the skill really ran
    expect(stderr).toMatch(/answered in 2 steps/);
    // the README shows the same lines
    for (const line of ['  [1] → calculator {"expression":"0.17 * 2340"}', "  [1]   = 397.8", "17% of 2,340 is 397.8."])
      expect(README).toContain(line);
  });

  it("its next command is a real model, the smallest of the catalog; without a terminal it names the pull command as started", async () => {
    const [, second] = setUpCommands();
    expect(second).toEqual(["ask", "What is 17% of 2,340?", "--model", "gemma-3-270m"]);
    const entry = findCatalogEntry("gemma-3-270m")!;
    const size = formatBytes(catalogFileFor(entry)!.sizeBytes);
    expect(README).toContain(`asks before downloading ${size}`);
    const { code, stderr } = await cli(second);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(
      "gemma-agent: model gemma-3-270m is not downloaded; run: node dist/cli/main.js pull gemma-3-270m",
    );
  });

  it("npm start -s: stdout is the tool's alone (`--json | jq` works), and hints say `npm start --`", async () => {
    const env = cleanEnv();
    const json = await spawnRun(
      "npm",
      [
        "start",
        "-s",
        "--",
        "ask",
        "What is 17% of 2,340?",
        "--model",
        "script:examples/replies/percent.json",
        "--json",
      ],
      { env },
    );
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ answer: "17% of 2,340 is 397.8.", stopReason: "answer" });
    const missing = await spawnRun("npm", ["start", "-s", "--", "ask", "hi"], { env });
    expect(missing.stderr).toContain("run: npm start -- pull gemma-4-e2b:Q4_K_M");
  }, 60_000);

  it("a gemma-agent on the PATH says gemma-agent; --version is this package's version, whatever npm says", async () => {
    const bin = mkdtempSync(join(tmpdir(), "ga-bin-"));
    symlinkSync(CLI, join(bin, "gemma-agent"));
    const missing = await spawnRun(process.execPath, [join(bin, "gemma-agent"), "ask", "hi"]);
    expect(missing.stderr.trim()).toBe(
      "gemma-agent: model gemma-4-e2b:Q4_K_M is not downloaded; run: gemma-agent pull gemma-4-e2b:Q4_K_M",
    );
    const version = await cli(["--version"], { env: cleanEnv({ npm_package_version: "9.9.9" }) });
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version);
  });
});

describe("--model script:FILE", () => {
  const dir = mkdtempSync(join(tmpdir(), "ga-script-"));
  const script = (name: string, replies: unknown) => (
    writeFileSync(join(dir, name), JSON.stringify(replies)),
    `script:${join(dir, name)}`
  );

  it("takes action objects, raw strings, or both; a lone answer is `answered in 1 step`", async () => {
    const objects = await cli([
      "ask",
      "q",
      "--model",
      script("objects.json", [{ skill_name: "calculator", arguments: { expression: "6*7" } }, { final_answer: "42" }]),
      "--json",
      "--quiet",
    ]);
    expect(JSON.parse(objects.stdout)).toMatchObject({ answer: "42", iterations: 2 });
    const mixed = await cli([
      "ask",
      "q",
      "--model",
      script("mixed.json", ["not an action", { final_answer: "ok" }]),
      "--json",
      "--quiet",
    ]);
    const doc = JSON.parse(mixed.stdout);
    expect(doc.events.map((e: { type: string }) => e.type)).toEqual(["validation-error", "final-answer"]);
    const one = await cli(["ask", "q", "--model", script("one.json", [{ final_answer: "yes" }])]);
    expect(one.stderr).toMatch(/answered in 1 step,/);
  });

  it("refuses anything else in one line, saying what a reply may be", async () => {
    for (const [name, content] of [
      ["number.json", [{ final_answer: "x" }, 7]],
      ["object.json", { final_answer: "x" }],
      ["nested.json", [[]]],
    ] as const) {
      const { code, stderr } = await cli(["ask", "q", "--model", script(name, content)]);
      expect(code).toBe(2);
      expect(stderr.trim().split("\n")).toHaveLength(1);
      expect(stderr).toMatch(/expected a JSON array of replies, each an action object .* or a string of raw text/);
    }
  });

  it("the example files run as documented", async () => {
    const recovers = await cli([
      "ask",
      "How many km is 26.2 miles?",
      "--model",
      "script:examples/replies/recovers.json",
      "--json",
    ]);
    const doc = JSON.parse(recovers.stdout);
    expect(doc.stopReason).toBe("answer");
    expect(doc.events.map((e: { type: string }) => e.type)).toEqual([
      "validation-error",
      "call-skill",
      "observation",
      "final-answer",
    ]);
  });
});

describe("the models people already have", () => {
  it("--model my-own finds my-own.gguf in a second models folder's subfolder; a file named like a catalog file but not one is warned about", async () => {
    const root = mkdtempSync(join(tmpdir(), "ga-own-"));
    const lm = join(root, "lmstudio", "me", "repo");
    mkdirSync(lm, { recursive: true });
    writeFileSync(join(lm, "my-own.gguf"), "this is not a model\n");
    const env = cleanEnv({ GEMMA_AGENT_MODELS: [join(root, "cache"), join(root, "lmstudio")].join(":") });
    const own = await cli(["ask", "hi", "--model", "my-own"], { env });
    expect(own.code).toBe(2);
    expect(own.stderr).toContain(`${join(lm, "my-own.gguf")} is not a GGUF model file`); // found, then refused for what it is
    writeFileSync(join(lm, "gemma-3-270m-it-Q8_0.gguf"), gemmaLikeGguf({ fileType: 15 }));
    const misnamed = await cli(["ask", "hi", "--model", "gemma-3-270m"], { env });
    expect(misnamed.stderr).toContain(
      `gemma-agent: warning: ${join(lm, "gemma-3-270m-it-Q8_0.gguf")} is named like the catalog's gemma-3-270m:Q8_0, but its header says Q4_K_M and it has 0 MB, where gemma-3-270m:Q8_0 is Q8_0, about 292 MB.`,
    );
    const listed = await cli(["models"], { env });
    expect(listed.stdout).toMatch(
      /me\/repo\/gemma-3-270m-it-Q8_0\.gguf .*named like gemma-3-270m:Q8_0, but its header says Q4_K_M/,
    );
    expect(listed.stdout).toContain(`GGUF files in ${join(root, "lmstudio")}`);
  });
});

describe("the download progress line", () => {
  const base = { receivedBytes: 0, bytesPerSecond: 0, stallTimeoutMs: 60_000, host: "huggingface.co" };
  it("says what it waits for and for how long, then size, speed and time left, then how long no data came", () => {
    expect(describePull("gemma-3-270m", { ...base, phase: "connecting", idleMs: 12_300 })).toBe(
      "gemma-3-270m: waiting for huggingface.co to answer (12s; gives up after 1m 00s)",
    );
    expect(
      describePull("gemma-3-270m", {
        ...base,
        phase: "receiving",
        idleMs: 100,
        receivedBytes: 120e6,
        totalBytes: 291.5e6,
        bytesPerSecond: 10e6,
        etaSeconds: 17,
      }),
    ).toBe("gemma-3-270m 120.0 MB / 291.5 MB (41%) 10.0 MB/s, 17s left");
    expect(
      describePull("gemma-3-270m", {
        ...base,
        phase: "receiving",
        idleMs: 5_000,
        receivedBytes: 120e6,
        totalBytes: 291.5e6,
      }),
    ).toBe("gemma-3-270m 120.0 MB / 291.5 MB (41%): no data from huggingface.co for 5s; gives up after 1m 00s");
  });
});
