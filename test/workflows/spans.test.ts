/** A workflow run has the loop's spans: invoke_agent for the run, chat per ctx.ask, execute_tool per ctx.call. */
import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { mathRegistry } from "../helpers/skills.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});

describe("spans of a workflow run", () => {
  it("nests a chat span per model call (with its tokens) and an execute_tool span per skill call in the run's span", async () => {
    const model = new ScriptedModel(['{"a": 2, "b": 3}', "five"], { name: "tiny", reportTokens: true });
    const agent = new Agent({ model, registry: mathRegistry(), name: "adder" });
    const state = await agent.run(async (ctx) => {
      const args = await ctx.ask("numbers?", { schema: z.object({ a: z.number(), b: z.number() }) });
      await ctx.call("add", args);
      await ctx.call("explode").catch(() => undefined);
      return ctx.ask("say it");
    }, "2 and 3");
    expect(state.answer).toBe("five");
    const spans = exporter.getFinishedSpans();
    const run = spans.find((s) => s.name === "invoke_agent adder")!;
    expect(run.attributes).toMatchObject({ "gemma_agent.stop_reason": "answer", "gemma_agent.iterations": 2 });
    const chats = spans.filter((s) => s.name === "chat tiny");
    expect(chats.map((s) => s.attributes["gen_ai.output.type"])).toEqual(["json", "text"]);
    expect(chats[1].attributes["gen_ai.usage.output_tokens"]).toBe(1);
    const tools = spans.filter((s) => s.name.startsWith("execute_tool"));
    expect(tools.map((s) => [s.name, s.status.code === SpanStatusCode.ERROR])).toEqual([
      ["execute_tool add", false],
      ["execute_tool explode", true],
    ]);
    for (const span of [...chats, ...tools]) expect(span.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
  });
});
