/**
 * Crafted model files through the built CLI (issue 18 §1): `ask`, `inspect`, `eval` and `pull` refuse a crafted GGUF
 * header with one typed line naming the field and its byte offset and exit 2; `models` lists the file with that error
 * and exits 0 (it never fails for a bad file: README, "Models"). A FIFO given as --model is refused at once. Downloads
 * come from 127.0.0.1 only.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFileServer, type FileServer } from "../model-files/file-server.js";
import { baseGguf } from "../reliability/crafted-gguf.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const models = mkdtempSync(join(tmpdir(), "ga-crafted-cli-"));
afterAll(() => rmSync(models, { recursive: true, force: true }));

/** The 1 KB file that aborted the process: the first key's length set to 2^31. */
function craftedBytes(): Buffer {
  const { bytes, fields } = baseGguf();
  bytes.writeBigUInt64LE(2n ** 31n, fields.find((f) => f.name === "length of key general.architecture")!.offset);
  return bytes;
}
/** What every refusal of that file says: the field and its byte offset. */
const FIELD_AND_OFFSET = /at byte 24: metadata key is 2147483648, more than the file can hold/;

/** Runs the CLI; resolves with its exit code, output and how long it took (killed after 20 s). */
function cli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve) => {
    const start = performance.now();
    const child = spawn(process.execPath, [join(ROOT, "dist/cli/main.js"), ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - start });
    });
  });
}

/** The lines the CLI writes for a setup error (a `CodedError`): `gemma-agent: ...`, never "unexpected error". */
const errorLines = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("gemma-agent:"));

describe("a crafted model file through the CLI (issue 18 §1)", () => {
  const path = join(models, "crafted.gguf");
  beforeAll(() => writeFileSync(path, craftedBytes()));

  it("ask, inspect and eval refuse it with one typed line naming the field and offset, exit 2, alive", async () => {
    for (const args of [
      ["ask", "hi", "--model", path],
      ["inspect", "--model", path],
      ["eval", "evals/basic.json", "--model", path, "--limit", "1"],
    ]) {
      const run = await cli(args);
      expect(run.code, `${args[0]}: ${run.stderr}`).toBe(2);
      const lines = errorLines(run.stderr);
      expect(lines, args[0]).toHaveLength(1);
      expect(lines[0], args[0]).toMatch(/corrupt GGUF header/);
      expect(lines[0], args[0]).toMatch(FIELD_AND_OFFSET);
      expect(run.stderr, args[0]).not.toMatch(/unexpected error|Abort|core dumped/i);
    }
  }, 60_000);

  it("models lists it as unusable with that error (exit 0: models never fails for a bad file), in the table and --json", async () => {
    const table = await cli(["models"], { GEMMA_AGENT_MODELS: models });
    expect(table.code, table.stderr).toBe(0);
    const row = table.stdout.split("\n").find((line) => line.startsWith("crafted.gguf"));
    expect(row).toMatch(/unusable: corrupt GGUF header/);
    expect(row).toMatch(FIELD_AND_OFFSET);

    const json = await cli(["models", "--json"], { GEMMA_AGENT_MODELS: models });
    expect(json.code, json.stderr).toBe(0);
    const local = (JSON.parse(json.stdout) as { local: Array<{ fileName: string; error?: string }> }).local;
    expect(local.find((m) => m.fileName === "crafted.gguf")?.error).toMatch(FIELD_AND_OFFSET);
  }, 60_000);

  it("a FIFO given as --model is refused at once instead of hanging", async () => {
    const fifo = join(models, "fifo.gguf");
    execFileSync("mkfifo", [fifo]);
    try {
      for (const args of [
        ["ask", "hi", "--model", fifo],
        ["inspect", "--model", fifo],
      ]) {
        const run = await cli(args);
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toMatch(/not a regular file/);
        expect(run.ms).toBeLessThan(10_000);
      }
    } finally {
      rmSync(fifo);
    }
  }, 60_000);
});

describe("pull of a crafted model file from 127.0.0.1 (issue 18 §1, §3)", () => {
  let server: FileServer;
  beforeAll(async () => {
    server = await startFileServer(craftedBytes(), 0);
  });
  afterAll(() => server?.close());

  it("the final check refuses it (no size or hash given) with one typed line, exit 2, and leaves no file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ga-crafted-pull-"));
    try {
      const run = await cli(["pull", `${server.origin}/ok/crafted.gguf`], { GEMMA_AGENT_MODELS: dir });
      expect(server.requests.map((r) => r.path)).toEqual(["/ok/crafted.gguf"]);
      expect(run.code, run.stderr).toBe(2);
      const lines = errorLines(run.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/served a damaged GGUF file \(corrupt GGUF header/);
      expect(lines[0]).toMatch(FIELD_AND_OFFSET);
      expect(lines[0]).toMatch(/it was deleted/);
      // never reported as downloaded: no path on stdout, no success line, nothing left in the models folder
      expect(run.stdout).toBe("");
      expect(run.stderr).not.toMatch(/\bdownloaded\b/);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
