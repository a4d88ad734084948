/**
 * The OpenTelemetry GenAI spans of a run, read with the SDK's in-memory exporter: the application registers an SDK
 * (here a BasicTracerProvider and the AsyncLocalStorage context manager, as NodeSDK does), the runtime uses only
 * @opentelemetry/api.
 */
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, agentAsSkill } from "../../src/agent/index.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";
import { mathRegistry } from "../helpers/skills.js";

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
});
beforeEach(() => exporter.reset());

const spans = () => exporter.getFinishedSpans();
const named = (name: string) => spans().filter((s) => s.name === name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe("spans of a run (OpenTelemetry GenAI conventions)", () => {
  it("invoke_agent <name>, a chat <model> child per model call with its tokens, an execute_tool <name> child per skill call", async () => {
    const model = new ScriptedModel([callReply("add", { a: 2, b: 3 }), answerReply("5")], {
      name: "tiny-model",
      reportTokens: true,
    });
    const agent = new Agent({ model, registry: mathRegistry(), name: "adder", description: "Adds numbers." });
    const state = await agent.run("What is 2+3?");
    expect(state.answer).toBe("5");
    const [run] = named("invoke_agent adder");
    expect(run.kind).toBe(SpanKind.INTERNAL);
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "adder",
      "gen_ai.agent.description": "Adds numbers.",
      "gen_ai.request.model": "tiny-model",
      "gen_ai.provider.name": "scripted",
      "gemma_agent.stop_reason": "answer",
    });
    expect(run.status.code).not.toBe(SpanStatusCode.ERROR);
    const chats = named("chat tiny-model");
    expect(chats).toHaveLength(2);
    for (const [i, chat] of chats.entries()) {
      expect(chat.kind).toBe(SpanKind.CLIENT);
      expect(parentOf(chat)).toBe(run.spanContext().spanId);
      expect(chat.attributes["gen_ai.operation.name"]).toBe("chat");
      expect(chat.attributes["gen_ai.output.type"]).toBe("json");
      expect(chat.attributes["gen_ai.request.max_tokens"]).toBe(512);
      // the scripted model counts words: the prompt's and the reply's of that call
      expect(chat.attributes["gen_ai.usage.input_tokens"]).toBe(
        model.calls[i].prompt.split(/\s+/).filter(Boolean).length,
      );
      expect(chat.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    }
    const [tool] = named("execute_tool add");
    expect(tool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "add",
      "gen_ai.tool.type": "function",
      "gen_ai.tool.description": "Add two numbers.",
      "gen_ai.tool.call.id": "1.0",
    });
    expect(parentOf(tool)).toBe(run.spanContext().spanId);
    const total = chats.reduce((n, c) => n + Number(c.attributes["gen_ai.usage.input_tokens"]), 0);
    expect(run.attributes["gen_ai.usage.input_tokens"]).toBe(total);
  });

  it("records errors: a failing skill's span, a model call that throws, and the run that ends without an answer", async () => {
    const model = new ScriptedModel([
      callReply("explode"),
      () => {
        throw new Error("the model fell over");
      },
    ]);
    const state = await new Agent({ model, registry: mathRegistry(), name: "fragile" }).run("Go");
    expect(state.stopReason).toBe("model_error");
    const [tool] = named("execute_tool explode");
    expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: "kaboom: the reactor is offline" });
    expect(tool.attributes["error.type"]).toBe("tool_error");
    const chats = named("chat scripted");
    expect(chats[1].status.code).toBe(SpanStatusCode.ERROR);
    expect(chats[1].events.map((e) => e.name)).toContain("exception");
    const [run] = named("invoke_agent fragile");
    expect(run.status).toEqual({ code: SpanStatusCode.ERROR, message: "the model fell over" });
    expect(run.attributes["error.type"]).toBe("model_error");
  });

  it("a nested agent's invoke_agent span is a child of the supervisor's execute_tool span", async () => {
    const model = new ScriptedModel([
      callReply("ask_expert", { task: "2+3" }),
      callReply("add", { a: 2, b: 3 }),
      answerReply("5"),
      answerReply("The expert says 5."),
    ]);
    const expert = new Agent({ model, registry: mathRegistry(), name: "expert" });
    const registry = new Registry([agentAsSkill(expert, { name: "ask_expert", description: "Asks the expert." })]);
    const state = await new Agent({ model, registry, name: "supervisor" }).run("What is 2+3?");
    expect(state.answer).toBe("The expert says 5.");
    const [supervisor] = named("invoke_agent supervisor");
    const [delegation] = named("execute_tool ask_expert");
    const [nested] = named("invoke_agent expert");
    const [inner] = named("execute_tool add");
    expect(parentOf(delegation)).toBe(supervisor.spanContext().spanId);
    expect(parentOf(nested)).toBe(delegation.spanContext().spanId);
    expect(parentOf(inner)).toBe(nested.spanContext().spanId);
    expect(new Set(spans().map((s) => s.spanContext().traceId)).size).toBe(1);
  });

  it("a run that hits a constraint ends its span as an error of that kind", async () => {
    const model = new ScriptedModel([answerReply("As a language model, I cannot.")]);
    const agent = new Agent({
      model,
      registry: new Registry([
        defineSkill({ name: "noop", description: "Nothing.", parameters: z.object({}), run: () => "ok" }),
      ]),
      name: "careful",
      constraints: { forbiddenPatterns: ["as a language model"] },
    });
    expect((await agent.run("Hi")).stopReason).toBe("constraint_violated");
    const [run] = named("invoke_agent careful");
    expect(run.attributes["error.type"]).toBe("constraint_violated");
    expect(run.status.message).toMatch(/forbidden pattern/);
  });
});
