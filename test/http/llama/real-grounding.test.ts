/**
 * Grounding over the real llama-server (llama.cpp's own server, built from the llama-cpp-python sdist) serving
 * SmolLM2-135M-Instruct on 127.0.0.1: the question's values reach the server as the request's own schema, through
 * the JSON Schema path and through our GBNF. The model is tiny: these tests show what the schema makes it write, not
 * answer quality.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import type { AgentEvent } from "../../../src/agent/events.js";
import { bfclRegistry } from "../../../src/eval/bfcl/bfcl-skills.js";
import type { BfclFunction } from "../../../src/eval/bfcl/bfcl-files.js";
import { GROUNDED_SCHEMA_MAX_BYTES, GROUNDED_SCHEMA_MAX_VALUES } from "../../../src/model/grounding/defaults.js";
import { groundedSchema } from "../../../src/model/grounding/grounded-schema.js";
import { openAICompatibleModel, type StructuredOutput } from "../../../src/model/http/index.js";
import type { GenerateOptions, ModelHandle } from "../../../src/model/model-handle.js";
import { testModelPath } from "../../helpers/test-models.js";
import { llamaServerPath, startLlamaServer, type LlamaServer } from "./llama-server.js";

const binary = llamaServerPath();
const model = testModelPath("GEMMA_AGENT_TEST_MODEL_INSTRUCT");
const ready = !!binary && !!model;

let server: LlamaServer;
beforeAll(async () => {
  // two threads, as the measurement in docs/results/server-grounding.md ran (greedy replies can differ with the count)
  if (binary && model) server = await startLlamaServer({ binary, model, threads: 2, alias: "smollm2" });
}, 180_000);
afterAll(async () => {
  await server?.stop();
});

/** BFCL simple_python_128 (Apache-2.0, evals/bfcl): with grounding off SmolLM2 writes `5000000000000000` for "50 million". */
const DIVIDEND: BfclFunction = {
  name: "finance.calculate_quarterly_dividend_per_share",
  description:
    "Calculate quarterly dividend per share for a company given total dividend payout and outstanding shares",
  parameters: {
    type: "dict",
    properties: {
      total_payout: { type: "integer", description: "The total amount of dividends paid out in USD" },
      outstanding_shares: { type: "integer", description: "Total number of outstanding shares" },
    },
    required: ["total_payout", "outstanding_shares"],
  },
};
const QUESTION =
  "What's the quarterly dividend per share of a company with 100 million outstanding shares and total dividend payout of 50 million USD?";
/** The question's numerals as a JSON value may write them (numeralsOf: "50 million" is 50 and 50000000). */
const NUMERALS = [100, 100000000, 50, 50000000];

/** The first call's arguments of a one-step run over the server. */
async function firstCall(
  structuredOutput: StructuredOutput,
  grounding: "off" | "strict" | undefined,
  question = QUESTION,
  seen?: (options: GenerateOptions) => void,
) {
  const http = openAICompatibleModel({
    baseURL: server.baseURL,
    model: "smollm2",
    promptMode: "completion",
    structuredOutput,
  });
  await http.connect();
  // the handle as the agent sees it, each call's options shown to `seen` first
  const watched: ModelHandle = {
    chatFormat: http.chatFormat,
    contextSize: http.contextSize,
    countTokens: (prompt) => http.countTokens(prompt),
    generate: (prompt, options) => {
      seen?.(options ?? {});
      return http.generate(prompt, options);
    },
  };
  const agent = new Agent({
    model: watched,
    registry: bfclRegistry([DIVIDEND]),
    ...(grounding && { grounding }),
  });
  const state = await agent.run(question, { maxIterations: 1 });
  const events = state.stream.toArray();
  expect(events.filter((e) => e.type === "model-error")).toEqual([]);
  const call = events.find((e): e is Extract<AgentEvent, { type: "call-skill" }> => e.type === "call-skill");
  return call?.arguments;
}

describe.skipIf(!ready)("grounding over the real llama-server (SmolLM2-135M-Instruct)", () => {
  it("a number the model runs away with is the question's number once grounded, through our GBNF and the JSON Schema", async () => {
    const off = await firstCall("gbnf", "off");
    expect(off, "grounding off: the call").toBeDefined();
    // off, the server's model writes a number the question does not hold (what grounding is for)
    expect(NUMERALS).not.toContain(off!.total_payout);
    for (const path of ["gbnf", "json-schema"] as const) {
      const grounded = await firstCall(path, undefined); // the default (soft) falls back to the schema
      expect(grounded, `${path}: the call`).toBeDefined();
      expect(NUMERALS, path).toContain(grounded!.total_payout);
      expect(NUMERALS, path).toContain(grounded!.outstanding_shares);
    }
  }, 300_000);

  it("a long question's schema stays under the cap, and the server takes it and answers under it", async () => {
    const filler = Array.from({ length: 400 }, (_, i) => `word${i}`).join(" ");
    const long = `${QUESTION} ${filler}`;
    let schemaBytes = 0;
    const args = await firstCall("json-schema", "strict", long, (options) => {
      const grounded = groundedSchema(options.jsonSchema!, options.grounding)!;
      expect(grounded.capped).toBe(true);
      expect(grounded.strings).toBeLessThanOrEqual(GROUNDED_SCHEMA_MAX_VALUES);
      schemaBytes = JSON.stringify(grounded.schema).length;
    });
    expect(schemaBytes).toBeGreaterThan(0);
    expect(schemaBytes).toBeLessThan(GROUNDED_SCHEMA_MAX_BYTES + 16 * 1024);
    // the question's own numbers come first, so they are still offered past the cap
    expect(args, "the call").toBeDefined();
    expect(NUMERALS).toContain(args!.total_payout);
  }, 300_000);
});

const TRIANGLE: BfclFunction = {
  name: "calculate_triangle_area",
  description: "Calculate the area of a triangle given its base and height.",
  parameters: {
    type: "dict",
    properties: {
      base: { type: "integer", description: "The base of the triangle." },
      height: { type: "integer", description: "The height of the triangle." },
    },
    required: ["base", "height"],
  },
};
const CONVERT: BfclFunction = {
  name: "currency_conversion.convert",
  description: "Convert an amount from one currency to another.",
  parameters: {
    type: "dict",
    properties: {
      amount: { type: "number", description: "The amount to convert." },
      from_currency: { type: "string", description: "The currency to convert from." },
      to_currency: { type: "string", description: "The currency to convert to." },
    },
    required: ["amount", "from_currency", "to_currency"],
  },
};

describe.skipIf(!ready)("the decision over the real llama-server (SmolLM2-135M-Instruct)", () => {
  /** A whole run over the server (the handle itself: the decision crosses as each step's schema). */
  async function run(question: string, functions: BfclFunction[]) {
    const http = openAICompatibleModel({
      baseURL: server.baseURL,
      model: "smollm2",
      promptMode: "completion",
      structuredOutput: "gbnf",
    });
    await http.connect();
    const state = await new Agent({ model: http, registry: bfclRegistry(functions) }).run(question, {
      maxIterations: 4,
    });
    const events = state.stream.toArray();
    expect(events.filter((e) => e.type === "model-error")).toEqual([]);
    const calls = events.filter((e): e is Extract<AgentEvent, { type: "call-skill" }> => e.type === "call-skill");
    return { state, calls };
  }

  it("a question no offered skill fits is answered without a call; one of three skills that fits is the one called", async () => {
    // left to itself (--decision off), SmolLM2 calls on every irrelevant question (docs/results/decision.md)
    const joke = await run("Tell me a joke about penguins.", [DIVIDEND, TRIANGLE, CONVERT]);
    expect(joke.calls).toEqual([]);
    expect(joke.state.answer?.trim()).not.toBe("");
    const dividend = await run(QUESTION, [TRIANGLE, CONVERT, DIVIDEND]);
    expect(dividend.calls.map((c) => c.skillName)).toEqual([DIVIDEND.name]);
    // one call, then the answer: the results are in at step 2
    expect(dividend.state.iterations).toBe(2);
    expect(dividend.state.answer).toBeDefined();
  }, 300_000);
});
