/**
 * Issue 19 §2 on real weights: SmolLM2-135M-Instruct in a 1,024-token context, with every skill of evals/basic.json
 * (its full first prompt is over 1,100 tokens as SmolLM2's tokenizer counts it, the compact one about 520). The run
 * condenses its system prompt to the compact style instead of ending in a model error, and every prompt it sends
 * leaves room for the reply inside the context. One thread (other work shares the cores).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, AgentState } from "../../src/agent/index.js";
import { MIN_REPLY_TOKENS } from "../../src/defaults.js";
import { loadSuite } from "../../src/eval/suite/load-suite.js";
import { suiteSkills } from "../../src/eval/suite/task-registry.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { loadTestModel, testModelPath } from "../helpers/test-models.js";

const smolPath = testModelPath("GEMMA_AGENT_TEST_MODEL_INSTRUCT");
const CONTEXT = 1024;
const MAX_ITERATIONS = 3;

describe.skipIf(!smolPath)("SmolLM2-135M-Instruct in a 1,024-token context with a full prompt too large for it", () => {
  let model: LlamaModelHandle;
  beforeAll(async () => {
    model = await loadTestModel(smolPath!, { contextSize: CONTEXT, threads: 1 });
  }, 120_000);
  afterAll(() => model?.dispose());

  it("condenses the system prompt to the compact style and runs its steps without a model error", async () => {
    const suite = loadSuite("evals/basic.json");
    const task = suite.tasks.find((t) => t.id === "lookup-4-hop")!;
    // the JSON Schema form of the skills (the full prompt as measured: over the context), not the shorter detail lines
    const agent = new Agent({ model, registry: suiteSkills(suite), paramDetails: false });
    const probe = new AgentState(task.query);
    const full = model.countTokens(agent.renderPrompt(probe));
    const compact = model.countTokens(agent.renderPrompt(probe, { promptStyle: "compact" }));
    // the premise: the full first prompt leaves under MIN_REPLY_TOKENS of the context, the compact one plenty
    expect(CONTEXT - full).toBeLessThan(MIN_REPLY_TOKENS);
    expect(CONTEXT - compact - model.replyOverrun).toBeGreaterThan(4 * MIN_REPLY_TOKENS);

    const state = await agent.run(task.query, { maxIterations: MAX_ITERATIONS });

    expect(state.stream.ofType("model-error")).toEqual([]);
    expect(["answer", "max_iterations"]).toContain(state.stopReason);
    // the run goes on after condensing (with the thought last SmolLM2 may answer this one at once; a later step, when
    // there is one, stays in the compact style: the standalone test/agent/condense-prompt.test.ts covers several)
    expect(state.iterations).toBeGreaterThanOrEqual(1);
    expect(state.stream.ofType("call-skill").length + state.stream.ofType("final-answer").length).toBeGreaterThan(0);
    const trims = state.stream.ofType("context-trimmed");
    expect(trims[0]).toMatchObject({
      step: 1,
      promptStyle: "compact",
      promptTokensBefore: full,
      promptTokensAfter: compact,
      contextSize: CONTEXT,
    });
    expect(trims.filter((t) => t.promptStyle !== "compact")).toEqual([]);
    for (const trim of trims) expect(trim.promptTokensAfter + trim.replyTokens).toBeLessThanOrEqual(CONTEXT);
    // no prompt the model evaluated came near the context's end
    expect(state.usage.largestPrompt).toBeLessThanOrEqual(CONTEXT - MIN_REPLY_TOKENS);
  }, 300_000);
});
