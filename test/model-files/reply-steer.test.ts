// The decision's and grounding's bias at one position of a `calls` list: where a value may end.
import { describe, expect, it } from "vitest";
import { replySteer } from "../../src/model/grounding/reply-steer.js";
import type { DecisionSteer } from "../../src/model/grounding/decision-steer.js";
import type { Steering } from "../../src/model/grounding/grounding-steer.js";
import type { Token } from "../../src/model/grounding/token.js";

const GO_ON = 1 as Token; // `,`: on to another argument of this call
const NEXT_CALL = 2 as Token; // `}},`: the arguments and the call close, another call follows
const LIST_END = 3 as Token; // `}}]`: the arguments, the call and the list close

const bias = (entries: [Token, number][]): Steering => ({ type: "bias", logits: new Map(entries) });
const decision = (steering: Steering) =>
  ({ next: () => steering, picked: () => undefined }) as unknown as DecisionSteer;

describe("replySteer at a value's end in a calls list", () => {
  const list = bias([
    [NEXT_CALL, 10],
    [LIST_END, -10],
  ]);

  it("takes the list's offsets on the tokens that close the call where grounding lets the arguments close", () => {
    const steer = replySteer(decision(list), {
      next: () =>
        bias([
          [GO_ON, -4],
          [NEXT_CALL, 6],
        ]),
    });
    const { logits } = steer.next("…") as { logits: ReadonlyMap<Token, number> };
    expect(logits.get(NEXT_CALL)).toBe(10);
    expect(logits.get(LIST_END)).toBe(-10);
    expect(logits.get(GO_ON)).toBe(-4);
  });

  it("keeps grounding's malus on closing where an asked argument is still to come: going on stays ahead", () => {
    const steer = replySteer(decision(list), {
      next: () =>
        bias([
          [GO_ON, 6],
          [NEXT_CALL, -4],
          [LIST_END, -4],
        ]),
    });
    const { logits } = steer.next("…") as { logits: ReadonlyMap<Token, number> };
    expect(logits.get(GO_ON)).toBe(6);
    expect(logits.get(NEXT_CALL)).toBe(-4);
    expect(logits.get(LIST_END)).toBe(-24);
    expect(Math.max(...logits.values())).toBe(logits.get(GO_ON));
  });
});
