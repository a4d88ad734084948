/**
 * The grammar guarantee on real weights and real-world schemas: BFCL questions (all five categories in ../shared/bfcl),
 * each question's functions as the registry, one agent step each. Constrained, every reply must parse, name one of
 * the question's functions and validate against its schema: 100%. The same prompts unconstrained are counted (a base
 * model writes JSON only by luck). CI takes a fixed sample, the first GEMMA_AGENT_BFCL_PER_CATEGORY questions of each
 * category (default 3); `GEMMA_AGENT_BFCL_PER_CATEGORY=all` runs every question (hours on 2 CPU cores).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, AgentState } from "../../src/agent/index.js";
import { bfclTasks } from "../../src/eval/bfcl/bfcl-tasks.js";
import { loadBfclCategory } from "../../src/eval/bfcl/bfcl-files.js";
import type { EvalTask } from "../../src/eval/runner/eval-task.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { loadTestModel, testModelPath, type TestModelVariable } from "../helpers/test-models.js";

const BFCL = join(import.meta.dirname, "../../../shared/bfcl");
const CATEGORIES = ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"];
const perCategory =
  process.env.GEMMA_AGENT_BFCL_PER_CATEGORY === "all"
    ? Infinity
    : Number(process.env.GEMMA_AGENT_BFCL_PER_CATEGORY ?? 3);
/** Tokens per constrained reply (the wrap-up closes the JSON past it), and per unconstrained one: a valid action is
 * 30-80 tokens, and a base model that has not closed its JSON in 128 tokens is counted as failing. */
const MAX_TOKENS = 256;
const MAX_TOKENS_UNCONSTRAINED = 128;

function sampleTasks(): { category: string; task: EvalTask }[] {
  return CATEGORIES.flatMap((category) =>
    bfclTasks(loadBfclCategory(BFCL, category))
      .tasks.slice(0, perCategory)
      .map((task) => ({ category, task })),
  );
}

describe.each<[string, TestModelVariable]>([
  ["Gemma 3 270M", "GEMMA_AGENT_TEST_MODEL"],
  ["SmolLM2-135M-Instruct", "GEMMA_AGENT_TEST_MODEL_INSTRUCT"],
])("BFCL schemas on %s", (name, variable) => {
  const path = testModelPath(variable);
  let model: LlamaModelHandle;
  beforeAll(async () => {
    if (path) model = await loadTestModel(path);
  }, 120_000);
  afterAll(() => model?.dispose());

  it.skipIf(!path)(
    "constrained: every reply parses, names a real function and validates; unconstrained: counted",
    async () => {
      const tasks = sampleTasks();
      expect(tasks.length).toBeGreaterThanOrEqual(Math.min(perCategory, 3) * CATEGORIES.length);
      const refused: string[] = [];
      let tokens = 0;
      let unconstrainedFailures = 0;
      for (const { category, task } of tasks) {
        for (const grammar of [true, false]) {
          const agent = new Agent({
            model,
            registry: task.registry,
            grammar,
            maxTokens: grammar ? MAX_TOKENS : MAX_TOKENS_UNCONSTRAINED,
            ...(task.parallelCalls && { parallelCalls: true }),
          });
          const reply = await agent.step(new AgentState(task.query));
          if (grammar) {
            tokens += model.stats.generatedTokens;
            // Cut by the token budget is the only way a constrained reply may fail, and the wrap-up prevents even that.
            if (reply.type === "validation-error")
              refused.push(
                `${category} ${task.id}: ${reply.errorType ?? reply.validatorName}: ${reply.feedback.slice(0, 200)}`,
              );
            else if (reply.type === "call-skill") expect(task.registry.names()).toContain(reply.skillName);
            else if (reply.type === "call-skills")
              for (const call of reply.calls) expect(task.registry.names()).toContain(call.skillName);
          } else if (reply.type === "validation-error" && reply.validatorName === "action_parse")
            unconstrainedFailures++;
        }
      }
      console.info(
        `${name}: ${tasks.length} BFCL questions; constrained: ${tasks.length - refused.length}/${tasks.length} valid, ${(tokens / tasks.length).toFixed(1)} generated tokens per action; unconstrained: ${unconstrainedFailures}/${tasks.length} did not parse as an action within ${MAX_TOKENS_UNCONSTRAINED} tokens`,
      );
      expect(refused).toEqual([]);
    },
    1_200_000,
  );
});
