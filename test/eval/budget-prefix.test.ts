import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { evaluateSuite } from "../../src/eval/evaluate.js";
import { createModelProvider, type ModelProvider } from "../../src/eval/runner/model-providers.js";
import { parseModelSpec } from "../../src/eval/models/model-spec.js";
import { answerReply, callReply } from "../../src/testing/index.js";
import type { RunRecord } from "../../src/eval/runner/run-record.js";

const BASIC = join(import.meta.dirname, "../../evals/basic.json");

/** A scripted provider (deterministic per seed) that counts the model calls it really serves. */
function counting(spec: string, deterministic: boolean): { provider: ModelProvider; calls: () => number } {
  const inner = createModelProvider(parseModelSpec(spec));
  let calls = 0;
  return {
    calls: () => calls,
    provider: {
      name: spec,
      concurrency: 1,
      deterministic,
      async acquire(task, seed) {
        const model = await inner.acquire(task, seed);
        return { chatFormat: model.chatFormat, generate: (p, o) => (calls++, model.generate(p, o)) };
      },
      dispose: () => inner.dispose(),
    },
  };
}

const comparable = (r: RunRecord) => ({ ...r, wallMs: 0, derivedFrom: undefined });

describe("smaller budgets played back from the largest budget's run", () => {
  it("gives the same records as running every budget, with fewer model calls", async () => {
    const budgets = [1, 2, 3, 4, 6, 8];
    for (const spec of ["profile:chaotic", "heuristic"]) {
      const each = counting(spec, false);
      const prefix = counting(spec, true);
      // scripted models answer by position, not by prompt: only a pure playback (no final round) can stand in for them
      const loop = { finalRoundWithoutTools: false };
      const a = await evaluateSuite(BASIC, { models: [], providers: [each.provider], budgets, seeds: 2, loop });
      const b = await evaluateSuite(BASIC, { models: [], providers: [prefix.provider], budgets, seeds: 2, loop });
      expect(b.runs.map(comparable)).toEqual(a.runs.map(comparable));
      // every smaller budget was derived, and only the largest budget's runs called the model
      expect(b.runs.filter((r) => r.budget < 8 && r.derivedFrom !== 8)).toEqual([]);
      const largest = a.runs.filter((r) => r.budget === 8).reduce((n, r) => n + r.iterations, 0);
      expect(prefix.calls()).toBe(largest);
      expect(each.calls()).toBeGreaterThan(prefix.calls());
      // the comparison covered runs cut short by the budget and runs that answered
      const cutShort = a.runs.filter((r) => r.budget < 8).map((r) => r.stopReason);
      expect(cutShort).toContain("max_iterations");
      expect(cutShort).toContain("answer");
    }
  });

  it("with the final round on, plays back all but the last call and makes that one for real: the same records as running every budget", async () => {
    /** Replies from the prompt alone (as a GGUF at temperature 0): calls the first skill the grammar offers until 3 results are in. */
    const byPrompt = (deterministic: boolean) => {
      let calls = 0;
      const provider: ModelProvider = {
        name: "by-prompt",
        concurrency: 1,
        deterministic,
        async acquire() {
          return {
            async generate(prompt, options) {
              calls++;
              const results = prompt.split("Result of").length - 1 + prompt.split("failed:").length - 1;
              const names = [
                ...JSON.stringify(options?.jsonSchema ?? {}).matchAll(/"skill_name":\{"const":"([^"]+)"/g),
              ].map((m) => m[1]);
              if (names.length === 0 || results >= 3) return answerReply(`after ${results}`);
              return callReply(names[0], { expression: `${results}+1` });
            },
          };
        },
        dispose: async () => {},
      };
      return { provider, calls: () => calls };
    };
    const budgets = [1, 2, 3, 4, 6];
    const each = byPrompt(false);
    const prefix = byPrompt(true);
    const a = await evaluateSuite(BASIC, { models: [], providers: [each.provider], budgets });
    const b = await evaluateSuite(BASIC, { models: [], providers: [prefix.provider], budgets });
    expect(b.runs.map(comparable)).toEqual(a.runs.map(comparable));
    expect(b.runs.filter((r) => r.budget < 6 && r.derivedFrom !== 6)).toEqual([]);
    expect(prefix.calls()).toBeLessThan(each.calls());
    // the final round changed outcomes: budget 2 answers after one result, and budget 1 is cut off
    const at = (budget: number) => a.runs.filter((r) => r.budget === budget && r.finalRounds === 1);
    expect(at(2).length).toBeGreaterThan(10);
    expect(at(2).filter((r) => r.stopReason !== "answer" || r.iterations !== 2)).toEqual([]);
    expect(a.runs.filter((r) => r.budget === 1).map((r) => r.stopReason)).toContain("max_iterations");
  });
});
