/**
 * The grammar guarantee on real weights and real-world schemas: BFCL questions (all five categories in evals/bfcl),
 * each question's functions as the registry, one agent step each, greedy. Constrained, with jump-forward on and off,
 * every reply must parse, name one of the question's functions and validate against its schema: 100%; how often the
 * two write the same action is counted (forced text is tokenized as the model writes it, which can change what a
 * small model writes next). The first question of each category unconstrained is counted too (a base model writes
 * JSON only by luck). CI takes a fixed sample, the first GEMMA_AGENT_BFCL_PER_CATEGORY questions of each category
 * (default 2); `GEMMA_AGENT_BFCL_PER_CATEGORY=all` runs every question (hours on 2 CPU cores).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, AgentState } from "../../src/agent/index.js";
import { bfclTasks } from "../../src/eval/bfcl/bfcl-tasks.js";
import { loadBfclCategory } from "../../src/eval/bfcl/bfcl-files.js";
import type { EvalTask } from "../../src/eval/runner/eval-task.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { benchAccess } from "../../src/model/llama/bench-access.js";
import { loadTestModel, realTestModels } from "../helpers/test-models.js";

const BFCL = join(import.meta.dirname, "../../evals/bfcl");
const CATEGORIES = ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"];
const perCategory =
  process.env.GEMMA_AGENT_BFCL_PER_CATEGORY === "all"
    ? Infinity
    : Number(process.env.GEMMA_AGENT_BFCL_PER_CATEGORY ?? 2);
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

describe.each(realTestModels())("BFCL schemas on $name", ({ name, path }) => {
  let model: LlamaModelHandle;
  beforeAll(async () => {
    if (path) model = await loadTestModel(path);
  }, 120_000);
  afterAll(() => model?.dispose());

  it.skipIf(!path)(
    "constrained, jump-forward on and off: every reply parses, names a real function and validates; unconstrained: counted",
    async () => {
      const tasks = sampleTasks();
      expect(tasks.length).toBeGreaterThanOrEqual(Math.min(perCategory, 3) * CATEGORIES.length);
      const refused: string[] = [];
      const tokens = { on: 0, off: 0 };
      let same = 0;
      let unconstrained = 0;
      let unconstrainedFailures = 0;
      for (const [index, { category, task }] of tasks.entries()) {
        const step = async (grammar: boolean) => {
          const agent = new Agent({
            model,
            registry: task.registry,
            grammar,
            maxTokens: grammar ? MAX_TOKENS : MAX_TOKENS_UNCONSTRAINED,
            ...(task.parallelCalls && { parallelCalls: true }),
          });
          return agent.step(new AgentState(task.query));
        };
        const replies: string[] = [];
        for (const jumpForward of [true, false]) {
          benchAccess(model).setJumpForward(jumpForward);
          const reply = await step(true);
          tokens[jumpForward ? "on" : "off"] += model.stats.generatedTokens;
          replies.push(reply.type === "validation-error" ? "" : JSON.stringify({ ...reply, raw: undefined }));
          // Cut by the token budget is the only way a constrained reply may fail, and the wrap-up prevents even that.
          if (reply.type === "validation-error")
            refused.push(
              `${category} ${task.id} (jump-forward ${jumpForward ? "on" : "off"}): ${reply.errorType ?? reply.validatorName}: ${reply.feedback.slice(0, 200)}`,
            );
          else if (reply.type === "call-skill") expect(task.registry.names()).toContain(reply.skillName);
          else if (reply.type === "call-skills")
            for (const call of reply.calls) expect(task.registry.names()).toContain(call.skillName);
        }
        benchAccess(model).setJumpForward(true);
        if (replies[0] === replies[1]) same++;
        if (index % perCategory === 0) {
          unconstrained++;
          const reply = await step(false);
          if (reply.type === "validation-error" && reply.validatorName === "action_parse") unconstrainedFailures++;
        }
      }
      const n = tasks.length;
      console.info(
        `${name}: ${n} BFCL questions; constrained: ${2 * n - refused.length}/${2 * n} valid (jump-forward on and off), ` +
          `${(tokens.on / n).toFixed(1)} / ${(tokens.off / n).toFixed(1)} generated tokens per action (on / off), ` +
          `the same action ${same}/${n}; unconstrained: ${unconstrainedFailures}/${unconstrained} did not parse as an action within ${MAX_TOKENS_UNCONSTRAINED} tokens`,
      );
      expect(refused).toEqual([]);
    },
    1_200_000,
  );
});
