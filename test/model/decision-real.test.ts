/**
 * The decision at a reply's branch points (issues 39 and 40) on real weights: whether to call, which skill, one call
 * per item of the question, a chain that carries a result on, and the answer right after the last result. The BFCL
 * questions are even-numbered ones (those the weights were chosen on). Runs when GEMMA_AGENT_TEST_MODEL /
 * GEMMA_AGENT_TEST_MODEL_INSTRUCT point at the test models (see test/helpers/test-models.ts; CI sets both).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { BUNDLED_BFCL_DIR, loadBfclCategory } from "../../src/eval/bfcl/bfcl-files.js";
import { bfclTasks } from "../../src/eval/bfcl/bfcl-tasks.js";
import { collectCalls } from "../../src/eval/runner/collect-calls.js";
import { loadSuite } from "../../src/eval/suite/load-suite.js";
import { suiteSkills, taskRegistry } from "../../src/eval/suite/task-registry.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { loadTestModel, realTestModels } from "../helpers/test-models.js";

const task = (category: string, id: string) =>
  bfclTasks(loadBfclCategory(BUNDLED_BFCL_DIR, category)).tasks.find((t) => t.id === id)!;

/** A lookup skill over a small table (a suite's data skill, written out). */
const lookup = (name: string, description: string, key: string, table: Record<string, string>) =>
  defineSkill({
    name,
    description,
    parameters: z.object({ [key]: z.string().describe(`${key[0].toUpperCase()}${key.slice(1)} name`) }),
    run: (args: Record<string, string>) => {
      const found = Object.entries(table).find(([k]) => k.toLowerCase() === String(args[key]).trim().toLowerCase());
      if (!found) throw new Error(`no entry for ${JSON.stringify(args[key])}; known: ${Object.keys(table).join(", ")}`);
      return found[1];
    },
  });

const capitals = lookup("country_capital", "The capital city of a country.", "country", {
  Kenya: "Nairobi",
  Italy: "Rome",
  Japan: "Tokyo",
  France: "Paris",
});
const landmarks = lookup("landmark_country", "The country a famous landmark is in.", "landmark", {
  "Mount Fuji": "Japan",
  "Eiffel Tower": "France",
});

/** A task of the built-in suite with its own skills, as `gemma-agent eval evals/basic.json` runs it. */
const basicTask = (id: string) => {
  const suite = loadSuite("evals/basic.json");
  const found = suite.tasks.find((t) => t.id === id)!;
  return { query: found.query, registry: taskRegistry(suiteSkills(suite), found) };
};

describe.each(realTestModels())("the decision on real weights ($name)", ({ path }) => {
  let model: LlamaModelHandle;
  beforeAll(async () => {
    if (path) model = await loadTestModel(path);
  }, 120_000);
  afterAll(() => model?.dispose());

  it.skipIf(!path)(
    "answers a question no offered skill fits without a call; the model alone calls (BFCL irrelevance_2)",
    async () => {
      const { query, registry } = task("irrelevance", "irrelevance_2");
      const scored = await new Agent({ model, registry }).run(query, { maxIterations: 4 });
      expect(collectCalls(scored.stream)).toEqual([]);
      expect(scored.answer).toBeTruthy();
      const alone = await new Agent({ model, registry, decision: "off" }).run(query, { maxIterations: 1 });
      expect(collectCalls(alone.stream).length).toBeGreaterThan(0);
    },
    240_000,
  );

  it.skipIf(!path)(
    "calls the one of three offered skills the question fits (BFCL multiple_2: the capital of Brazil)",
    async () => {
      const { query, registry } = task("multiple", "multiple_2");
      expect(registry.size).toBe(3);
      const state = await new Agent({ model, registry }).run(query, { maxIterations: 1 });
      expect(collectCalls(state.stream).map((call) => call.skillName)).toEqual(["country_info.capital"]);
      // the decision event says how: the model's own log-probabilities and the offsets, per option
      const decision = state.stream.ofType("decision")[0];
      const skill = decision?.branches.find((branch) => branch.at === "skill");
      expect(skill?.chosen).toBe("country_info.capital");
      expect(skill?.options.map((option) => option.option).sort()).toEqual(
        registry.names().sort((a, b) => a.localeCompare(b)),
      );
    },
    180_000,
  );

  it.skipIf(!path)(
    "still calls on a question its one skill fits, and answers at step 2 (BFCL simple_python_0)",
    async () => {
      const { query, registry } = task("simple_python", "simple_python_0");
      const state = await new Agent({ model, registry }).run(query, { maxIterations: 4 });
      expect(collectCalls(state.stream)).toEqual([
        { skillName: "calculate_triangle_area", arguments: expect.objectContaining({ base: 10, height: 5 }) },
      ]);
      expect(state.stopReason).toBe("answer");
      expect(state.iterations).toBe(2);
      expect(state.stream.ofType("call-skill").filter((call) => call.repeated)).toEqual([]);
    },
    180_000,
  );

  it.skipIf(!path)(
    "gives two items of a question two calls, each its own",
    async () => {
      const registry = new Registry([capitals]);
      const state = await new Agent({ model, registry }).run("What are the capitals of Kenya and Italy?", {
        maxIterations: 4,
      });
      expect(collectCalls(state.stream).map((call) => call.arguments.country)).toEqual(["Kenya", "Italy"]);
    },
    180_000,
  );

  it.skipIf(!path)(
    "carries the first call's result into the second (a chain), then answers from it",
    async () => {
      const registry = new Registry([landmarks, capitals]);
      const state = await new Agent({ model, registry }).run(
        "What is the capital of the country where Mount Fuji is?",
        { maxIterations: 4 },
      );
      expect(collectCalls(state.stream)).toEqual([
        { skillName: "landmark_country", arguments: { landmark: "Mount Fuji" } },
        { skillName: "country_capital", arguments: { country: "Japan" } },
      ]);
      expect(state.answer).toContain("Tokyo");
    },
    180_000,
  );

  it.skipIf(!path)(
    "carries each hop of one skill on: the manager of the manager of Alice's manager (basic.json)",
    async () => {
      const { query, registry } = basicTask("lookup-manager-chain");
      const state = await new Agent({ model, registry }).run(query, { maxIterations: 8 });
      // each hop takes the result before it, not the question's "Alice" again
      expect(collectCalls(state.stream).map((call) => call.arguments.employee)).toEqual(["Alice", "Bob", "Carol"]);
      expect(state.answer).toContain("Dana");
    },
    180_000,
  );

  it.skipIf(!path)(
    "writes an arithmetic chain as the calculator reads it, the result carried on (basic.json arith-chain-2)",
    async () => {
      const { query, registry } = basicTask("arith-chain-2");
      const state = await new Agent({ model, registry }).run(query, { maxIterations: 8 });
      // the question's "(" begins the first expression; the second is "divide the result by 4" with the result in
      expect(collectCalls(state.stream).map((call) => call.arguments.expression)).toEqual([
        "(12.5 + 7.5) * 3",
        "60 / 4",
      ]);
      expect(state.answer).toContain("15");
    },
    180_000,
  );
});
