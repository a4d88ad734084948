import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAction } from "../../src/actions/index.js";
import { Agent } from "../../src/agent/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { mathRegistry } from "../helpers/skills.js";

const registry = mathRegistry();

/** Replies a model might write, from plausible to hostile. */
const reply = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.json().map((j) => j.slice(0, Math.max(0, j.length - 3))), // truncated JSON
  fc.json(),
  fc
    .record(
      {
        thought: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        skill_name: fc.oneof(
          fc.constantFrom("add", "echo", "explode", "constructor", "__proto__", "nope"),
          fc.string(),
          fc.integer(),
          fc.constant(null),
        ),
        arguments: fc.oneof(
          fc.object(),
          fc.record({ a: fc.oneof(fc.integer(), fc.string()), b: fc.oneof(fc.double(), fc.constant(null)) }),
          fc.array(fc.integer()),
          fc.string(),
        ),
        final_answer: fc.oneof(
          fc.string(),
          fc.integer(),
          fc.constant(""),
          fc.constant("  "),
          fc.boolean(),
          fc.object(),
        ),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o)),
  fc.constantFrom(
    "x".repeat(1_000_000),
    `{"final_answer": "${"y".repeat(1_000_000)}"}`,
    "{".repeat(10_000) + "}".repeat(10_000),
    "[".repeat(10_000),
    '{"skill_name": "add", "arguments": ' + '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000) + "}",
    '```json\n{"final_answer": "ok"}\n```',
    "{'skill_name': 'add', 'arguments': {'a': 1, 'b': 2}",
  ),
);

describe("hostile model replies", () => {
  it("map to exactly one of call-skill, final-answer or validation-error, and run never throws or hangs", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(reply, { minLength: 1, maxLength: 4 }), async (replies) => {
        for (const r of replies) {
          const parsed = parseAction(r, registry);
          expect(["call-skill", "final-answer", "validation-error"]).toContain(parsed.type);
          if (parsed.type === "final-answer") expect(parsed.answer.trim()).not.toBe("");
          if (parsed.type === "call-skill") expect(registry.names()).toContain(parsed.skillName);
        }
        const model = new ScriptedModel(replies);
        const state = await new Agent({ model, registry }).run("q", {
          maxIterations: replies.length,
          maxRetries: replies.length,
        });
        expect(["answer", "max_iterations", "retries_exhausted"]).toContain(state.stopReason);
        expect(state.stream.length).toBeGreaterThan(0);
      }),
      { numRuns: 1000 },
    );
  }, 120_000);
});
