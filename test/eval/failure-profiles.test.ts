import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import {
  checkFailureRates,
  drawFailure,
  FAILURE_KINDS,
  FAILURE_PROFILES,
  failureProfile,
  type FailureKind,
} from "../../src/eval/models/failure-profiles.js";
import { TrajectoryModel, type TrajectoryAction } from "../../src/eval/models/trajectory-model.js";
import { hashSeed, seededRandom } from "../../src/random.js";
import { defineSkill, Registry } from "../../src/skills/index.js";

const registry = () =>
  new Registry([
    defineSkill({
      name: "add",
      description: "add",
      parameters: z.object({ a: z.number(), b: z.number() }),
      run: ({ a, b }) => a + b,
    }),
  ]);
const trajectory: TrajectoryAction[] = [
  { type: "call", skillName: "add", arguments: { a: 2, b: 3 } },
  { type: "call", skillName: "add", arguments: { a: 5, b: 5 } },
  { type: "answer", text: "10" },
];
const only = (kind: FailureKind, rate = 1) => ({ ...FAILURE_PROFILES.perfect, [kind]: rate });

describe("failure profiles", () => {
  it("every named profile is a valid set of rates, looked up by own property only", () => {
    for (const rates of Object.values(FAILURE_PROFILES)) expect(() => checkFailureRates(rates)).not.toThrow();
    expect(failureProfile("constructor")).toBeUndefined();
    expect(() => checkFailureRates({ ...FAILURE_PROFILES.perfect, empty_answer: 0.7, unknown_skill: 0.5 })).toThrow(
      /sum to 1.2/,
    );
  });

  it.each(Object.keys(FAILURE_PROFILES))("%s hits its configured rates within tolerance over 10,000 draws", (name) => {
    const rates = failureProfile(name)!;
    const random = seededRandom(hashSeed("draws", name));
    const counts = Object.fromEntries(FAILURE_KINDS.map((k) => [k, 0])) as Record<FailureKind, number>;
    const draws = 10_000;
    for (let i = 0; i < draws; i++) {
      const kind = drawFailure(random, rates);
      if (kind) counts[kind]++;
    }
    for (const kind of FAILURE_KINDS) {
      const p = rates[kind];
      // four standard deviations of a binomial proportion, at least 0.2 percentage points
      const tolerance = Math.max(0.002, 4 * Math.sqrt((p * (1 - p)) / draws));
      expect(Math.abs(counts[kind] / draws - p), `${name} ${kind}`).toBeLessThanOrEqual(tolerance);
    }
  });

  it("the seeded source repeats for a seed and differs between seeds", () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const c = seededRandom(8);
    const seqA = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(seqA);
    expect(Array.from({ length: 5 }, c)).not.toEqual(seqA);
    expect(seqA.filter((x) => !(x >= 0 && x < 1))).toEqual([]);
  });
});

describe("TrajectoryModel", () => {
  it("with no failures walks the trajectory and the agent answers", async () => {
    const state = await new Agent({ model: new TrajectoryModel(trajectory), registry: registry() }).run(
      "2+3, then 5+5?",
    );
    expect(state).toMatchObject({ answer: "10", stopReason: "answer", iterations: 3 });
  });

  it.each([
    ["malformed_json", "json_syntax"],
    ["unknown_skill", "unknown_skill"],
    ["invalid_arguments", "invalid_arguments"],
  ] as const)("a %s failure is refused by the parser as %s, and the step is retried", async (kind, errorType) => {
    // fail on the first reply only: the draw is below the rate once, then never
    const draws = [0, 0.99, 0.99, 0.99];
    const model = new TrajectoryModel(trajectory, {
      rates: only(kind, 0.5),
      random: () => draws.shift() ?? 0.99,
      skillNames: ["add"],
    });
    const state = await new Agent({ model, registry: registry() }).run("q");
    expect(state.stats.validationErrorsByType).toEqual({ [errorType]: 1 });
    expect(state).toMatchObject({ answer: "10", stopReason: "answer", iterations: 4 });
    expect(model.injected).toEqual([kind, "none", "none", "none"]);
  });

  it("an empty answer counts as one, and a repeated call repeats the previous call", async () => {
    const draws = [0.99, 0, 0.99, 0.99];
    const empty = new TrajectoryModel(trajectory, {
      rates: only("empty_answer", 0.5),
      random: () => draws.shift() ?? 0.99,
    });
    const s1 = await new Agent({ model: empty, registry: registry() }).run("q");
    expect(s1.stats.emptyAnswers).toBe(1);
    const draws2 = [0.99, 0, 0.99, 0.99];
    const repeat = new TrajectoryModel(trajectory, {
      rates: only("repeated_call", 0.5),
      random: () => draws2.shift() ?? 0.99,
    });
    const s2 = await new Agent({ model: repeat, registry: registry() }).run("q");
    expect(s2.stats.repeatedCalls).toBe(1);
    expect(s2.stream.ofType("call-skill").map((e) => e.arguments)).toEqual([
      { a: 2, b: 3 },
      { a: 2, b: 3 },
      { a: 5, b: 5 },
    ]);
    expect(s2.answer).toBe("10");
  });

  it("needs a seeded source when it may fail", () => {
    expect(() => new TrajectoryModel(trajectory, { rates: FAILURE_PROFILES["e2b-like"] })).toThrow(
      /seeded random source/,
    );
  });
});
