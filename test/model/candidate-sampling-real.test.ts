/**
 * Candidate sampling on real weights: under the action grammar, our matcher picks each token among the model's top
 * candidates and llama.cpp's grammar pass over the whole vocabulary runs only when none is allowed. Greedy, the
 * actions must be the ones llama.cpp's grammar sampler writes (grounding on, as in a run); with one candidate the
 * full pass runs often and must change nothing; with a temperature every reply must still be valid. On both samplers a
 * reply the grammar finishes on a sampled token ends there, without a batch evaluated only to sample the end.
 * Speculation (the tokens jump-forward held back, checked in the batch before them) must give the replies of the same
 * picks without it (a batch-shape near-tie aside), save batches, and leave no refused draft in the sequence.
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
import { loadTestModel, realTestModels } from "../helpers/test-models.js";

const BFCL = join(import.meta.dirname, "../../evals/bfcl");
/** The first questions of three categories: one call, several functions, parallel calls. */
const TASKS = (["simple_python", "multiple", "parallel"] as const).flatMap((category) =>
  bfclTasks(loadBfclCategory(BFCL, category)).tasks.slice(0, 2),
);

describe.each(realTestModels())("candidate sampling on $name", ({ name, path }) => {
  let model: LlamaModelHandle;
  beforeAll(async () => {
    if (path) model = await loadTestModel(path);
  }, 120_000);
  afterAll(() => model?.dispose());

  /** Each task's first action with candidate sampling as given, then with llama.cpp's grammar sampler. */
  async function bothWays(candidates: number | undefined) {
    const rows: { on: string; off: string; fullPasses: number; samplings: number }[] = [];
    /** Per reply (both samplers): the batches it evaluated, its samplings, whether a sampled token ended it. */
    const shapes: { batches: number; samplings: number; endsSampled: boolean }[] = [];
    for (const task of TASKS) {
      const step = async (on: boolean) => {
        benchAccess(model).setCandidateSampling(on, candidates);
        // the same batches on both sides (speculation checks drafts in them: its own test below)
        benchAccess(model).setSpeculation(false);
        const agent = new Agent({
          model,
          registry: task.registry,
          maxTokens: 160,
          ...(task.parallelCalls && { parallelCalls: true }),
        });
        const reply = await agent.step(new AgentState(task.query));
        const last = benchAccess(model).lastReply;
        const endsSampled = last.samples.at(-1)?.[0] === last.tokens.length - 1;
        shapes.push({ batches: last.batches.length, samplings: last.samples.length, endsSampled });
        return { reply, fullPasses: last.fullPasses, samplings: last.samples.length };
      };
      const on = await step(true);
      const off = await step(false);
      for (const reply of [on.reply, off.reply]) expect(reply.type, task.id).not.toBe("validation-error");
      const asText = (reply: unknown) => JSON.stringify(reply, (key, value) => (key === "raw" ? undefined : value));
      rows.push({ on: asText(on.reply), off: asText(off.reply), ...on });
    }
    benchAccess(model).setCandidateSampling(true);
    benchAccess(model).setSpeculation(true);
    return { rows, shapes };
  }

  it.skipIf(!path)(
    "greedy: the same actions as llama.cpp's grammar sampler, with a pass over the vocabulary for few samplings",
    async () => {
      const { rows, shapes } = await bothWays(undefined);
      const passes = rows.reduce((sum, row) => sum + row.fullPasses, 0);
      const samplings = rows.reduce((sum, row) => sum + row.samplings, 0);
      console.info(`${name}: ${passes} passes over the vocabulary in ${samplings} samplings`);
      expect(rows.map((row) => row.on)).toEqual(rows.map((row) => row.off));
      expect(samplings).toBeGreaterThan(TASKS.length * 3);
      expect(passes).toBeLessThanOrEqual(samplings / 10);
      // A reply the grammar finishes on a sampled token ends there on both samplers: no batch is evaluated only to
      // sample the end, so every batch (the first: the prompt's tail) was sampled from.
      expect(shapes.filter((shape) => shape.endsSampled).length).toBeGreaterThan(0);
      expect(shapes.map((shape) => shape.batches)).toEqual(shapes.map((shape) => shape.samplings));
    },
    600_000,
  );

  it.skipIf(!path)(
    "with one candidate the full pass runs (most samplings) and the actions do not change",
    async () => {
      const { rows } = await bothWays(1);
      const passes = rows.reduce((sum, row) => sum + row.fullPasses, 0);
      expect(passes).toBeGreaterThan(0);
      expect(rows.map((row) => row.on)).toEqual(rows.map((row) => row.off));
    },
    600_000,
  );

  it.skipIf(!path)(
    "speculation, greedy: the replies without drafts, fewer batches than samplings, no rejected draft left in the sequence",
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
      const replies: string[] = [];
      for (let i = 0; i < 6; i++) {
        const text = await model.generate(prompt, { jsonSchema: schema, maxTokens: 96, temperature: 1 });
        expect(validator.safeParse(JSON.parse(text)).success, text).toBe(true);
        replies.push(text);
        // speculation (on by default): drafts the draws refuse are erased, the sequence holds the prompt and the reply
        const last = benchAccess(model).lastReply;
        const held = benchAccess(model).llamaObjects.sequence.contextTokens;
        expect(held).toEqual([...last.promptTokens, ...last.tokens].slice(0, held.length));
      }
      expect(new Set(replies).size, "temperature 1 draws more than one reply").toBeGreaterThan(1);
    },
    600_000,
  );
});
