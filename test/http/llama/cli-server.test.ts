/**
 * The built CLI against model servers on 127.0.0.1 (a fake one that records requests and injects faults): `ask` with
 * `--model URL#name` and with `--server --server-model`, the setup errors of a missing server or model, `inspect` and
 * `doctor --server`. The same commands against the real llama-server: test/http/llama/real-server.test.ts.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeServer, type FakeServer } from "../fake-server.js";
import { runCli } from "../run-cli.js";

let servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function fake(options: Partial<Parameters<typeof startFakeServer>[0]> = {}): Promise<FakeServer> {
  const server = await startFakeServer({ dialect: "llama-server", models: ["gemma-test"], ...options });
  servers.push(server);
  return server;
}

/** Replies of a "model" that calls the calculator once, then answers with what the prompt's observation says. */
function calculatorReplies(body: Record<string, unknown>): string {
  const text = JSON.stringify(body.messages ?? body.prompt);
  return text.includes("397.8")
    ? JSON.stringify({ thought: "done", final_answer: "17% of 2,340 is 397.8." })
    : JSON.stringify({ thought: "compute", skill_name: "calculator", arguments: { expression: "0.17 * 2340" } });
}

describe("ask over HTTP", () => {
  it("--model http://127.0.0.1:PORT/v1#name runs the loop end to end: skills run, the answer on stdout, exit 0", async () => {
    const server = await fake({ reply: calculatorReplies });
    const result = await runCli(["ask", "What is 17% of 2,340?", "--model", `${server.baseURL}#gemma-test`, "--json"]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      answer: string;
      iterations: number;
      events: { type: string }[];
      model: Record<string, unknown>;
    };
    expect(report.answer).toBe("17% of 2,340 is 397.8.");
    expect(report.iterations).toBe(2);
    expect(report.events.map((e) => e.type)).toContain("observation");
    expect(report.model).toMatchObject({ dialect: "llama-server", name: "gemma-test", backend: "http (llama-server)" });
    // the action schema went to the server with every step
    for (const request of server.generateRequests()) expect(request.body!.response_format).toBeDefined();
    expect(result.stderr).toContain("connected to llama-server");
  });

  it("grounding goes as each step's schema; --grounding soft says once that strict's limits go instead; off sends none", async () => {
    const server = await fake({ reply: calculatorReplies });
    const ask = (...flags: string[]) =>
      runCli([
        "ask",
        "What is 17% of 2,340?",
        "--model",
        `${server.baseURL}#gemma-test`,
        "--skills",
        "calculator",
        ...flags,
      ]);
    const soft = await ask("--grounding", "soft");
    expect(soft.code, soft.stderr).toBe(0);
    expect(soft.stderr.match(/note: --grounding soft steers each token/g)).toHaveLength(1);
    const schemas = server.generateRequests().map((r) => JSON.stringify(r.body!.response_format));
    // the first step's schema offers the question's spans: the calculator's expression is one of them
    expect(schemas[0]).toMatch(/"enum":\[[^\]]*"17% of 2,340"/);
    const seen = server.generateRequests().length;
    const off = await ask("--grounding", "off");
    expect(off.code, off.stderr).toBe(0);
    expect(off.stderr).not.toContain("note: --grounding");
    for (const request of server.generateRequests().slice(seen))
      expect(JSON.stringify(request.body!.response_format)).not.toContain('"enum":[');
    // the default (soft, not asked for by name) grounds without the note
    const byDefault = await ask();
    expect(byDefault.stderr).not.toContain("note: --grounding");
  });

  it("--server URL --server-model NAME is the same as --model URL#NAME", async () => {
    const server = await fake({ reply: calculatorReplies });
    const result = await runCli([
      "ask",
      "What is 17% of 2,340?",
      "--server",
      server.baseURL,
      "--server-model",
      "gemma-test",
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("17% of 2,340 is 397.8.\n");
    expect(server.generateRequests()[0].body!.model).toBe("gemma-test");
  });

  it("a server that is not there: one line naming the URL and what to start, exit 2", async () => {
    const server = await fake();
    const url = server.baseURL;
    await server.close();
    servers = [];
    const result = await runCli(["ask", "hi", "--model", `${url}#gemma-test`, "--http-retries", "0"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /gemma-agent: cannot reach the model server at http:\/\/127\.0\.0\.1:\d+\/.*ECONNREFUSED.*llama-server -m/,
    );
  });

  it("a model the server does not have: exit 2, listing the models it has", async () => {
    const server = await fake({ dialect: "vllm", models: ["a-model", "b-model"] });
    const result = await runCli(["ask", "hi", "--model", `${server.baseURL}#nope`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('does not serve "nope"; it lists: a-model, b-model');
  });

  it("a server that ignores the schema: the parse path refuses the replies, the run ends without an answer", async () => {
    await fake({ reply: () => "Sure! The answer is 4." }).then(async (server) => {
      const result = await runCli([
        "ask",
        "What is 2+2?",
        "--model",
        `${server.baseURL}#gemma-test`,
        "--json",
        "--max-retries",
        "1",
      ]);
      expect(result.code).toBe(1);
      const report = JSON.parse(result.stdout) as { stopReason: string; events: { type: string }[] };
      expect(report.stopReason).toBe("retries_exhausted");
      expect(report.events.filter((e) => e.type === "validation-error").length).toBeGreaterThanOrEqual(1);
    });
  });
});

describe("run over HTTP", () => {
  it("run agent.yaml --model URL#name: an agent definition on a model server (its output schema to the server)", async () => {
    const answer = { value: 1, unit: "km", text: "One kilometre." };
    const server = await fake({ models: ["gemma"], reply: () => JSON.stringify({ final_answer: answer }) });
    const result = await runCli([
      "run",
      "examples/agents/unit-helper/agent.yaml",
      "1000 m in km?",
      "--model",
      `${server.baseURL}#gemma`,
      // the decision would keep only the conversion's branch in this step's schema (the question fits
      // convert_units): off, every branch goes, the answer's with the agent's output schema
      "--decision",
      "off",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(answer);
    const [request] = server.generateRequests();
    expect((request.body!.messages as { role: string }[])[0].role).toBe("system");
    expect(JSON.stringify(request.body!.response_format)).toContain("final_answer");
  });
});

describe("doctor --server", () => {
  it("reachable, dialect, models and structured output, each with its line", async () => {
    const server = await fake({ reply: () => JSON.stringify({ greeting: "Hello!" }) });
    const result = await runCli(["doctor", "--server", server.baseURL, "--json"]);
    expect(result.code).toBe(0);
    const { checks } = JSON.parse(result.stdout) as { checks: { name: string; status: string; detail: string }[] };
    expect(checks.map((c) => [c.name, c.status])).toEqual([
      ["server", "ok"],
      ["dialect", "ok"],
      ["models", "ok"],
      ["structured out", "ok"],
      ["grounding", "ok"],
      ["decision", "ok"],
    ]);
    expect(checks[1].detail).toContain("llama-server (GET /props");
    // grounding crosses as the request's schema (strict's limits), since the server honours one
    expect(checks[4].detail).toMatch(/crosses as the request's JSON Schema: argument values limited to the question's/);
    // so does the decision (the branches it ranks low left out)
    expect(checks[5].detail).toMatch(/crosses as the request's JSON Schema: the answer, skills and call lists/);
  });

  it("warns when the server ignores the schema, fails when it is not there", async () => {
    const server = await fake({ dialect: "lmstudio", reply: () => "Hello there! How can I help?" });
    const ignored = await runCli(["doctor", "--server", `${server.baseURL}#gemma-test`]);
    expect(ignored.code).toBe(0);
    expect(ignored.stdout).toMatch(/! structured out +the server ignored the JSON Schema/);
    // a server that takes no schema cannot be given grounding's either: said in its own line
    expect(ignored.stdout).toMatch(/! grounding +grounding cannot reach this server: it does not honour a schema/);
    expect(ignored.stdout).toMatch(/! decision +the decision cannot reach this server/);
    const url = server.baseURL;
    await server.close();
    servers = [];
    const gone = await runCli(["doctor", "--server", url]);
    expect(gone.code).toBe(1);
    expect(gone.stdout).toMatch(/✗ server +cannot reach/);
  });
});

describe("eval over model servers", () => {
  it("spreads a sweep over two servers, writes DIR/results.jsonl and the Servers table; --resume redoes nothing", async () => {
    const a = await fake({ models: ["gemma"], reply: () => '{"final_answer":"42"}' });
    const b = await fake({ models: ["gemma"], reply: () => '{"final_answer":"42"}' });
    const out = mkdtempSync(join(tmpdir(), "cli-eval-"));
    const args = [
      "eval",
      "evals/basic.json",
      "--model",
      `${a.baseURL}#gemma`,
      "--server",
      b.baseURL,
      "--server-model",
      "gemma",
    ];
    args.push("--limit", "4", "--budgets", "2", "--concurrency", "2", "--out", out);
    const first = await runCli(args);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/Servers:[\s\S]*runs\/min/);
    expect(first.stdout).toContain(`${a.baseURL}#gemma`);
    expect(first.stdout).toContain(`${b.baseURL}#gemma`);
    const lines = readFileSync(join(out, "results.jsonl"), "utf8").trim().split("\n");
    expect(lines).toHaveLength(1 + 4);
    expect(readFileSync(join(out, "report.md"), "utf8")).toContain("## Servers");
    const calls = a.generateRequests().length + b.generateRequests().length;
    expect(calls).toBe(4);
    const again = await runCli([...args, "--resume", "--json"]);
    expect(again.code, again.stderr).toBe(0);
    const report = JSON.parse(again.stdout) as { resumedRuns: number; runs: unknown[] };
    expect([report.resumedRuns, report.runs.length]).toEqual([4, 4]);
    expect(a.generateRequests().length + b.generateRequests().length).toBe(calls);
  });
});

describe("inspect over HTTP", () => {
  it("describes the server and counts the prompt's tokens on llama-server", async () => {
    const server = await fake();
    const result = await runCli(["inspect", "--model", `${server.baseURL}#gemma-test`, "--json"]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(report.server).toMatchObject({ dialect: "llama-server" });
    expect(report.tokens).toEqual({ systemPrompt: 3, renderedPrompt: 3 }); // the fake /tokenize's answer
    expect(report.contextSize).toBe(4096);
  });
});
