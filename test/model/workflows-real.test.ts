/**
 * The workflow examples on the real test models: every example under examples/workflows/ on SmolLM2-135M-Instruct,
 * and the router on Gemma 3 270M. They show plumbing, not answer quality: each run ends, each model call is a
 * `model-call` event with the tokens the model counted for it, structured replies parse under the grammar, and the
 * recorded trace replays to the same events. Threads: GEMMA_AGENT_TEST_THREADS, else 1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, EventStream, type AgentEvent, type AgentState } from "../../src/agent/index.js";
import { ReplayModel } from "../../src/eval/models/replay-model.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { builtinSkills } from "../../src/skills/builtin/index.js";
import { Registry } from "../../src/skills/index.js";
import type { Workflow } from "../../src/workflows/index.js";
import chain from "../../examples/workflows/chain.js";
import evaluatorOptimizer from "../../examples/workflows/evaluator-optimizer.js";
import orchestratorWorkers from "../../examples/workflows/orchestrator-workers.js";
import parallel from "../../examples/workflows/parallel.js";
import router from "../../examples/workflows/router.js";
import { loadTestModel, testModelPath } from "../helpers/test-models.js";

const threads = Number(process.env.GEMMA_AGENT_TEST_THREADS ?? 1);
const skills = () => new Registry(builtinSkills()).scope(["calculator", "convert_units"]);

const EXAMPLES: [string, Workflow, string][] = [
  ["router", router, "What is 17 times 23 plus 4?"],
  ["chain", chain, "How many kilograms is 150 pounds?"],
  ["parallel", parallel, "The battery lasts two days but the screen scratches easily."],
  ["orchestrator-workers", orchestratorWorkers, "What is 15% of 80, and how many km is 5 miles?"],
  ["evaluator-optimizer", evaluatorOptimizer, "A guide to growing tomatoes on a balcony"],
];

/** The events with what differs between two runs of the same replies (times) left out. */
const timeless = (events: readonly AgentEvent[]) =>
  JSON.parse(
    JSON.stringify(events, (key, value) => (key === "at" || key === "ms" || key === "tokens" ? undefined : value)),
  );

/** What every real-model workflow run must show, whatever the model answered. */
function checkRun(state: AgentState): void {
  expect(state.stopReason).toBe("answer");
  expect(state.answer?.trim().length).toBeGreaterThan(0);
  const calls = state.stream.ofType("model-call");
  expect(calls.length).toBe(state.iterations);
  for (const call of calls) {
    expect(call.tokens!.prompt).toBeGreaterThan(0);
    expect(call.tokens!.generated).toBeGreaterThan(0);
    if (call.structured) expect(call.value).toBeDefined(); // the grammar held: the reply parsed and passed its schema
  }
  expect(state.stats.generatedTokens).toBe(calls.reduce((sum, c) => sum + c.tokens!.generated, 0));
  expect(state.stats.promptTokens).toBe(calls.reduce((sum, c) => sum + c.tokens!.prompt, 0));
}

const instruct = testModelPath("GEMMA_AGENT_TEST_MODEL_INSTRUCT");

describe.skipIf(!instruct)("workflow examples on SmolLM2-135M-Instruct", () => {
  let model: LlamaModelHandle;
  beforeAll(async () => {
    model = await loadTestModel(instruct!, { threads, contextSize: 2048 });
  }, 120_000);
  afterAll(() => model?.dispose());

  it.each(EXAMPLES)(
    "%s runs to an answer, every model call recorded with its tokens, and replays",
    async (_name, workflow, query) => {
      const state = await new Agent({ model, registry: skills() }).run(workflow, query);
      checkRun(state);
      const trace = EventStream.fromJSONL(state.stream.toJSONL()).toArray();
      const replay = new ReplayModel(trace);
      const again = await new Agent({ model: replay, registry: skills() }).run(workflow, query);
      expect(timeless(again.stream.toArray())).toEqual(timeless(trace));
      expect(replay.unusedSteps).toBe(0);
    },
    180_000,
  );
});

const gemma = testModelPath("GEMMA_AGENT_TEST_MODEL");

describe.skipIf(!gemma)("the router example on Gemma 3 270M", () => {
  let model: LlamaModelHandle;
  beforeAll(async () => {
    model = await loadTestModel(gemma!, { threads, contextSize: 2048 });
  }, 120_000);
  afterAll(() => model?.dispose());

  it("classifies under the grammar into one of the routes and runs it", async () => {
    const state = await new Agent({ model, registry: skills() }).run(router, "Convert 26.2 miles to kilometers.");
    checkRun(state);
    const route = state.stream.ofType("workflow-note")[0].data as { route: string };
    expect(["calculate", "convert", "answer"]).toContain(route.route);
  }, 180_000);
});
