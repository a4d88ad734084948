import { describe, expect, it } from "vitest";
import { ScriptedModel, ScriptedModelError } from "../../src/testing/index.js";

describe("ScriptedModel", () => {
  it("replies in order, with strings or functions of the prompt, and records every call", async () => {
    const model = new ScriptedModel(["one", (prompt) => `echo:${prompt}`]);
    expect(await model.generate("p1", { maxTokens: 5 })).toBe("one");
    expect(await model.generate("p2")).toBe("echo:p2");
    expect(model.calls).toEqual([
      { prompt: "p1", options: { maxTokens: 5 } },
      { prompt: "p2", options: {} },
    ]);
    model.assertConsumed();
  });

  it("fails loudly when called more often than scripted", async () => {
    const model = new ScriptedModel(["only"]);
    await model.generate("a");
    await expect(model.generate("b")).rejects.toThrow(ScriptedModelError);
    await expect(model.generate("c")).rejects.toThrow(/called 3 times but only 1/);
  });

  it("assertConsumed fails when replies are left over", async () => {
    const model = new ScriptedModel(["a", "b", "c"]);
    await model.generate("x");
    expect(() => model.assertConsumed()).toThrow(/2 of 3 scripted replies were never used/);
  });

  it("honours an aborted signal", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(new ScriptedModel(["a"]).generate("x", { signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
  });
});
