/** The per-parameter documentation of issue 26 item 7: one line a parameter, and the system prompt that uses it. */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parameterDetails } from "../../src/prompt/param-details.js";
import { buildSystemPrompt } from "../../src/prompt/system-prompt.js";
import { defineSkill, Registry } from "../../src/skills/index.js";

describe("parameterDetails", () => {
  it("writes type, required or optional, description, allowed values and default", () => {
    const lines = parameterDetails({
      type: "object",
      properties: {
        base: { type: "integer", description: "The base of the triangle." },
        unit: { type: "string", description: "The unit of measure", default: "units" },
        mode: { type: "string", enum: ["fast", "exact"] },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] } },
        anything: {},
      },
      required: ["base"],
    });
    expect(lines).toEqual([
      "  - base (integer, required): The base of the triangle.",
      '  - unit (string, optional): The unit of measure. Default: "units".',
      '  - mode (string, optional): Allowed values: "fast", "exact".',
      '  - tags (string[], optional): Allowed values: "a", "b".',
      "  - anything (any value, optional):",
    ]);
  });

  it("gives nothing for a skill without parameters", () => {
    expect(parameterDetails({ type: "object" })).toEqual([]);
  });
});

describe("buildSystemPrompt with paramDetails", () => {
  const registry = new Registry();
  registry.register(
    defineSkill({
      name: "weather",
      description: "Today's weather in a city.",
      parameters: z.object({ city: z.string().describe("The city, as the user wrote it.") }),
      run: () => ({ ok: true }),
    }),
  );
  registry.register(defineSkill({ name: "now", description: "The time.", parameters: z.object({}), run: () => 0 }));

  it("lists each parameter instead of the JSON Schema, in either style", () => {
    for (const style of ["full", "compact"] as const) {
      const prompt = buildSystemPrompt(registry, { style, paramDetails: true });
      expect(prompt).toContain(
        "- weather: Today's weather in a city.\n  arguments:\n  - city (string, required): The city, as the user wrote it.",
      );
      expect(prompt).toContain("- now: The time.\n  arguments: none");
      expect(prompt).not.toContain("JSON Schema");
    }
  });

  it("is the default; off, the full style shows the JSON Schema", () => {
    expect(buildSystemPrompt(registry)).toContain("  arguments:\n  - city (string, required)");
    expect(buildSystemPrompt(registry, { paramDetails: false })).toContain("arguments (JSON Schema)");
    expect(buildSystemPrompt(registry, { style: "compact" })).toContain("- weather(city: string):");
  });
});
