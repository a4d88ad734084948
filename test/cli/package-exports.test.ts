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

  it("load an agent definition and hold a conversation with it (issue 14's API)", () => {
    const script = `
      import { loadAgentDefinition, agentFromDefinition, Conversation, parseSoul } from "gemma-agent";
      import { ScriptedModel } from "gemma-agent/testing";
      const definition = await loadAgentDefinition("examples/agents/unit-helper/agent.yaml");
      const model = new ScriptedModel([JSON.stringify({ final_answer: { value: 1, unit: "km", text: "One." } })]);
      const conversation = new Conversation();
      const result = await agentFromDefinition(definition, { model }).invoke("1 km?", { conversation });
      console.log(JSON.stringify([result.reply, conversation.turns.length, parseSoul("## Rules\\nx").sections[0].key]));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect(JSON.parse(out)).toEqual([{ value: 1, unit: "km", text: "One." }, 1, "rules"]);
  });
});
