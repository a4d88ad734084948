import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../src/agent/agent.js";
import { CodedError, errorFromJson, errorToJson } from "../src/coded-error.js";
import { bfclRegistry } from "../src/eval/bfcl/bfcl-skills.js";
import { ReplayMismatchError, ReplayModel } from "../src/eval/models/replay-model.js";
import { GbnfParseError, parseGbnf } from "../src/model/gbnf/gbnf-parse.js";
import { JsonSchemaGrammarError, jsonSchemaToGbnf } from "../src/model/gbnf/json-schema-to-gbnf.js";
import { ContextOverflowError, fitContext } from "../src/memory/fit-context.js";
import { evaluateExpression, ExpressionError } from "../src/skills/builtin/index.js";
import { defineSkill, Registry } from "../src/skills/index.js";
import { answerReply, callReply, ScriptedModel, ScriptedModelError } from "../src/testing/index.js";

/** What `fn` throws (it must throw). */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("the errors a caller switches on carry a stable code", () => {
  it("JsonSchemaGrammarError: unsatisfiable, malformed, unknown_type, unresolved_ref", () => {
    const cases: [unknown, string][] = [
      [false, "unsatisfiable"],
      [{ type: "integer", minimum: 3, maximum: 2 }, "unsatisfiable"],
      [{ enum: [] }, "malformed"],
      [{ type: "float" }, "unknown_type"],
      [{ $ref: "#/nowhere" }, "unresolved_ref"],
    ];
    for (const [schema, code] of cases) {
      const error = thrown(() => jsonSchemaToGbnf(schema as never));
      expect(error).toBeInstanceOf(JsonSchemaGrammarError);
      expect(error).toBeInstanceOf(CodedError);
      expect(error).toMatchObject({ name: "JsonSchemaGrammarError", code });
    }
  });

  it("GbnfParseError: syntax, undefined_rule, no_root", () => {
    expect(thrown(() => parseGbnf('root ::= "a'))).toMatchObject({ code: "syntax", name: "GbnfParseError" });
    expect(thrown(() => parseGbnf('root ::= "a" b'))).toMatchObject({ code: "undefined_rule" });
    expect(thrown(() => parseGbnf('start ::= "a"'))).toMatchObject({ code: "no_root" });
    expect(thrown(() => parseGbnf('root ::= "a" b'))).toBeInstanceOf(GbnfParseError);
  });

  it("ExpressionError: syntax, math, too_large; the message stays the model's", () => {
    const cases: [string, string, RegExp][] = [
      ["2 +", "syntax", /ends too early/],
      ["foo(2)", "syntax", /Unknown name/],
      ["1/0", "math", /Division by zero/],
      ["sqrt(-4)", "math", /no real result/],
      ["7 % 0", "math", /Modulo by zero/],
      ["1+".repeat(400) + "1", "too_large", /too long/],
    ];
    for (const [expression, code, message] of cases) {
      const error = thrown(() => evaluateExpression(expression));
      expect(error).toBeInstanceOf(ExpressionError);
      expect(error).toMatchObject({ code });
      expect((error as Error).message).toMatch(message);
    }
  });

  it("BfclConversionError: duplicate and not_object, with the function's name", () => {
    const fn = { name: "f", description: "", parameters: { type: "dict", properties: {} } };
    expect(thrown(() => bfclRegistry([fn, fn]))).toMatchObject({ code: "duplicate", functionName: "f" });
    const notObject = { name: "g", description: "", parameters: { type: "string" } };
    expect(thrown(() => bfclRegistry([notObject]))).toMatchObject({ code: "not_object", functionName: "g" });
  });

  it("ScriptedModelError: exhausted and unused", async () => {
    const model = new ScriptedModel(["a", "b"]);
    expect(thrown(() => model.assertConsumed())).toMatchObject({ code: "unused", name: "ScriptedModelError" });
    await model.generate("p");
    await model.generate("p");
    const error: unknown = await model.generate("p").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScriptedModelError);
    expect(error).toMatchObject({ code: "exhausted" });
  });

  it("ReplayMismatchError: beyond_recording, query_differs, diverged", async () => {
    const registry = new Registry([
      defineSkill({
        name: "capital",
        description: "capital of a country",
        parameters: z.object({ country: z.string() }),
        run: () => "Paris",
      }),
    ]);
    const replies = [callReply("capital", { country: "France" }), answerReply("Paris")];
    const record = async (maxIterations?: number) =>
      (
        await new Agent({ model: new ScriptedModel(replies), registry }).run("Capital of France?", { maxIterations })
      ).stream.toArray();
    const failure = (model: ReplayModel, prompt: string) => model.generate(prompt).catch((e: unknown) => e);
    // the recorded query is known from a run that stopped at its iteration budget
    const stopped = new ReplayModel(await record(1));
    expect(await failure(stopped, "another question")).toMatchObject({ code: "query_differs", step: 1 });
    const events = await record();
    const diverging = new ReplayModel(events);
    await diverging.generate("Capital of France?");
    const diverged = await failure(diverging, "Capital of France? Result of capital: Lyon");
    expect(diverged).toBeInstanceOf(ReplayMismatchError);
    expect(diverged).toMatchObject({ code: "diverged", step: 2 });
    const replay = new ReplayModel(events);
    await replay.generate("Capital of France?");
    await replay.generate("Capital of France?\nResult of capital:\nParis");
    expect(await failure(replay, "p")).toMatchObject({ code: "beyond_recording", step: 3 });
  });

  it("ContextOverflowError: context_overflow, with the prompt's first count", async () => {
    const overflow = await fitContext({
      render: (drop) => "x".repeat(900 - drop * 10),
      countTokens: (prompt) => prompt.length,
      contextSize: 900,
      replyTokens: 128,
      replyOverrun: 0,
      dropped: 0,
      steps: 3,
    }).catch((error: unknown) => error);
    expect(overflow).toBeInstanceOf(ContextOverflowError);
    expect(overflow).toBeInstanceOf(CodedError);
    expect(overflow).toMatchObject({ code: "context_overflow", promptTokensBefore: 900 });
  });

  it("a coded error keeps its code through the evaluation worker's JSON", () => {
    const back = errorFromJson(errorToJson(thrown(() => evaluateExpression("1/0"))));
    expect(back).toBeInstanceOf(CodedError);
    expect(back).toMatchObject({ name: "ExpressionError", code: "math" });
  });
});
