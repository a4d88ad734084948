/**
 * Speculation on real weights: under candidate sampling, the tokens jump-forward held back (`":"` before a string's
 * content) are checked in the batch of the tokens fed before them, and each one the model's own pick confirms saves a
 * decode. The replies must be the ones the same picks make without drafts (a batch-shape near-tie aside), the
 * sequence must hold no rejected draft afterwards, and with a temperature every reply must still be valid.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, AgentState } from "../../src/agent/index.js";
import { bfclToJsonSchema } from "../../src/eval/bfcl/bfcl-json-schema.js";
import { bfclTasks } from "../../src/eval/bfcl/bfcl-tasks.js";
import { loadBfclCategory } from "../../src/eval/bfcl/bfcl-files.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { benchAccess } from "../../src/model/llama/bench-access.js";
import { loadTestModel, testModelPath, type TestModelVariable } from "../helpers/test-models.js";

const BFCL = join(import.meta.dirname, "../../evals/bfcl");
/** The first questions of three categories: one call, several functions, parallel calls. */
const TASKS = (["simple_python", "multiple", "parallel"] as const).flatMap((category) =>
  bfclTasks(loadBfclCategory(BFCL, category)).tasks.slice(0, 2),
);

describe.each<[string, TestModelVariable]>([
  ["Gemma 3 270M", "GEMMA_AGENT_TEST_MODEL"],
  ["SmolLM2-135M-Instruct", "GEMMA_AGENT_TEST_MODEL_INSTRUCT"],
])("speculation on %s", (name, variable) => {
  const path = testModelPath(variable);
  let model: LlamaModelHandle;
  beforeAll(async () => {
    if (path) model = await loadTestModel(path);
  }, 120_000);
  afterAll(() => model?.dispose());

  it.skipIf(!path)(
    "greedy: the replies without drafts, fewer batches than samplings, and no rejected draft left in the sequence",
    async () => {
      const access = benchAccess(model);
      let same = 0;
      let batches = 0;
      let samplings = 0;
      for (const task of TASKS) {
        const agent = new Agent({
          model,
          registry: task.registry,
          maxTokens: 160,
          ...(task.parallelCalls && { parallelCalls: true }),
        });
        const replies: string[] = [];
        for (const on of [true, false]) {
          access.setSpeculation(on);
          const reply = await agent.step(new AgentState(task.query));
          expect(reply.type, task.id).not.toBe("validation-error");
          replies.push(JSON.stringify(reply, (key, value) => (key === "raw" ? undefined : value)));
          const last = access.lastReply;
          if (on) {
            batches += last.batches.length;
            samplings += last.samples.length;
            // the sequence holds the prompt and the reply, nothing else (the reply's last tokens may wait for the next
            // prompt: an end the grammar forces is not evaluated); a rejected draft left in it would part from them
            const expected = [...last.promptTokens, ...last.tokens];
            const held = access.llamaObjects.sequence.contextTokens;
            expect(held.length, task.id).toBeGreaterThan(last.promptTokens.length);
            expect(held, task.id).toEqual(expected.slice(0, held.length));
          }
        }
        if (replies[0] === replies[1]) same++;
      }
      access.setSpeculation(true);
      console.info(`${name}: ${batches} batches for ${samplings} samplings; ${same}/${TASKS.length} replies the same`);
      // a draft confirmed is a sampling without a batch of its own
      expect(batches).toBeLessThan(samplings);
      // drafts change the batches' shapes, which may tip one near-tie: at most one reply of the six may part
      expect(same).toBeGreaterThanOrEqual(TASKS.length - 1);
    },
    600_000,
  );

  it.skipIf(!path)(
    "at temperature 1 every reply is valid under its schema, and the sequence holds no refused draft",
    async () => {
      const fn = loadBfclCategory(BFCL, "simple_python").questions[3].functions[0];
      const schema = bfclToJsonSchema(fn.parameters);
      const validator = z.fromJSONSchema(schema);
      const prompt = model.chatFormat.render([
        { role: "user", content: `Call ${fn.name}: ${fn.description}\nWrite its arguments as one JSON object.` },
      ]);
      benchAccess(model).setSpeculation(true);
      try {
        for (let i = 0; i < 6; i++) {
          const text = await model.generate(prompt, { jsonSchema: schema, maxTokens: 96, temperature: 1 });
          expect(validator.safeParse(JSON.parse(text)).success, text).toBe(true);
          // drafts the draws refuse are erased: the sequence holds the prompt and the reply, nothing else
          const last = benchAccess(model).lastReply;
          const held = benchAccess(model).llamaObjects.sequence.contextTokens;
          expect(held).toEqual([...last.promptTokens, ...last.tokens].slice(0, held.length));
        }
      } finally {
        benchAccess(model).setSpeculation(true);
      }
    },
    600_000,
  );
});
