/**
 * The handle's live sequences and the `gemma-agent:model-call` diagnostics channel (what the soak's probe listens
 * to): a call's sequence is lent while it runs and given back after it, a call that finds none free waits, and after
 * each call the channel says so with the call's own counts.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MODEL_CALL_CHANNEL, type LlamaModelHandle, type ModelCallMessage } from "../../src/model/llama/index.js";
import { loadFixtureModel } from "../helpers/fixture-model.js";

const prompt = (text: string) => `<start_of_turn>user\n${text}<end_of_turn>\n<start_of_turn>model\n`;

describe("live sequences on the fixture model", () => {
  let model: LlamaModelHandle;
  beforeAll(async () => {
    model = await loadFixtureModel({ contextSize: 1024 });
  });
  afterAll(() => model?.dispose());

  it("one sequence: a second call waits for it, each call's end is published with its counts, none is kept", async () => {
    const messages: ModelCallMessage[] = [];
    const listen = (message: unknown) => messages.push(structuredClone(message as ModelCallMessage));
    subscribe(MODEL_CALL_CHANNEL, listen);
    try {
      expect(model.liveSequences).toEqual({ total: 1, busy: 0, waiting: 0, obtained: 1 });
      const first = model.generate(prompt("one"), { maxTokens: 4 });
      const second = model.generate(prompt("two, a longer one"), { maxTokens: 4 });
      await Promise.resolve();
      expect(model.liveSequences).toEqual({ total: 1, busy: 1, waiting: 1, obtained: 1 });
      await Promise.all([first, second]);
      expect(model.liveSequences).toEqual({ total: 1, busy: 0, waiting: 0, obtained: 1 });
      // the first call's sequence went straight to the one waiting; after the second, none is lent
      expect(messages.map((m) => m.sequences)).toEqual([
        { total: 1, busy: 1, waiting: 0, obtained: 1 },
        { total: 1, busy: 0, waiting: 0, obtained: 1 },
      ]);
      expect(messages[0].stats!.promptTokens).toBeLessThan(messages[1].stats!.promptTokens);
      expect(messages.every((m) => m.stats!.generatedTokens > 0)).toBe(true);
    } finally {
      unsubscribe(MODEL_CALL_CHANNEL, listen);
    }
  });

  it("an aborted call gives its sequence back and is published too (with no counts if it never started)", async () => {
    const messages: ModelCallMessage[] = [];
    const listen = (message: unknown) => messages.push(message as ModelCallMessage);
    subscribe(MODEL_CALL_CHANNEL, listen);
    try {
      const controller = new AbortController();
      controller.abort(new Error("stop"));
      await expect(model.generate(prompt("never"), { signal: controller.signal })).rejects.toThrow("stop");
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(model.liveSequences).toEqual({ total: 1, busy: 0, waiting: 0, obtained: 1 });
      expect(messages).toHaveLength(1);
      expect(messages[0].stats).toBeUndefined();
    } finally {
      unsubscribe(MODEL_CALL_CHANNEL, listen);
    }
  });
});
