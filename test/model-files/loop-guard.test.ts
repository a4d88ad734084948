import type { Token } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { inLoop as inLoopOf } from "../../src/model/decoding/loop-guard.js";

const repeat = (stretch: number[], times: number) => Array.from({ length: times }, () => stretch).flat();
/** Token ids are numbers under a brand. */
const inLoop = (ids: number[]) => inLoopOf(ids as Token[]);

describe("inLoop", () => {
  it("sees a token, or a stretch of up to 24 tokens, repeated over the last 24 tokens or more", () => {
    expect(inLoop([1, 2, ...repeat([0], 24)])).toBe(true);
    expect(inLoop([9, ...repeat([5, 6], 12)])).toBe(true);
    expect(inLoop(repeat([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], 3))).toBe(true); // a 13-token stretch, 3 times
  });

  it("not before the loop is long enough, nor on text that only looks alike", () => {
    expect(inLoop(repeat([0], 23))).toBe(false);
    expect(inLoop([...repeat([5, 6], 11), 5])).toBe(false);
    expect(inLoop(repeat([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], 2))).toBe(false); // twice is a repeat, not a loop
    expect(inLoop([...repeat([0], 30), 1])).toBe(false); // the loop was left
    expect(inLoop(Array.from({ length: 200 }, (_, i) => i))).toBe(false);
    expect(
      inLoop(
        repeat(
          Array.from({ length: 25 }, (_, i) => i),
          4,
        ),
      ),
    ).toBe(false); // a 25-token stretch: too long to call a loop
  });
});
