/** `gemma-agent models` and `gemma-agent pull`, spawned as a user runs them; downloads come from 127.0.0.1 only. */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureModelPath } from "../helpers/fixture-model.js";
import { gemmaLikeGguf } from "../helpers/gemma-like-gguf.js";

const CLI = resolve("dist/cli/main.js");
let server: Server;
let base: string;
/** A small file that starts like a GGUF (what pull checks before keeping a download). */
const payload = gemmaLikeGguf({ payloadBytes: 200_000 });

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
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

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/model.gguf") {
      res.writeHead(200, { "content-length": payload.length });
      res.end(payload);
    } else if (req.url === "/cut.gguf") {
      res.writeHead(200, { "content-length": payload.length });
      res.write(payload.subarray(0, 50_000), () => res.destroy());
    } else {
      res.writeHead(404);
      res.end("not here");
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server?.close());

describe("gemma-agent pull", () => {
  it("downloads into the models directory and prints the path", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ga-pull-"));
    const { code, stdout } = await run(["pull", `${base}/model.gguf`], { GEMMA_AGENT_MODELS: dir });
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(join(dir, "model.gguf"));
    expect(
      createHash("sha256")
        .update(readFileSync(join(dir, "model.gguf")))
        .digest("hex"),
    ).toBe(createHash("sha256").update(payload).digest("hex"));
  });

  it("a cut transfer exits 2 with one line, keeps the partial file, and leaves nothing under the final name", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ga-pull-"));
    const { code, stderr } = await run(["pull", `${base}/cut.gguf`], { GEMMA_AGENT_MODELS: dir });
    expect(code).toBe(2);
    expect(stderr.split("\n").filter((l) => l.startsWith("gemma-agent:"))).toHaveLength(1);
    expect(existsSync(join(dir, "cut.gguf"))).toBe(false);
    expect(existsSync(join(dir, "cut.gguf.part"))).toBe(true);
  });

  it("a 404 exits 2 and says so", async () => {
    const { code, stderr } = await run(["pull", `${base}/missing.gguf`], {
      GEMMA_AGENT_MODELS: mkdtempSync(join(tmpdir(), "ga-pull-")),
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/404/);
  });
});

describe("gemma-agent models", () => {
  it("lists the catalog and the GGUF files in the models directory with what their headers say", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ga-models-"));
    symlinkSync(fixtureModelPath(), join(dir, "tiny.gguf"));
    writeFileSync(join(dir, "broken.gguf"), "not a model");
    const { code, stdout } = await run(["models", "--json"], { GEMMA_AGENT_MODELS: dir });
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.default).toBe("gemma-4-e2b:Q4_K_M");
    expect(doc.catalog.map((m: { alias: string }) => m.alias)).toEqual(
      expect.arrayContaining(["gemma-4-e2b", "gemma-3-270m", "functiongemma-270m"]),
    );
    const local = Object.fromEntries(doc.local.map((m: { fileName: string }) => [m.fileName, m]));
    expect(local["tiny.gguf"]).toMatchObject({ architecture: "gemma3", quantization: "F16" });
    expect(local["broken.gguf"].error).toBeTruthy();
    const table = await run(["models"], { GEMMA_AGENT_MODELS: dir });
    expect(table.stdout).toMatch(/gemma-4-e2b:Q4_K_M \*/);
    expect(table.stdout).toMatch(/tiny\.gguf\s+gemma3\s+F16/);
  });
});
