/**
 * Model servers as a hostile one would be (issue 29), on 127.0.0.1 (test/http/fake-server.ts): bodies that never end
 * (a 429 or 500 error, a probe's JSON, a reply's stream), one byte a second, gzip bombs, SSE lines and events that
 * never end, a 100 MB line, a reply that streams on past `--max-tokens`, redirects to another host. Through the built
 * CLI (`ask`, `doctor --server`; its peak RSS read from the child at exit) and through the library (the peak RSS
 * growth of this process sampled while it runs). Each probe must end within its bound, under 300 MB, without an
 * uncaught error; a command that ends on it says so in one line: exit 2 at connect, the run's `model error` line
 * (exit 1, no answer) mid-run, a failed check (exit 1) in `doctor`.
 */
import { afterAll, describe, expect, it } from "vitest";
import { HttpModelError, openAICompatibleModel } from "../../src/model/http/index.js";
import { startFakeServer, type FakeDialect, type FakeServer, type HostileFault } from "../http/fake-server.js";
import {
  generalFailures,
  MAX_PEAK_MB,
  refusalFailures,
  runHostile,
  Tally,
  type CliRun,
} from "../helpers/hostile-cli.js";

const tally = new Tally();
/** The slowest probe and the largest memory any one cost: the CLI's peak RSS, the library's RSS growth. */
const worst = { ms: 0, msProbe: "", cliPeakMb: 0, libraryGrowthMb: 0 };
const measured = (name: string, ms: number) => {
  if (ms > worst.ms) Object.assign(worst, { ms, msProbe: name });
};
afterAll(() =>
  console.log(
    `${tally.line("hostile model servers")}; slowest ${Math.round(worst.ms)} ms (${worst.msProbe}); largest CLI peak RSS ${worst.cliPeakMb.toFixed(0)} MB; largest library RSS growth ${worst.libraryGrowthMb.toFixed(0)} MB`,
  ),
);

const GIB = 1024 * 1024 * 1024;
const MB = 1024 * 1024;

/** A fake llama-server (or `dialect`) with `routes` answering hostile on every request to their paths. */
async function hostileServer(
  routes: Record<string, HostileFault>,
  dialect: FakeDialect = "llama-server",
): Promise<FakeServer> {
  const server = await startFakeServer({ dialect, models: ["m"] });
  Object.assign(server.routeFaults, routes);
  return server;
}

/** One CLI probe: the server it runs against, the arguments, the bound on its time, and what it must say. */
interface CliProbe {
  name: string;
  routes: Record<string, HostileFault>;
  dialect?: FakeDialect;
  args: (url: string) => string[];
  /** The run must end within this (ms). */
  boundMs: number;
  /** `refusal`: one line, exit 2; `model-error`: the run ends without an answer (exit 1) saying `says`; `doctor`: a failed check. */
  ends: "refusal" | "model-error" | "doctor";
  says: RegExp;
  env?: NodeJS.ProcessEnv;
  /** More to check once the run ended (the server's side). */
  after?: (server: FakeServer, run: CliRun) => string[];
}

/** What is wrong with a run of `probe`, or an empty list. */
function judge(probe: CliProbe, run: CliRun): string[] {
  const failures = probe.ends === "refusal" ? refusalFailures(run) : generalFailures(run);
  if (probe.ends !== "refusal" && run.status !== 1) failures.push(`exit ${run.status} (expected 1)`);
  if (probe.ends === "model-error" && !/no answer: (model_error|retries_exhausted)/.test(run.stderr))
    failures.push("the run did not end without an answer");
  if (probe.ends === "doctor" && !/^✗ /m.test(run.stdout))
    failures.push(`no failed check: ${run.stdout.slice(0, 300)}`);
  const said = `${run.stderr}\n${run.stdout}`;
  if (!probe.says.test(said)) failures.push(`does not say ${probe.says}: ${said.slice(0, 400)}`);
  if (run.ms > probe.boundMs) failures.push(`took ${Math.round(run.ms)} ms (bound ${probe.boundMs})`);
  if (Number.isNaN(run.peakMb)) failures.push("no peak RSS reported (the process died before its exit handler)");
  return failures;
}

/** Run each probe against its own server, two at a time (most of a probe's time is a wait), and tally them. */
async function runProbes(probes: readonly CliProbe[]): Promise<string[]> {
  const failed: string[] = [];
  const queue = [...probes];
  const worker = async () => {
    for (let probe = queue.shift(); probe; probe = queue.shift()) {
      const server = await hostileServer(probe.routes, probe.dialect);
      try {
        const run = await runHostile(probe.args(server.baseURL), { timeoutMs: probe.boundMs + 10_000, env: probe.env });
        const failures = [...judge(probe, run), ...(probe.after?.(server, run) ?? [])];
        measured(probe.name, run.ms);
        worst.cliPeakMb = Math.max(worst.cliPeakMb, run.peakMb || 0);
        tally.record(probe.name, failures);
        if (failures.length > 0) failed.push(`${probe.name}: ${failures.join("; ")}`);
      } finally {
        await server.close();
      }
    }
  };
  await Promise.all([worker(), worker()]);
  return failed;
}

/** `ask` on the server's model; `--quiet` where a refusal must be its one line (a run's model error is not quiet). */
const ask = (url: string, ...more: string[]) => ["ask", "What is 2+2?", "--model", `${url}#m`, ...more];
const askQuiet = (url: string, ...more: string[]) => ask(url, "--quiet", ...more);
const CHAT = "/v1/chat/completions";
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));
const TOO_LARGE = (what: string, bound: string) => new RegExp(`sent ${what} over ${bound}, the bound on it`);

describe("hostile model servers through the CLI (issue 29)", () => {
  it("at connect (the probes: /props, /v1/models): bounded bodies, a total time, no redirect elsewhere; one line, exit 2", async () => {
    const failed = await runProbes([
      {
        name: "/props: a JSON body that never ends",
        routes: { "/props": { kind: "endless-body", status: 200 } },
        args: (url) => askQuiet(url),
        boundMs: 10_000,
        ends: "refusal",
        says: TOO_LARGE("a JSON answer", "8 MiB"),
      },
      {
        name: "/props: 2 MB of gzip that inflates to 2 GiB",
        routes: { "/props": { kind: "gzip-bomb", inflatedBytes: 2 * GIB, prefix: '{"chat_template": "' } },
        args: (url) => askQuiet(url),
        boundMs: 10_000,
        ends: "refusal",
        says: TOO_LARGE("a JSON answer", "8 MiB"),
      },
      {
        name: "/v1/models: a JSON body that never ends",
        routes: { "/v1/models": { kind: "endless-body", status: 200 } },
        args: (url) => askQuiet(url),
        boundMs: 10_000,
        ends: "refusal",
        says: TOO_LARGE("a JSON answer", "8 MiB"),
      },
      {
        name: "/api/version (an OpenAI-compatible server: /props is 404): a JSON body that never ends",
        dialect: "openai",
        routes: { "/api/version": { kind: "endless-body", status: 200 } },
        args: (url) => askQuiet(url),
        boundMs: 10_000,
        ends: "refusal",
        says: TOO_LARGE("a JSON answer", "8 MiB"),
      },
      {
        name: "/v1/models (an OpenAI-compatible server): 2 MB of gzip that inflates to 2 GiB",
        dialect: "openai",
        routes: { "/v1/models": { kind: "gzip-bomb", inflatedBytes: 2 * GIB, prefix: '{"data": [' } },
        args: (url) => askQuiet(url),
        boundMs: 10_000,
        ends: "refusal",
        says: TOO_LARGE("a JSON answer", "8 MiB"),
      },
      {
        name: "/props: a header that never ends",
        routes: { "/props": { kind: "endless-headers" } },
        args: (url) => askQuiet(url),
        boundMs: 10_000,
        ends: "refusal",
        says: /\/props sent headers over Node's bound on them/,
      },
      {
        name: "/props: 429 with a body that never ends",
        routes: { "/props": { kind: "endless-body", status: 429 } },
        args: (url) => askQuiet(url, "--http-retries", "1"),
        boundMs: 10_000,
        ends: "refusal",
        says: /\/props answered 429/,
      },
      {
        name: "/props: one byte a second, --http-timeout 1.5 (a probe's total: 7.5 s)",
        routes: { "/props": { kind: "trickle", everyMs: 1_000 } },
        args: (url) => askQuiet(url, "--http-timeout", "1.5"),
        boundMs: 15_000,
        ends: "refusal",
        says: /\/props did not finish its answer within 7\.5 s/,
      },
    ]);
    expect(failed).toEqual([]);
  }, 120_000);

  it("a redirect to another host is refused, at connect and mid-run; the other host gets nothing, the key least of all", async () => {
    const other = await startFakeServer({ dialect: "llama-server", models: ["m"] });
    const elsewhere = (path: string): HostileFault => ({
      kind: "redirect",
      location: `http://localhost:${other.port}${path}`,
    });
    const nothingElsewhere = () =>
      other.requests.length === 0 ? [] : [`${other.requests.length} request(s) reached the other host`];
    try {
      const failed = await runProbes([
        {
          name: "/props redirects to another host",
          routes: { "/props": elsewhere("/props") },
          args: (url) => askQuiet(url),
          env: { GEMMA_AGENT_API_KEY: "secret-key" },
          boundMs: 10_000,
          ends: "refusal",
          says: /redirected \(302\) to another server, http:\/\/localhost:\d+\/props: refused/,
          after: nothingElsewhere,
        },
        {
          name: `${CHAT} redirects (307) to another host, with an API key`,
          routes: { [CHAT]: { ...elsewhere(CHAT), status: 307 } as HostileFault },
          args: (url) => ask(url),
          env: { GEMMA_AGENT_API_KEY: "secret-key" },
          boundMs: 10_000,
          ends: "model-error",
          says: /model error: .*redirected \(307\) to another server/,
          after: (server) => [
            ...nothingElsewhere(),
            ...(server.generateRequests().every((r) => r.authorization === "Bearer secret-key")
              ? []
              : ["the key did not reach the server named"]),
          ],
        },
      ]);
      expect(failed).toEqual([]);
    } finally {
      await other.close();
    }
  }, 60_000);

  it("mid-run (the reply): error bodies, streams, lines, events, bombs and trickles each end within their bound", async () => {
    const failed = await runProbes([
      {
        name: "429 with a body that never ends",
        routes: { [CHAT]: { kind: "endless-body", status: 429 } },
        args: (url) => ask(url, "--http-retries", "1"),
        boundMs: 10_000,
        ends: "model-error",
        says: /model error: .*answered 429/,
      },
      {
        name: "500 with a body that never ends",
        routes: { [CHAT]: { kind: "endless-body", status: 500 } },
        args: (url) => ask(url),
        boundMs: 10_000,
        ends: "model-error",
        says: /model error: .*answered 500/,
      },
      {
        name: "a reply that streams for ever, --max-tokens 64",
        routes: { [CHAT]: { kind: "endless-stream" } },
        args: (url) => ask(url, "--max-tokens", "64"),
        boundMs: 10_000,
        ends: "model-error",
        says: /not a valid JSON object/,
        after: (server) =>
          server.generateRequests().every((r) => r.body?.max_tokens === 64) && server.clientClosed >= 1
            ? []
            : ["max_tokens not sent as 64, or no stream closed by the client"],
      },
      {
        name: "an Ollama reply (NDJSON) that streams for ever, --max-tokens 64",
        dialect: "ollama",
        routes: { "/api/chat": { kind: "endless-stream" } },
        args: (url) => ask(url, "--max-tokens", "64"),
        boundMs: 10_000,
        ends: "model-error",
        says: /not a valid JSON object/,
      },
      {
        name: "an Ollama NDJSON line that never ends",
        dialect: "ollama",
        routes: { "/api/chat": { kind: "endless-line" } },
        args: (url) => ask(url),
        boundMs: 10_000,
        ends: "model-error",
        says: TOO_LARGE("a line", "1 MiB"),
      },
      {
        name: "one byte a second, --http-timeout 1.5 (total 5 x: 7.5 s)",
        routes: { [CHAT]: { kind: "trickle", everyMs: 1_000 } },
        args: (url) => ask(url, "--http-timeout", "1.5"),
        boundMs: 15_000,
        ends: "model-error",
        says: /did not finish its answer within 7\.5 s/,
      },
      {
        name: "five bytes a second, --http-total-timeout 2",
        routes: { [CHAT]: { kind: "trickle", everyMs: 200 } },
        args: (url) => ask(url, "--http-total-timeout", "2"),
        boundMs: 10_000,
        ends: "model-error",
        says: /did not finish its answer within 2 s/,
      },
      {
        name: "an SSE event that never gets its blank line",
        routes: { [CHAT]: { kind: "endless-event" } },
        args: (url) => ask(url),
        boundMs: 10_000,
        ends: "model-error",
        says: TOO_LARGE("an event", "1 MiB"),
      },
      {
        name: "an SSE line that never ends",
        routes: { [CHAT]: { kind: "endless-line" } },
        args: (url) => ask(url),
        boundMs: 10_000,
        ends: "model-error",
        says: TOO_LARGE("a line", "1 MiB"),
      },
      {
        name: "2 MB of gzip inflating to 2 GiB of one SSE line",
        routes: { [CHAT]: { kind: "gzip-bomb", inflatedBytes: 2 * GIB, prefix: "data: " } },
        args: (url) => ask(url),
        boundMs: 10_000,
        ends: "model-error",
        says: TOO_LARGE("a line", "1 MiB"),
      },
      {
        name: "one 100 MB SSE line",
        routes: { [CHAT]: { kind: "huge-line", bytes: 100 * MB } },
        args: (url) => ask(url),
        boundMs: 10_000,
        ends: "model-error",
        says: TOO_LARGE("a line", "1 MiB"),
      },
    ]);
    expect(failed).toEqual([]);
  }, 180_000);

  it("doctor --server: each hostile answer is a failed check within its bound (exit 1), never a hang", async () => {
    const doctor = (url: string, ...more: string[]) => ["doctor", "--server", `${url}#m`, ...more];
    const failed = await runProbes([
      {
        name: "doctor: /props, a JSON body that never ends",
        routes: { "/props": { kind: "endless-body", status: 200 } },
        args: (url) => doctor(url),
        boundMs: 10_000,
        ends: "doctor",
        says: TOO_LARGE("a JSON answer", "8 MiB"),
      },
      {
        name: "doctor: 429 with a body that never ends (the structured-output check)",
        routes: { [CHAT]: { kind: "endless-body", status: 429 } },
        args: (url) => doctor(url),
        boundMs: 10_000,
        ends: "doctor",
        says: /structured out +a constrained request failed: .*answered 429/,
      },
      {
        name: "doctor: 500 with a body that never ends",
        routes: { [CHAT]: { kind: "endless-body", status: 500 } },
        args: (url) => doctor(url),
        boundMs: 10_000,
        ends: "doctor",
        says: /answered 500/,
      },
      {
        name: "doctor: two bytes a second, --http-timeout 1 (total 5 s)",
        routes: { [CHAT]: { kind: "trickle", everyMs: 500 } },
        args: (url) => doctor(url, "--http-timeout", "1"),
        boundMs: 10_000,
        ends: "doctor",
        says: /did not finish its answer within 5 s/,
      },
    ]);
    expect(failed).toEqual([]);
  }, 120_000);
});

/** One library probe: `run` against `server`, within `boundMs`, growing RSS under 300 MB; `check` judges the outcome. */
async function libraryProbe<T>(
  name: string,
  serve: Record<string, HostileFault> | (() => Promise<FakeServer>),
  boundMs: number,
  run: (server: FakeServer) => Promise<T>,
  check: (outcome: { result?: T; error?: unknown }, server: FakeServer) => string[],
): Promise<string[]> {
  const server = typeof serve === "function" ? await serve() : await hostileServer(serve);
  try {
    const base = process.memoryUsage.rss();
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
    const start = performance.now();
    const outcome: { result?: T; error?: unknown } = await run(server).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    const ms = performance.now() - start;
    await settle(); // the server sees a closed connection a moment later
    clearInterval(sampler);
    const growthMb = (Math.max(peak, process.memoryUsage.rss()) - base) / MB;
    const failures = check(outcome, server);
    measured(name, ms);
    worst.libraryGrowthMb = Math.max(worst.libraryGrowthMb, growthMb);
    if (ms > boundMs) failures.push(`took ${Math.round(ms)} ms (bound ${boundMs})`);
    if (growthMb > MAX_PEAK_MB) failures.push(`RSS grew ${growthMb.toFixed(0)} MB`);
    if (outcome.error !== undefined && !(outcome.error instanceof HttpModelError))
      failures.push(`not an HttpModelError: ${String(outcome.error)}`);
    tally.record(name, failures);
    return failures.map((f) => `${name}: ${f}`);
  } finally {
    await server.close();
  }
}

/** A handle on `server` as the CLI makes one, with `options` over it. */
const handleOn = (server: FakeServer, options: Partial<Parameters<typeof openAICompatibleModel>[0]> = {}) =>
  openAICompatibleModel({ baseURL: server.baseURL, model: "m", dialect: "llama-server", retries: 0, ...options });

/** `expected` when the outcome is an HttpModelError with `code` whose message matches `message`, else a failure. */
function failedWith(outcome: { error?: unknown }, code: string, message: RegExp): string[] {
  const error = outcome.error;
  if (!(error instanceof HttpModelError)) return [`expected ${code}, got ${String(error ?? "a result")}`];
  return error.code === code && message.test(error.message) ? [] : [`${error.code}: ${error.message}`];
}

describe("hostile model servers through the library (issue 29)", () => {
  it("maxTokens is ours, every bound is an option, a redirect is followed only on the server named", async () => {
    const failed = [
      ...(await libraryProbe(
        "generate on a stream that never ends stops after maxTokens pieces and closes it",
        { [CHAT]: { kind: "endless-stream" } },
        3_000,
        (server) => handleOn(server).generate("hi", { maxTokens: 10 }),
        (outcome, server) =>
          outcome.result === "tok".repeat(10) && server.clientClosed >= 1
            ? []
            : [`text ${JSON.stringify(outcome.result)}, ${server.clientClosed} closed, ${String(outcome.error ?? "")}`],
      )),
      ...(await libraryProbe(
        "a reply of one 100,000-character piece is cut at maxTokens x replyCharsPerToken",
        () =>
          startFakeServer({
            dialect: "llama-server",
            models: ["m"],
            reply: () => "a".repeat(100_000),
            pieceChars: 100_000,
          }),
        3_000,
        (server) => handleOn(server).generate("hi", { maxTokens: 4 }),
        (outcome) => (outcome.result === "a".repeat(4 * 256) ? [] : [`text of ${String(outcome.result?.length)}`]),
      )),
      ...(await libraryProbe(
        "limits.streamBytes ends a stream that keeps within maxTokens' reach",
        { [CHAT]: { kind: "endless-stream" } },
        3_000,
        (server) => handleOn(server, { limits: { streamBytes: 256 * 1024 } }).generate("hi", { maxTokens: 1e6 }),
        (outcome) => failedWith(outcome, "too_large", TOO_LARGE("a streamed reply", "256 KiB")),
      )),
      ...(await libraryProbe(
        "countTokens: /tokenize answering a body that never ends",
        { "/tokenize": { kind: "endless-body", status: 200 } },
        5_000,
        (server) => handleOn(server).countTokens("hi"),
        (outcome) => failedWith(outcome, "too_large", TOO_LARGE("a JSON answer", "8 MiB")),
      )),
      ...(await libraryProbe(
        "503 whose body trickles: the status within errorWaitMs",
        { [CHAT]: { kind: "trickle", everyMs: 100, status: 503 } },
        2_000,
        (server) => handleOn(server, { limits: { errorWaitMs: 500 } }).generate("hi"),
        (outcome) => failedWith(outcome, "http_error", /answered 503/),
      )),
      ...(await libraryProbe(
        "a redirect within the server named is followed, the key kept",
        async () => {
          const server = await startFakeServer({ dialect: "llama-server", models: ["m"] });
          server.faults.push({ kind: "redirect", location: `${CHAT}?moved=1`, status: 308 });
          return server;
        },
        3_000,
        (server) => handleOn(server, { apiKey: "k" }).generate("hi"),
        (outcome, server) => {
          const keys = server.generateRequests().map((r) => r.authorization);
          return outcome.result === JSON.stringify({ final_answer: "done" }) && keys.join() === "Bearer k,Bearer k"
            ? []
            : [`result ${String(outcome.result ?? outcome.error)}, keys ${keys.join()}`];
        },
      )),
      ...(await libraryProbe(
        "a redirect loop within the server ends after 5",
        { [CHAT]: { kind: "redirect", location: `${CHAT}?again=1` } },
        3_000,
        (server) => handleOn(server).generate("hi"),
        (outcome) => failedWith(outcome, "redirected", /redirected more than 5 times/),
      )),
    ];
    expect(failed).toEqual([]);
  }, 60_000);
});
