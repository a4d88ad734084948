/** `gemma-agent/http` as a user imports it from the built package (npm test builds first), against a fake server. */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeServer, type FakeServer } from "../fake-server.js";

let server: FakeServer;
beforeAll(async () => {
  server = await startFakeServer({
    dialect: "ollama",
    models: ["gemma3:latest"],
    reply: () => '{"final_answer":"42"}',
  });
});
afterAll(() => server.close());

describe("gemma-agent/http", () => {
  it("resolves to the built files: an agent runs on a model server through it", async () => {
    const script = `
      import { Agent, Registry, builtinSkills } from "gemma-agent";
      import { openAICompatibleModel, HttpModelError, DIALECTS } from "gemma-agent/http";
      const model = openAICompatibleModel({ baseURL: ${JSON.stringify(server.baseURL)}, model: "gemma3" });
      const state = await new Agent({ model, registry: new Registry(builtinSkills()) }).run("6*7?");
      console.log(JSON.stringify([state.answer, model.info.dialect, typeof HttpModelError, Object.keys(DIALECTS)]));`;
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(JSON.parse(stdout)).toEqual([
      "42",
      "ollama",
      "function",
      ["llama-server", "vllm", "ollama", "lmstudio", "openai"],
    ]);
    expect(server.generateRequests()[0].body!.format).toBeDefined();
  });
});
