/**
 * Ctrl-C while a model loads stops within a second: the library's `loadModel({ signal })` rejects with an AbortError as
 * soon as the signal aborts (llama.cpp's load is told to stop too), and the CLI exits 130 at once, not after the load.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadModel } from "../../src/model/llama/index.js";
import { fixtureModelPath } from "../helpers/fixture-model.js";

const CLI = resolve("dist/cli/main.js");
let fixture: string;

beforeAll(() => {
  fixture = fixtureModelPath();
});

describe("stopping a load", () => {
  it("an abort during the load rejects within a second of it", async () => {
    const controller = new AbortController();
    let abortedAt = 0;
    const load = loadModel({
      model: fixture,
      gpu: false,
      threads: 1,
      signal: controller.signal,
      onProgress: () => {
        if (abortedAt) return;
        abortedAt = performance.now();
        controller.abort();
      },
    });
    const error = await load.catch((e: unknown) => e);
    expect(abortedAt).toBeGreaterThan(0);
    expect((error as Error).name).toBe("AbortError");
    expect(performance.now() - abortedAt).toBeLessThan(1000);
  });

  it("an aborted signal refuses to load: an AbortError, no model", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await loadModel({ model: fixture, gpu: false, threads: 1, signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe("AbortError");
  });

  it("the CLI, interrupted while it loads the model, exits 130 within a second", async () => {
    const child = spawn(process.execPath, [CLI, "ask", "What is 2+2?", "--model", fixture, "--threads", "1"], {
      env: { ...process.env, CI: "1", npm_lifecycle_event: undefined },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let sentAt = 0;
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      if (!sentAt && stderr.includes("loading")) {
        sentAt = performance.now();
        child.kill("SIGINT");
      }
    });
    const code = await new Promise<number | null>((done) => child.on("close", done));
    expect(sentAt, stderr).toBeGreaterThan(0);
    expect(stderr).not.toMatch(/^loaded /m);
    expect(code).toBe(130);
    expect(performance.now() - sentAt).toBeLessThan(1000);
  }, 60_000);
});
