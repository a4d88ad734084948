import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ChildProcessModel, ModelProcessError } from "../../src/eval/models/child-process-model.js";
import { createModelProvider } from "../../src/eval/runner/model-providers.js";
import { parseModelSpec } from "../../src/eval/models/model-spec.js";
import { runEval } from "../../src/eval/runner/run-eval.js";
import type { EvalTask } from "../../src/eval/runner/eval-task.js";
import { ModelLoadError } from "../../src/model/errors.js";
import { defineSkill, Registry } from "../../src/skills/index.js";

const factory = fileURLToPath(new URL("../eval/fixtures/scripted-worker-factory.ts", import.meta.url));
const answer = (text: string) => JSON.stringify({ final_answer: text });
const FIXTURE_GGUF = fileURLToPath(new URL("../../models/fixtures/tiny-gemma3.gguf", import.meta.url));

function task(id: string): EvalTask {
  const registry = new Registry([
    defineSkill({ name: "noop", description: "does nothing", parameters: z.object({}), run: () => "ok" }),
  ]);
  return {
    id,
    query: `question ${id}`,
    registry,
    judge: ({ answer: a }) => ({ success: a === "fine", failures: a === "fine" ? [] : [`answer ${String(a)}`] }),
  };
}

describe("ChildProcessModel", () => {
  it("serves generate calls from the model process and mirrors its stats and chat format", async () => {
    const model = await ChildProcessModel.start({ factory, factoryOptions: { replies: ["__echo_prompt_length__"] } });
    try {
      expect(model.chatFormat?.name).toBe("gemma3");
      expect(model.info?.name).toBe("scripted-in-worker");
      expect(await model.generate("12345")).toBe("5");
      expect(await model.generate("1234567")).toBe("7");
      expect(model.stats?.promptTokens).toBe(20);
    } finally {
      await model.dispose();
    }
    expect(model.alive).toBe(false);
  });

  it("passes the call's grounding to the model process (a GGUF there biases tokens with it)", async () => {
    const model = await ChildProcessModel.start({ factory, factoryOptions: { replies: ["__echo_grounding__"] } });
    try {
      const grounding = { mode: "strict" as const, source: ["What is 17 times 23?"], avoid: ["You are an agent."] };
      expect(JSON.parse(await model.generate("p", { grounding }))).toEqual(grounding);
    } finally {
      await model.dispose();
    }
  });

  it("turns a native crash into a rejected call and a dead handle, without taking the parent down", async () => {
    const model = await ChildProcessModel.start({
      factory,
      factoryOptions: { replies: [answer("one"), "__segfault__"] },
    });
    expect(await model.generate("a")).toContain("one");
    await expect(model.generate("b")).rejects.toThrow(ModelProcessError);
    await expect(model.generate("b")).rejects.toThrow(/SIGSEGV/);
    expect(model.alive).toBe(false);
  });

  it("passes a ModelLoadError from the process through with its code", async () => {
    const started = ChildProcessModel.start({
      factory,
      factoryOptions: { replies: [], loadError: { code: "not_gguf", message: "not a GGUF file" } },
    });
    await expect(started).rejects.toBeInstanceOf(ModelLoadError);
    await expect(started).rejects.toMatchObject({ code: "not_gguf", message: "not a GGUF file" });
  });

  it("rejects at once on abort, and the process stays usable", async () => {
    const model = await ChildProcessModel.start({ factory, factoryOptions: { replies: [answer("x")] } });
    try {
      const controller = new AbortController();
      controller.abort(new Error("stop"));
      await expect(model.generate("p", { signal: controller.signal })).rejects.toThrow("stop");
      expect(await model.generate("p")).toContain("x");
    } finally {
      await model.dispose();
    }
  });
});

describe("GGUF provider", () => {
  it("makes a crash one failed task: the next task gets a fresh process", async () => {
    const provider = createModelProvider(parseModelSpec("models/fake.gguf"), {
      gguf: { factory, loadOptions: { replies: [answer("fine")], crashOnPrompt: "question a" } },
    });
    expect(provider.name).toBe("fake.gguf");
    const { records } = await runEval({
      tasks: [task("a"), task("b"), task("c")],
      providers: [provider],
      budgets: [3],
      seeds: [1],
    });
    expect(records.map((r) => r.taskId)).toEqual(["a", "b", "c"]);
    expect(records[0]).toMatchObject({ success: false, stopReason: "model_error" });
    expect(records[0].failures.join(" ")).toMatch(/model process exited.*SIGSEGV/);
    expect(records[1]).toMatchObject({ success: true, stopReason: "answer", answer: "fine" });
    expect(records[2]).toMatchObject({ success: true, stopReason: "answer" });
    // token counts come from the model process's stats
    expect(records[1].promptTokens).toBe(10);
  });

  it("fails the eval up front when the model cannot load", async () => {
    const provider = createModelProvider(parseModelSpec("missing.gguf"), {
      gguf: { factory, loadOptions: { replies: [], loadError: { code: "not_found", message: "no such model" } } },
    });
    await expect(
      runEval({ tasks: [task("a")], providers: [provider], budgets: [2], seeds: [1] }),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it.skipIf(!existsSync(FIXTURE_GGUF))(
    "runs a real GGUF (the fixture model) through llama.cpp in the model process",
    async () => {
      const model = await ChildProcessModel.start({ factoryOptions: { model: FIXTURE_GGUF, gpu: false, threads: 2 } });
      try {
        expect(model.info?.architecture).toBe("gemma3");
        const schema = {
          type: "object",
          properties: { final_answer: { type: "string", minLength: 1 } },
          required: ["final_answer"],
          additionalProperties: false,
        };
        const text = await model.generate("<start_of_turn>user\nSay hi<end_of_turn>\n<start_of_turn>model\n", {
          jsonSchema: schema,
          maxTokens: 24,
        });
        // random weights, real grammar: the reply is JSON with the one required key, however nonsensical its text
        expect(Object.keys(JSON.parse(text))).toEqual(["final_answer"]);
        expect(model.stats?.generatedTokens).toBeGreaterThan(0);
      } finally {
        await model.dispose();
      }
    },
    120_000,
  );
});
