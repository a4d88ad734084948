/** Each example under examples/workflows/ runs with its scripted replies (examples/workflows/replies/<name>.json). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { builtinSkills } from "../../src/skills/builtin/index.js";
import { Registry } from "../../src/skills/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import type { Workflow } from "../../src/workflows/index.js";
import chain from "../../examples/workflows/chain.js";
import evaluatorOptimizer from "../../examples/workflows/evaluator-optimizer.js";
import orchestratorWorkers from "../../examples/workflows/orchestrator-workers.js";
import parallel from "../../examples/workflows/parallel.js";
import router from "../../examples/workflows/router.js";

function replies(name: string): string[] {
  const list = JSON.parse(
    readFileSync(new URL(`../../examples/workflows/replies/${name}.json`, import.meta.url), "utf8"),
  ) as unknown[];
  return list.map((r) => (typeof r === "string" ? r : JSON.stringify(r)));
}

async function runExample(workflow: Workflow, name: string, query: string) {
  const model = new ScriptedModel(replies(name));
  const registry = new Registry(builtinSkills()).scope(["calculator", "convert_units"]);
  const state = await new Agent({ model, registry }).run(workflow, query);
  model.assertConsumed();
  return { state, model };
}

describe("examples/workflows with their scripted replies", () => {
  it("router: classify, one narrow call, the calculator", async () => {
    const { state } = await runExample(router, "router", "What is 17 times 23 plus 4?");
    expect(state.answer).toBe("17*23+4 = 395");
    expect(state.stream.ofType("call-skill")[0]).toMatchObject({ skillName: "calculator", origin: "workflow" });
  });

  it("chain: read, convert, say", async () => {
    const { state, model } = await runExample(chain, "chain", "How many kilograms is 150 pounds?");
    expect(state.answer).toBe("150 pounds is 68.0388555 kilograms.");
    expect(model.calls[1].prompt).toContain("say that 150 lb is 68.0388555 kg.");
  });

  it("parallel: a vote and two sections, merged", async () => {
    const { state } = await runExample(
      parallel,
      "parallel",
      "The battery lasts two days but the screen scratches easily.",
    );
    expect(state.answer).toBe("mixed (2 of 3 judges), about product: Long battery, fragile screen.");
    expect(state.stream.ofType("workflow-note")[0]).toMatchObject({
      label: "votes",
      data: { counts: { mixed: 2, negative: 1 } },
    });
  });

  it("orchestrator-workers: plan, the router on each part, synthesis", async () => {
    const { state, model } = await runExample(
      orchestratorWorkers,
      "orchestrator-workers",
      "What is 15% of 80, and how many km is 5 miles?",
    );
    expect(state.answer).toBe("15% of 80 is 12, and 5 miles is 8.04672 km.");
    expect(model.calls.at(-1)!.prompt).toContain("- What is 15% of 80?: 15/100*80 = 12");
    expect(model.calls.at(-1)!.prompt).toContain("- How many km is 5 miles?: 5 mi = 8.04672 km");
  });

  it("evaluator-optimizer: a draft, its critique, the revision that passes", async () => {
    const { state, model } = await runExample(
      evaluatorOptimizer,
      "evaluator-optimizer",
      "A guide to growing tomatoes on a balcony",
    );
    expect(state.answer).toBe("Balcony Tomatoes");
    expect(model.calls[2].prompt).toContain("Feedback: Too long, and it does not say tomatoes.");
  });
});
