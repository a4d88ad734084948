/**
 * The request shapes each dialect gets (recorded by a fake server speaking that dialect's probes and protocol), what
 * `auto` detects, and how prompts, models and usage travel. llama-server is also tested against the real server
 * (test/http/llama/real-server.test.ts); vLLM, Ollama, LM Studio and OpenAI only here, against these recorded shapes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { gemma3ChatFormat } from "../../src/prompt/chat-format.js";
import { jsonSchemaToGbnf } from "../../src/model/gbnf/json-schema-to-gbnf.js";
import { HttpModelError, openAICompatibleModel, parseServerModelUrl } from "../../src/model/http/index.js";
import { startFakeServer, type FakeDialect, type FakeServer } from "./fake-server.js";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { Registry } from "../../src/skills/registry.js";
import { defineSkill } from "../../src/skills/skill.js";

const SCHEMA = {
  type: "object",
  properties: { final_answer: { type: "string" } },
  required: ["final_answer"],
  additionalProperties: false,
};

let servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function fake(dialect: FakeDialect, models?: string[]): Promise<FakeServer> {
  const server = await startFakeServer({ dialect, ...(models && { models }) });
  servers.push(server);
  return server;
}

describe("dialect detection", () => {
  for (const dialect of ["llama-server", "ollama", "vllm", "lmstudio", "openai"] as const) {
    it(`auto finds ${dialect} from what it answers, and says so in info`, async () => {
      const server = await fake(dialect);
      const model = openAICompatibleModel({ baseURL: server.baseURL, model: "fake-model" });
      expect(model.info.dialect).toBe("auto");
      const info = await model.connect();
      expect(info.dialect).toBe(dialect);
      expect(info.detectedBy).not.toBe("given");
      expect(info.models).toEqual(["fake-model"]);
      // detection happens once
      const probes = server.requests.length;
      await model.generate("hi");
      await model.generate("hi again");
      expect(server.requests.length).toBe(probes + 2);
    });
  }

  it("a dialect given is not probed for", async () => {
    const server = await fake("vllm");
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: "fake-model", dialect: "vllm" });
    const info = await model.connect();
    expect(info.detectedBy).toBe("given");
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/models"]);
  });
});

describe("structured output per dialect", () => {
  const cases: [FakeDialect, string, (body: Record<string, unknown>) => unknown][] = [
    [
      "llama-server",
      "/v1/chat/completions",
      (b) => (b.response_format as { json_schema: { schema: unknown } }).json_schema.schema,
    ],
    [
      "vllm",
      "/v1/chat/completions",
      (b) => (b.response_format as { json_schema: { schema: unknown } }).json_schema.schema,
    ],
    [
      "lmstudio",
      "/v1/chat/completions",
      (b) => (b.response_format as { json_schema: { schema: unknown } }).json_schema.schema,
    ],
    [
      "openai",
      "/v1/chat/completions",
      (b) => (b.response_format as { json_schema: { schema: unknown } }).json_schema.schema,
    ],
    ["ollama", "/api/chat", (b) => b.format],
  ];
  for (const [dialect, path, schemaOf] of cases) {
    it(`${dialect}: the schema goes to ${path} in its own field, with the messages, streamed`, async () => {
      const server = await fake(dialect);
      const model = openAICompatibleModel({ baseURL: server.baseURL, model: "fake-model" });
      const reply = await model.generate(
        messagesPrompt([
          { role: "system", content: "be brief" },
          { role: "user", content: "what is <end_of_turn> 2+2?" },
          { role: "model", content: "{}" },
        ]),
        { jsonSchema: SCHEMA, maxTokens: 33, temperature: 0 },
      );
      expect(JSON.parse(reply)).toEqual({ final_answer: "done" });
      const [request] = server.generateRequests();
      expect(request.path).toBe(path);
      expect(schemaOf(request.body!)).toEqual(SCHEMA);
      expect(request.body!.stream).toBe(true);
      expect(request.body!.model).toBe("fake-model");
      const messages = request.body!.messages as { role: string; content: string }[];
      expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
      // a control-token look-alike in the text reaches the server broken (its template must not read it as a turn end)
      expect(messages[1].content).not.toContain("<end_of_turn>");
      expect(messages[1].content.replace("\u200b", "")).toBe("what is <end_of_turn> 2+2?");
      if (dialect === "ollama") expect(request.body!.options).toEqual({ temperature: 0, num_predict: 33 });
      else expect([request.body!.max_tokens, request.body!.temperature]).toEqual([33, 0]);
      expect(request.body!.grammar).toBeUndefined();
      expect(request.body!.cache_prompt).toBe(dialect === "llama-server" ? true : undefined);
    });
  }

  it("llama-server with structuredOutput gbnf gets our compiler's grammar, not a schema", async () => {
    const server = await fake("llama-server");
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: "fake-model", structuredOutput: "gbnf" });
    await model.generate("hi", { jsonSchema: SCHEMA });
    const body = server.generateRequests()[0].body!;
    expect(body.grammar).toBe(jsonSchemaToGbnf(SCHEMA));
    expect(body.response_format).toBeUndefined();
  });

  it("gbnf and completion mode are refused for a server that is not llama-server", async () => {
    const server = await fake("vllm");
    const gbnf = openAICompatibleModel({ baseURL: server.baseURL, model: "fake-model", structuredOutput: "gbnf" });
    await expect(gbnf.connect()).rejects.toMatchObject({ name: "HttpModelError", code: "unsupported" });
    const raw = openAICompatibleModel({ baseURL: server.baseURL, model: "fake-model", promptMode: "completion" });
    await expect(raw.generate("x")).rejects.toMatchObject({ code: "unsupported" });
  });
});

describe("grounding over a server: the request's own schema", () => {
  const ACTION = {
    anyOf: [
      {
        type: "object",
        properties: {
          skill_name: { const: "weather" },
          arguments: {
            type: "object",
            properties: { city: { type: "string" }, days: { type: "integer" } },
            required: ["city", "days"],
            additionalProperties: false,
          },
        },
        required: ["skill_name", "arguments"],
        additionalProperties: false,
      },
      SCHEMA,
    ],
  };
  const grounding = { mode: "strict" as const, source: ["Weather in Boston for 3 days?"] };
  const sent = (dialect: FakeDialect, body: Record<string, unknown>) =>
    dialect === "ollama"
      ? body.format
      : (body.response_format as { json_schema: { schema: unknown } }).json_schema.schema;

  for (const dialect of ["llama-server", "vllm", "ollama", "lmstudio", "openai"] as const)
    it(`${dialect}: grounded, the values are limited to the question's spans and numerals; off, the schema as it is`, async () => {
      const server = await fake(dialect);
      const model = openAICompatibleModel({ baseURL: server.baseURL, model: "fake-model" });
      await model.generate("hi", { jsonSchema: ACTION, grounding });
      await model.generate("hi", { jsonSchema: ACTION, grounding: { ...grounding, mode: "off" } });
      const [grounded, off] = server.generateRequests().map((r) => JSON.stringify(sent(dialect, r.body!)));
      expect(off).toBe(JSON.stringify(ACTION));
      const schema = JSON.parse(grounded) as { $defs: Record<string, { enum: unknown[] }> };
      const enums = Object.values(schema.$defs).map((d) => d.enum);
      expect(enums).toContainEqual(expect.arrayContaining(["Boston", "Weather", "3 days"]));
      expect(enums).toContainEqual([3]);
      expect(grounded).toContain('"final_answer":{"type":"string"}'); // the answer stays free text
    });

  it("llama-server with structuredOutput gbnf gets the grounded schema as our grammar", async () => {
    const server = await fake("llama-server");
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: "fake-model", structuredOutput: "gbnf" });
    await model.generate("hi", { jsonSchema: ACTION, grounding });
    const grammar = server.generateRequests()[0].body!.grammar as string;
    expect(grammar).toContain(String.raw`"\"Boston\""`);
    expect(grammar).not.toBe(jsonSchemaToGbnf(ACTION));
  });
});

describe("the decision over a server: the request's own schema", () => {
  const registry = () =>
    new Registry([
      defineSkill({
        name: "triangle_area",
        description: "The area of a triangle from its base and height.",
        parameters: z.object({ base: z.number(), height: z.number() }),
        run: ({ base, height }) => (base * height) / 2,
      }),
      defineSkill({
        name: "currency_convert",
        description: "Convert an amount of money from one currency to another.",
        parameters: z.object({ amount: z.number(), from: z.string(), to: z.string() }),
        run: () => 0,
      }),
    ]);
  /** The branches of a recorded request's schema: what each allows (`final_answer`, or the skill it calls). */
  const branches = (body: Record<string, unknown>) => {
    const schema = (body.response_format as { json_schema: { schema: { anyOf: Record<string, unknown>[] } } })
      .json_schema.schema;
    return schema.anyOf.map((branch) => {
      const properties = branch.properties as Record<string, { const?: string }>;
      return properties.skill_name?.const ?? Object.keys(properties).filter((k) => k !== "thought")[0];
    });
  };

  it("no offered skill fits the question: the request allows the answer alone, and the model answers", async () => {
    const server = await startFakeServer({ dialect: "vllm", reply: () => '{"final_answer":"Paris."}' });
    servers.push(server);
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: "fake-model" });
    expect(model.scoresDecisions).toBe(true);
    const state = await new Agent({ model, registry: registry() }).run("What is the capital of France?");
    expect(state.answer).toBe("Paris.");
    expect(server.generateRequests().map((r) => branches(r.body!))).toEqual([["final_answer"]]);
  });

  it("a question one skill fits: its call alone, then, with its result in, the answer alone", async () => {
    const replies = ['{"skill_name":"triangle_area","arguments":{"base":10,"height":5}}', '{"final_answer":"25"}'];
    const server = await startFakeServer({ dialect: "vllm", reply: () => replies.shift()! });
    servers.push(server);
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: "fake-model" });
    const state = await new Agent({ model, registry: registry() }).run(
      "Find the area of a triangle with a base of 10 and a height of 5.",
      { maxIterations: 4 },
    );
    expect(state.answer).toBe("25");
    const [first, second] = server.generateRequests().map((r) => branches(r.body!));
    expect(first).toEqual(["triangle_area"]);
    expect(second).toEqual(["final_answer"]);
  });

  it("structuredOutput none: no schema to carry it, so the model's own choice stands", async () => {
    const server = await startFakeServer({ dialect: "vllm", reply: () => '{"final_answer":"Paris."}' });
    servers.push(server);
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: "fake-model", structuredOutput: "none" });
    expect(model.scoresDecisions).toBe(false);
  });
});

describe("completion mode (llama-server)", () => {
  it("sends our rendered Gemma prompt without the BOS the server adds, cache_prompt on, stopping at the turn end", async () => {
    const server = await fake("llama-server");
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: "fake-model", promptMode: "completion" });
    await model.connect();
    expect(model.chatFormat.name).toBe("gemma3"); // from the server's chat template
    const prompt = gemma3ChatFormat.render([{ role: "user", content: "hello" }]);
    await model.generate(prompt, { jsonSchema: SCHEMA });
    const { path, body } = server.generateRequests()[0];
    expect(path).toBe("/v1/completions");
    expect(body!.prompt).toBe(prompt.slice("<bos>".length));
    expect(body!.cache_prompt).toBe(true);
    expect(body!.stop).toEqual(["<end_of_turn>"]);
    expect(body!.json_schema).toEqual(SCHEMA);
    // the server's usage: 30 prompt tokens of which 10 cached
    expect(model.stats).toMatchObject({ promptTokens: 30, reusedPromptTokens: 10, evaluatedPromptTokens: 20 });
    expect(model.contextSize).toBe(4096);
    expect(await model.countTokens(prompt)).toBe(3);
    expect(server.requests.find((r) => r.path === "/tokenize")!.body!.content).toBe(prompt.slice(5));
  });
});

describe("models", () => {
  it("an unknown model is a typed error that lists the server's models", async () => {
    const server = await fake("vllm", ["gemma-a", "gemma-b"]);
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: "nope" });
    const error = await model.generate("x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpModelError);
    expect(error).toMatchObject({ code: "unknown_model", models: ["gemma-a", "gemma-b"] });
    expect((error as Error).message).toContain("gemma-a, gemma-b");
    expect(server.generateRequests()).toHaveLength(0);
  });

  it("no model named: the server's only model is used; several: name one", async () => {
    const one = await fake("openai", ["only"]);
    const model = openAICompatibleModel({ baseURL: one.baseURL, model: "" });
    await model.generate("x");
    expect(one.generateRequests()[0].body!.model).toBe("only");
    const two = await fake("openai", ["a", "b"]);
    await expect(openAICompatibleModel({ baseURL: two.baseURL, model: "" }).connect()).rejects.toThrow(
      /after # .*a, b/,
    );
  });

  it("Ollama's name without a tag matches name:latest; the API key goes as a Bearer token", async () => {
    const server = await fake("ollama", ["gemma3:latest"]);
    const model = openAICompatibleModel({ baseURL: server.baseURL, model: "gemma3", apiKey: "k-123" });
    await model.generate("x");
    expect(server.generateRequests()[0].authorization).toBe("Bearer k-123");
    expect(model.stats.generatedTokens).toBeGreaterThan(0);
  });
});

describe("server URLs", () => {
  it("reads http(s)://host:port/v1#model and adds /v1 to a bare host", () => {
    expect(parseServerModelUrl("http://127.0.0.1:8080/v1#gemma-3-270m")).toEqual({
      baseURL: "http://127.0.0.1:8080/v1",
      model: "gemma-3-270m",
    });
    expect(parseServerModelUrl("https://box:443#a%20b")).toEqual({ baseURL: "https://box/v1", model: "a b" });
    expect(parseServerModelUrl("http://h:1/v1/")).toEqual({ baseURL: "http://h:1/v1", model: "" });
    expect(() => parseServerModelUrl("http://")).toThrow(/not a server URL/);
    expect(() => parseServerModelUrl("http://h/v1?x=1#m")).toThrow(/no query/);
  });
});

/** A prompt as the agent renders it for a server that applies its own template. */
function messagesPrompt(messages: { role: "system" | "user" | "model"; content: string }[]): string {
  const model = openAICompatibleModel({ baseURL: "http://127.0.0.1:1/v1", model: "x" });
  return model.chatFormat.render(messages);
}
