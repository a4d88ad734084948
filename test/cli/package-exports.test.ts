/** The built package as a user imports it: `gemma-agent`, `gemma-agent/testing`, `gemma-agent/llama` (npm test builds first). */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("package exports", () => {
  it("resolve to the built files and run an agent end to end", () => {
    const script = `
      import { Agent, Registry, builtinSkills } from "gemma-agent";
      import { ScriptedModel, answerReply, callReply } from "gemma-agent/testing";
      import { loadModel } from "gemma-agent/llama";
      const model = new ScriptedModel([callReply("calculator", { expression: "6*7" }), answerReply("42")]);
      const state = await new Agent({ model, registry: new Registry(builtinSkills()) }).run("6*7?");
      console.log(JSON.stringify([state.answer, state.stream.ofType("observation")[0].result, typeof loadModel]));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(JSON.parse(out)).toEqual(["42", "42", "function"]);
  });
});
