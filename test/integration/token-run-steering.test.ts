/**
 * TokenRun's grounding bias is computed lazily (TokenRun.prepare): the steer reads every text the reply went through,
 * in order, the bias is that of the last text, a wrap-up drops what the steer has not read, and `steeringWhile` lets
 * the steer work while an evaluation is still running. The fixture model gives the tokens and their texts (real
 * llama.cpp vocabulary); the steer is a recorder, since what is under test is when and with what the run calls it.
 */
import { TokenBias, type LlamaModel, type Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benchAccess } from "../../src/model/llama/bench-access.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import type { GroundingSteer, Steering } from "../../src/model/llama/grounding-steer.js";
import { steeringWhile, TokenRun } from "../../src/model/llama/token-run.js";
import { loadFixtureModel } from "../helpers/fixture-model.js";

let handle: LlamaModelHandle;
let model: LlamaModel;
beforeAll(async () => {
  handle = await loadFixtureModel();
  model = benchAccess(handle).llamaObjects.model;
});
afterAll(() => handle?.dispose());

/** A steer that records the texts it reads and answers each with `steering(text)`. */
function recordingSteer(steering: (text: string) => Steering): { steer: GroundingSteer; read: string[] } {
  const read: string[] = [];
  const steer = { next: (text: string) => (read.push(text), steering(text)) } as unknown as GroundingSteer;
  return { steer, read };
}

function runWith(steer: GroundingSteer, budget = 64): TokenRun {
  const empty = () => new TokenBias(model.tokenizer);
  const wrapUpInString = empty().set(model.tokenize('"'), { logit: 9 });
  return new TokenRun({
    model,
    stopTokens: new Set(),
    stopText: undefined,
    constrained: true,
    budget,
    hardLimit: budget + 8,
    biases: {
      base: empty(),
      wrapUpInString,
      wrapUpBetweenValues: wrapUpInString,
      endString: empty(),
      endNumber: empty(),
    },
    grounding: { steer, bias: empty() },
  });
}

/** The tokens a bias changes, with their logits (entries set back to 0 change nothing). */
function changed(bias: TokenBias): Map<Token, number> {
  const entries = [...(bias as unknown as { _biases: Map<Token, number> })._biases];
  return new Map(entries.filter(([, logit]) => logit !== 0));
}

describe("TokenRun: the grounding bias is computed when needed, from every text in order", () => {
  it("reads nothing until the bias is asked for, then every text in order, and biases as the last one says", () => {
    const [a, b, c] = model.tokenize('{"city":"Paris');
    const [tokenA, tokenB] = model.tokenize(" New York");
    const { steer, read } = recordingSteer((text) => ({
      type: "bias",
      logits: new Map([[text.length % 2 === 0 ? tokenA : tokenB, text.length]]),
    }));
    const run = runWith(steer);
    expect(run.take(a)).toBe(false);
    const text = model.detokenize([b, c], false);
    expect(run.takeForced({ tokens: [a, b, c], replacesLast: false, forced: 2, text })).toBe(false);
    expect(read).toEqual([]);
    expect(run.steerPending).toBe(true);
    const first = model.detokenize([a], false);
    const whole = model.detokenize([a, b, c], false);
    const bias = changed(run.bias);
    expect(read).toEqual([first, whole]);
    // the last text's steering alone: the first one's token is not in the bias
    expect(bias).toEqual(new Map([[whole.length % 2 === 0 ? tokenA : tokenB, whole.length]]));
    expect(run.steerPending).toBe(false);
    // asked again with nothing new: the same bias, the steer not read again
    expect(changed(run.bias)).toEqual(bias);
    expect(read).toHaveLength(2);
  });

  it("a steering that is no bias sets the run's own biases, and the grounding tokens of before go back to 0", () => {
    const [a, b] = model.tokenize('{"x":"y');
    const [token] = model.tokenize(" Rome");
    let type: "bias" | "none" = "bias";
    const { steer } = recordingSteer(() => (type === "bias" ? { type, logits: new Map([[token, 5]]) } : { type }));
    const run = runWith(steer);
    run.take(a);
    const grounded = run.bias;
    expect(changed(grounded)).toEqual(new Map([[token, 5]]));
    type = "none";
    run.take(b);
    expect(run.bias).not.toBe(grounded);
    expect(changed(run.bias).size).toBe(0);
  });

  it("once the reply wraps up, the texts the steer has not read are dropped and the wrap-up bias stands", () => {
    const tokens = model.tokenize('{"a":"bbbb');
    const { steer, read } = recordingSteer(() => ({ type: "bias", logits: new Map([[tokens[0], 3]]) }));
    const run = runWith(steer, 2);
    run.take(tokens[0]);
    run.take(tokens[1]);
    expect(read).toEqual([]);
    expect(changed(run.bias)).toEqual(new Map(model.tokenize('"').map((t) => [t, 9])));
    expect(read).toEqual([]);
  });

  it("steeringWhile reads the pending text before the evaluation it waits on resolves, and passes its failure on", async () => {
    const [a] = model.tokenize("{");
    const order: string[] = [];
    const { steer } = recordingSteer(() => (order.push("steer"), { type: "none" }));
    const run = runWith(steer);
    run.take(a);
    const evaluation = new Promise<string>((resolve) => setTimeout(() => (order.push("evaluated"), resolve("x")), 20));
    expect(await steeringWhile(run, evaluation)).toBe("x");
    expect(order).toEqual(["steer", "evaluated"]);
    run.take(a);
    const failing = new Promise<string>((_, reject) => setImmediate(() => reject(new Error("decode failed"))));
    await expect(steeringWhile(run, failing)).rejects.toThrow("decode failed");
    // nothing pending: the evaluation itself, no turn of the event loop spent
    const plain = Promise.resolve("y");
    expect(await steeringWhile(run, plain)).toBe("y");
  });
});
