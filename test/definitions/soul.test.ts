import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { loadSoul, parseSoul, renderSoul, SoulError } from "../../src/definitions/index.js";
import { promptText } from "../../src/prompt-texts.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { mathRegistry } from "../helpers/skills.js";

const SOUL = `# Unit helper

A title line before the first section.

## Rules
- Always convert with a skill.

## Name & Role
You are Unit Helper, a converter of units.

## My own notes
Kept as written.

## Tools
- convert_units: lengths, masses, temperatures
- \`calculator\`

Free text between bullets.

## Handoffs
- ./math-expert.yaml: for long arithmetic
- ask_geographer
`;

describe("parseSoul", () => {
  it("reads the sections in any order, the tools and handoffs as bullets, and keeps the preamble and unknown sections", () => {
    const soul = parseSoul(SOUL);
    expect(soul.sections.map((s) => [s.heading, s.key ?? null, s.line])).toEqual([
      ["Rules", "rules", 5],
      ["Name & Role", "name_and_role", 8],
      ["My own notes", null, 11],
      ["Tools", "tools", 14],
      ["Handoffs", "handoffs", 20],
    ]);
    expect(soul.preamble).toBe("# Unit helper\n\nA title line before the first section.");
    expect(soul.tools).toEqual(["convert_units", "calculator"]);
    expect(soul.handoffs).toEqual(["./math-expert.yaml", "ask_geographer"]);
  });

  it("renders the known sections in the fixed order, then the author's own, without the preamble", () => {
    const rendered = renderSoul(parseSoul(SOUL));
    const headings = rendered.split("\n").filter((line) => line.startsWith("# "));
    expect(headings).toEqual(["# Name & Role", "# Rules", "# Tools", "# Handoffs", "# My own notes"]);
    expect(rendered).toContain("# My own notes\nKept as written.");
    expect(rendered).not.toContain("A title line");
  });

  it("accepts a file with some sections missing, and headings written another way", () => {
    const soul = parseSoul("## name and role\nA helper.\n\n## OUTPUT FORMAT ##\nOne line.\n");
    expect(soul.sections.map((s) => s.key)).toEqual(["name_and_role", "output_format"]);
    expect(renderSoul(soul)).toBe("# Name & Role\nA helper.\n\n# Output format\nOne line.");
  });

  it("refuses text without any section, naming the file", () => {
    expect(() => parseSoul("You are a helper.\nNo headings here.", { source: "agents/SOUL.md" })).toThrowError(
      /agents\/SOUL\.md: no "## " section found/,
    );
    const error = (() => {
      try {
        parseSoul("just text");
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(SoulError);
    expect((error as SoulError).code).toBe("no_sections");
  });

  it("refuses a repeated section, naming the line of the repeat and of the first", () => {
    let error: unknown;
    try {
      parseSoul("## Rules\na\n\n## Personality\nb\n\n## rules\nc\n", { source: "x/SOUL.md" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SoulError);
    expect((error as SoulError).code).toBe("repeated_section");
    expect((error as SoulError).line).toBe(7);
    expect((error as Error).message).toBe(
      'x/SOUL.md:7: the section "## rules" appears a second time (first at line 1); merge the two',
    );
  });

  it("does not take a ## line inside a fenced code block for a section", () => {
    const soul = parseSoul("## Output format\nLike this:\n```\n## Rules\n```\n");
    expect(soul.sections).toHaveLength(1);
    expect(soul.sections[0].body).toBe("Like this:\n```\n## Rules\n```");
  });
});

describe("loadSoul", () => {
  it("reads a file, and says when it is not there", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ga-soul-"));
    writeFileSync(join(dir, "SOUL.md"), "## Name & Role\nA tester.\n");
    const soul = await loadSoul(join(dir, "SOUL.md"));
    expect(soul.source).toBe(join(dir, "SOUL.md"));
    expect(renderSoul(soul)).toBe("# Name & Role\nA tester.");
    await expect(loadSoul(join(dir, "missing.md"))).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("a soul in the agent", () => {
  it("new Agent({ soul }) takes a parsed Soul as well as a text, and the default soul is prompts/soul.md in this format", () => {
    const model = new ScriptedModel([]);
    const withSoul = new Agent({ model, registry: mathRegistry(), soul: parseSoul(SOUL) });
    expect(withSoul.systemPrompt).toMatch(/^# Name & Role\nYou are Unit Helper/);
    const withText = new Agent({ model, registry: mathRegistry(), soul: "You are Testy." });
    expect(withText.systemPrompt).toMatch(/^You are Testy\./);
    const shipped = parseSoul(promptText("soul"));
    expect(shipped.sections.map((s) => s.key)).toEqual(["name_and_role", "rules"]);
    const plain = new Agent({ model, registry: mathRegistry() });
    const rendered = renderSoul(shipped);
    expect(plain.systemPrompt.slice(0, rendered.length)).toBe(rendered);
  });
});
