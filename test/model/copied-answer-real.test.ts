/**
 * On real weights, an answer that hands the prompt's own text back is refused, never reported: Gemma 3 270M (the base
 * model) answered everyday questions with the action format's placeholder (`<your answer, in full sentences>`), and
 * the CLI printed it as an answer. Here the placeholder is shown by the soul text (the action format no longer shows
 * one); grounding off: the loop as it was when that was measured.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { copiedPromptText } from "../../src/agent/copied-answer.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { calculatorSkill } from "../../src/skills/builtin/calculator.js";
import { Registry } from "../../src/skills/index.js";
import { loadTestModel, testModelPath } from "../helpers/test-models.js";

const gemmaPath = testModelPath("GEMMA_AGENT_TEST_MODEL");

const SHOWN = '{"final_answer":"<your answer, in full sentences>"}';
const QUESTIONS = ["What is the capital of France?", "How many days are in a leap year?"];

describe.skipIf(!gemmaPath)("Gemma 3 270M: answers that copy the prompt", () => {
  let model: LlamaModelHandle;
  beforeAll(async () => {
    model = await loadTestModel(gemmaPath!, { contextSize: 2048 });
  }, 120_000);
  afterAll(() => model?.dispose());

  it("every copied placeholder or instruction is refused as copied_prompt_text, and no run answers with one", async () => {
    // a prompt that shows an answer placeholder, as the action format did (Gemma copied it at every answer step) and
    // as a user's own soul text may
    const soul = `You are a helpful assistant. To answer, write ${SHOWN}.`;
    const registry = new Registry([calculatorSkill]);
    const agent = new Agent({ model, registry, soul, maxTokens: 96, grounding: "off" });
    let refused = 0;
    for (const question of QUESTIONS) {
      const state = await agent.run(question, { maxIterations: 3, maxRetries: 3 });
      expect(state.stream.ofType("model-error")).toEqual([]);
      for (const error of state.stream.ofType("validation-error").filter((e) => e.errorType === "copied_prompt_text")) {
        refused++;
        expect(error.feedback).toContain("repeats the instructions' own words");
      }
      if (state.answer !== undefined) {
        expect(copiedPromptText(state.answer, agent.systemPrompt, state), question).toBeUndefined();
        expect(state.answer).not.toMatch(/your answer, in full sentences/i);
      }
    }
    // measured before the check: the placeholder was Gemma's answer to 5 of 5 everyday questions (here: the final
    // round's answer to both, refused, so both runs end without one)
    expect(refused).toBeGreaterThan(0);
  }, 600_000);
});
