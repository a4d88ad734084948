/**
 * Faults a real server cannot be made to show on cue, injected by the fake server on 127.0.0.1: retries with backoff
 * on dropped connections, 429 and 503 (Retry-After honoured), none on other 4xx, the idle timeout on a hang or a
 * drip slower than it, abort cancelling the HTTP request, and clear typed errors.
 */
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { HttpModelError, openAICompatibleModel } from "../../src/model/http/index.js";
import { Registry } from "../../src/skills/registry.js";
import { retryDelayMs } from "../../src/model/http/retry.js";
import { RETRY_MAX_DELAY_MS } from "../../src/model/http/defaults.js";
import { startFakeServer, type FakeServer } from "./fake-server.js";

let servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function fake(options: Partial<Parameters<typeof startFakeServer>[0]> = {}): Promise<FakeServer> {
  const server = await startFakeServer({ dialect: "llama-server", ...options });
  servers.push(server);
  return server;
}

/** A handle on `server` with a fast, recorded backoff (jitter taken at its maximum: random() = 0.999). */
function handle(server: FakeServer, options: Partial<Parameters<typeof openAICompatibleModel>[0]> = {}) {
  const waits: { code: string; status?: number; delayMs: number }[] = [];
  const model = openAICompatibleModel({
    baseURL: server.baseURL,
    model: "fake-model",
    dialect: "llama-server",
    random: () => 0.999,
    onRetry: (error, _retry, delayMs) =>
      waits.push({ code: error.code, ...(error.status !== undefined && { status: error.status }), delayMs }),
    ...options,
  });
  return { model, waits };
}

/** A port on 127.0.0.1 with nothing listening. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe("retries", () => {
  it("503 and 429 are retried with growing, jittered waits, and a Retry-After is honoured", async () => {
    const server = await fake();
    server.faults.push(
      { kind: "status", status: 503 },
      { kind: "status", status: 429, retryAfter: "1" },
      { kind: "status", status: 503 },
    );
    const { model, waits } = handle(server);
    const started = performance.now();
    expect(JSON.parse(await model.generate("x"))).toEqual({ final_answer: "done" });
    expect(waits.map((w) => w.status)).toEqual([503, 429, 503]);
    // full jitter at random() = 0.999: just under 250, (Retry-After 1 s wins over ~500), just under 1000 ms
    expect(waits.map((w) => w.delayMs)).toEqual([249, 1000, 999]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(2200);
    expect(server.generateRequests()).toHaveLength(4);
    expect(model.retriesMade).toBe(3);
  });

  it("the jitter spreads waits between 0 and the exponential ceiling, capped", () => {
    expect(retryDelayMs(0, undefined, () => 0)).toBe(0);
    expect(retryDelayMs(3, undefined, () => 0.5)).toBe(1000);
    expect(retryDelayMs(20, undefined, () => 0.999)).toBeLessThanOrEqual(RETRY_MAX_DELAY_MS);
    expect(retryDelayMs(0, 60_000, () => 0)).toBe(RETRY_MAX_DELAY_MS);
  });

  for (const status of [400, 401, 404, 422, 500]) {
    it(`${status} is not retried: one request, a typed error with the server's message`, async () => {
      const server = await fake();
      server.faults.push({
        kind: "status",
        status,
        body: JSON.stringify({ error: { message: `bad thing ${status}` } }),
      });
      const { model, waits } = handle(server);
      const error = await model.generate("x").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HttpModelError);
      expect(error).toMatchObject({ code: "http_error", status });
      expect((error as Error).message).toContain(`answered ${status}: bad thing ${status}`);
      expect(waits).toEqual([]);
      expect(server.generateRequests()).toHaveLength(1);
    });
  }

  it("a dropped connection is retried; one that keeps dropping ends unreachable after the retries", async () => {
    const server = await fake();
    server.faults.push({ kind: "drop" }, { kind: "drop-mid", pieces: 2 });
    const { model, waits } = handle(server);
    expect(JSON.parse(await model.generate("x"))).toEqual({ final_answer: "done" });
    expect(waits.map((w) => w.code)).toEqual(["unreachable", "unreachable"]);

    server.faults.push({ kind: "drop" }, { kind: "drop" }, { kind: "drop" });
    const { model: twice } = handle(server, { retries: 2 });
    const before = server.generateRequests().length;
    await expect(twice.generate("x")).rejects.toMatchObject({ code: "unreachable" });
    expect(server.generateRequests().length - before).toBe(3);
  });

  it("a connection lost after text reached onToken is not retried (the text was shown)", async () => {
    const server = await fake();
    server.faults.push({ kind: "drop-mid", pieces: 2 });
    const { model, waits } = handle(server);
    const shown: string[] = [];
    const error = await model.generate("x", { onToken: (t) => shown.push(t) }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "unreachable" });
    expect((error as Error).message).toContain("after part of the reply was streamed");
    expect(shown.join("")).toBe('{"final_answer"'.slice(0, 8));
    expect(waits).toEqual([]);
  });

  it("a server that is not there: unreachable, naming the URL and what to start", async () => {
    const port = await closedPort();
    const model = openAICompatibleModel({
      baseURL: `http://127.0.0.1:${port}/v1`,
      model: "m",
      retries: 1,
      random: () => 0,
    });
    const error = await model.generate("x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpModelError);
    expect(error).toMatchObject({ code: "unreachable" });
    expect((error as Error).message).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}.*ECONNREFUSED.*llama-server -m`));
  });
});

describe("timeouts", () => {
  it("a server that sends headers and then nothing times out after timeoutMs", async () => {
    const server = await fake();
    server.faults.push({ kind: "hang" });
    const { model } = handle(server, { timeoutMs: 300, retries: 0 });
    const started = performance.now();
    const error = await model.generate("x").catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "HttpModelError", code: "timeout" });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("a slow drip within the timeout is a slow reply, not a failure; slower than it is a timeout", async () => {
    const server = await fake();
    server.faults.push({ kind: "drip", everyMs: 60 });
    const { model } = handle(server, { timeoutMs: 400, retries: 0 });
    expect(JSON.parse(await model.generate("x"))).toEqual({ final_answer: "done" });
    server.faults.push({ kind: "drip", everyMs: 700 });
    await expect(model.generate("x")).rejects.toMatchObject({ code: "timeout" });
  });
});

describe("abort", () => {
  it("the signal cancels the HTTP request at once: the server sees the connection closed", async () => {
    const server = await fake();
    server.faults.push({ kind: "hang" });
    const { model } = handle(server);
    const controller = new AbortController();
    const pending = model.generate("x", { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const abortedAt = performance.now();
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect((error as Error).name).toBe("AbortError");
    expect(performance.now() - abortedAt).toBeLessThan(100);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.clientClosed).toBe(1);
  });

  it("an agent run over HTTP aborted mid-request ends 'aborted' at once", async () => {
    const server = await fake();
    server.faults.push({ kind: "hang" });
    const { model } = handle(server);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = performance.now();
    const state = await new Agent({ model, registry: new Registry() }).run("hi", { signal: controller.signal });
    expect(state.stopReason).toBe("aborted");
    expect(performance.now() - started).toBeLessThan(1000);
    expect(state.stream.ofType("aborted")).toHaveLength(1);
  });

  it("an abort during a retry's wait ends the wait", async () => {
    const server = await fake();
    server.faults.push({ kind: "status", status: 503, retryAfter: "5" });
    const { model } = handle(server);
    const controller = new AbortController();
    const pending = model.generate("x", { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const abortedAt = performance.now();
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(performance.now() - abortedAt).toBeLessThan(100);
  });
});

describe("concurrency", () => {
  it("maxConcurrency caps the requests one handle has in flight", async () => {
    const server = await fake({ latencyMs: 80 });
    const { model } = handle(server, { maxConcurrency: 2 });
    await Promise.all(Array.from({ length: 6 }, () => model.generate("x")));
    expect(server.maxInFlight).toBe(2);
    expect(model.stats.totals.calls).toBe(6);
  });
});
