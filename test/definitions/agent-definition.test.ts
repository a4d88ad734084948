/**
 * Agent definitions (YAML), one test per field: each is loaded, checked and then shown to do what it says on a run
 * with a scripted model (the loop, the parser, the skills and the events are the real ones).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AgentDefinitionError,
  agentFromDefinition,
  loadAgentDefinition,
  type AgentDefinition,
} from "../../src/definitions/index.js";
import { Conversation } from "../../src/memory/index.js";
import { builtinSkills } from "../../src/skills/builtin/index.js";
import { defineSkill, Registry } from "../../src/skills/index.js";
import { answerReply, callReply, ScriptedModel } from "../../src/testing/index.js";

/** A folder of definition files: `files` maps a relative path to its text. */
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "ga-def-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** The error a load throws. */
async function loadError(path: string, registry?: Registry): Promise<AgentDefinitionError> {
  const error = await loadAgentDefinition(path, registry ? { registry } : {}).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentDefinitionError);
  return error as AgentDefinitionError;
}

/** Skills that count their runs, to see which ran. */
function countingRegistry() {
  const runs: Record<string, number> = { calculator: 0, convert_units: 0, secret: 0 };
  const skill = (name: string) =>
    defineSkill({
      name,
      description: `The ${name} skill.`,
      parameters: z.object({ x: z.number().optional() }),
      run: () => {
        runs[name]++;
        return `${name} ran`;
      },
    });
  return { registry: new Registry(["calculator", "convert_units", "secret"].map(skill)), runs };
}

const FULL = `name: unit_helper
description: Converts units and does arithmetic.
model: ./models/tiny.gguf
soul: ./SOUL.md
tools:
  - calculator
  - convert_units
  - { name: ask_math_expert, type: agent, agent: ./math-expert.yaml }
memory: { type: conversation, token_budget: 3000, trim_policy: summarize_oldest }
loop_policy: { max_iterations: 12, max_retries: 3, on_max_iterations: warn_and_return, final_round_without_tools: true }
output_schema: { file: ./reply.schema.json }
constraints: { max_latency_ms: 30000, max_total_tokens: 6000, forbidden_patterns: ["As a language model"] }
`;

const SCHEMA = {
  type: "object",
  properties: { value: { type: "number" } },
  required: ["value"],
  additionalProperties: false,
};

describe("loading a definition", () => {
  it("loads every field: paths against the file's folder, the soul parsed, nested agents loaded, the schema read", async () => {
    const dir = folder({
      "agents/unit.yaml": FULL,
      "agents/SOUL.md": "## Name & Role\nUnit Helper.\n",
      "agents/math-expert.yaml": "name: math_expert\ndescription: Does sums.\ntools: [calculator]\n",
      "agents/reply.schema.json": JSON.stringify(SCHEMA),
    });
    const definition = await loadAgentDefinition(join(dir, "agents/unit.yaml"));
    expect(definition).toMatchObject({
      name: "unit_helper",
      description: "Converts units and does arithmetic.",
      path: join(dir, "agents/unit.yaml"),
      model: join(dir, "agents/models/tiny.gguf"),
      soulPath: join(dir, "agents/SOUL.md"),
      toolsFrom: "definition",
      memory: { tokenBudget: 3000, trimPolicy: "summarize_oldest" },
      loopPolicy: {
        maxIterations: 12,
        maxRetries: 3,
        onMaxIterations: "warn_and_return",
        finalRoundWithoutTools: true,
      },
      outputSchema: SCHEMA,
      outputSchemaPath: join(dir, "agents/reply.schema.json"),
      constraints: { maxLatencyMs: 30000, maxTotalTokens: 6000, forbiddenPatterns: ["As a language model"] },
    });
    expect(definition.tools.map((t) => [t.type, t.name])).toEqual([
      ["skill", "calculator"],
      ["skill", "convert_units"],
      ["agent", "ask_math_expert"],
    ]);
    const nested = definition.tools[2];
    expect(nested.type === "agent" && [nested.description, nested.definition.name]).toEqual([
      "Does sums.",
      "math_expert",
    ]);
  });

  it("errors name the file and the field path", async () => {
    const dir = folder({
      "x.yaml": "name: x\nloop_policy: { max_iterations: 0 }\n",
      "bad-name.yaml": "name: Unit Helper\n",
      "no-name.yaml": "description: nameless\n",
      "both.yaml": "name: both\nsoul: ./SOUL.md\nsystem_prompt: hi\n",
      "syntax.yaml": "name: x\ntools: [calculator,\n",
      "budget.yaml": "name: x\nmemory: { type: conversation, token_budget: many }\n",
    });
    const display = relative(process.cwd(), join(dir, "x.yaml"));
    expect((await loadError(display)).message).toBe(`${display}: loop_policy.max_iterations: expected an integer >= 1`);
    expect((await loadError(display)).field).toBe("loop_policy.max_iterations");
    expect((await loadError(join(dir, "bad-name.yaml"))).message).toMatch(
      /bad-name\.yaml: name: expected a name of a-z, 0-9, _ and -$/,
    );
    expect((await loadError(join(dir, "no-name.yaml"))).message).toMatch(/no-name\.yaml: name: expected a name$/);
    expect((await loadError(join(dir, "both.yaml"))).message).toMatch(
      /soul, system_prompt: give one of them, not both/,
    );
    const syntax = await loadError(join(dir, "syntax.yaml"));
    expect(syntax.code).toBe("yaml_syntax");
    expect(syntax.message).toMatch(/syntax\.yaml: Flow sequence .* at line 3, column 1$/);
    expect((await loadError(join(dir, "budget.yaml"))).message).toMatch(
      /memory\.token_budget: expected an integer >= 1$/,
    );
    expect((await loadError(join(dir, "missing.yaml"))).code).toBe("not_found");
  });

  it("rejects an unknown key with its path (a typo is never ignored), suggesting the key meant", async () => {
    const dir = folder({
      "top.yaml": "name: x\ntool: [calculator]\n",
      "nested.yaml": "name: x\nloop_policy: { max_iteration: 4 }\n",
      "tool.yaml": "name: x\ntools: [{ name: a, type: agent, agent: ./b.yaml, descripton: typo }]\n",
    });
    const top = await loadError(join(dir, "top.yaml"));
    expect(top.message).toMatch(
      /top\.yaml: tool: unknown key; did you mean tools\? \(known: name, description, model, soul, system_prompt, tools, memory, loop_policy, output_schema, constraints\)$/,
    );
    const nested = await loadError(join(dir, "nested.yaml"));
    expect(nested.field).toBe("loop_policy.max_iteration");
    expect(nested.message).toMatch(
      /nested\.yaml: loop_policy\.max_iteration: unknown key; did you mean max_iterations\?/,
    );
    expect((await loadError(join(dir, "tool.yaml"))).message).toMatch(
      /tools\[0\]\.descripton: unknown key; did you mean description\?/,
    );
  });

  it("a file with several mistakes names them all in one error, each also apart in problems", async () => {
    const dir = folder({
      "many.yaml": "name: my helper\ntool: [calculator]\nloop_polcy: { max_iterations: 3 }\n",
      "tools.yaml":
        "name: x\ntools: [calculater, 7, calculator, calculator]\nconstraints: { forbidden_patterns: ['/(a/'] }\n",
    });
    const many = await loadError(join(dir, "many.yaml"));
    expect(many.problems.map((p) => p.field)).toEqual(["name", "tool", "loop_polcy"]);
    expect(many.message).toMatch(
      /many\.yaml: 3 problems:\n  name: expected a name of a-z, 0-9, _ and -\n  tool: unknown key; did you mean tools\?.*\n  loop_polcy: unknown key; did you mean loop_policy\?/,
    );
    const tools = await loadError(join(dir, "tools.yaml"));
    expect(tools.problems.map((p) => [p.code, p.field])).toEqual([
      ["unknown_tool", "tools[0]"],
      ["invalid", "tools[1]"],
      ["invalid", "tools[3]"],
      ["invalid", "constraints.forbidden_patterns[0]"],
    ]);
    expect(tools.code).toBe("unknown_tool");
  });

  it("an unknown tool name lists the available ones", async () => {
    const dir = folder({ "x.yaml": "name: x\ntools: [calculator, calculater]\n" });
    const error = await loadError(join(dir, "x.yaml"));
    expect(error.code).toBe("unknown_tool");
    expect(error.tool).toBe("calculater");
    expect(error.message).toMatch(
      /x\.yaml: tools\[1\]: unknown skill "calculater" \(available: calculator, datetime, convert_units\)$/,
    );
  });

  it("detects a cycle among nested agent files and names it", async () => {
    const dir = folder({
      "a.yaml": "name: a\ntools: [{ name: to_b, type: agent, agent: ./b.yaml, description: b }]\n",
      "b.yaml": "name: b\ntools: [{ name: to_a, type: agent, agent: ./a.yaml, description: a }]\n",
      "self.yaml": "name: self\ntools: [{ name: me, type: agent, agent: ./self.yaml, description: me }]\n",
    });
    const error = await loadError(join(dir, "a.yaml"));
    expect(error.code).toBe("cycle");
    expect(error.message).toMatch(
      /b\.yaml: tools\[0\]\.agent: the agent definitions nest in a cycle: a\.yaml → b\.yaml → a\.yaml$/,
    );
    expect((await loadError(join(dir, "self.yaml"))).message).toMatch(/self\.yaml → self\.yaml$/);
  });

  it("without tools, the soul's ## Tools scope the registry, else every skill; ## Handoffs add nested agents", async () => {
    const dir = folder({
      "soul.yaml": "name: s\nsoul: ./SOUL.md\n",
      "plain.yaml": "name: p\n",
      "SOUL.md": "## Tools\n- calculator\n\n## Handoffs\n- ./expert.yaml: for hard sums\n",
      "expert.yaml": "name: expert\ndescription: Hard sums.\ntools: [calculator]\n",
      "bad-soul.yaml": "name: b\nsoul: ./BAD.md\n",
      "BAD.md": "## Tools\n- calculater\n",
    });
    const fromSoul = await loadAgentDefinition(join(dir, "soul.yaml"));
    expect(fromSoul.toolsFrom).toBe("soul");
    expect(fromSoul.tools.map((t) => t.name)).toEqual(["calculator", "expert"]);
    expect(fromSoul.handoffs).toEqual(["expert"]);
    const plain = await loadAgentDefinition(join(dir, "plain.yaml"));
    expect([plain.toolsFrom, plain.tools.map((t) => t.name)]).toEqual([
      "registry",
      ["calculator", "datetime", "convert_units"],
    ]);
    expect((await loadError(join(dir, "bad-soul.yaml"))).message).toMatch(/## Tools: unknown skill "calculater"/);
  });
});

/** Load `yaml` (with extra files) against the counting registry. */
async function define(yaml: string, files: Record<string, string> = {}, registry?: Registry): Promise<AgentDefinition> {
  const dir = folder({ "agent.yaml": yaml, ...files });
  return loadAgentDefinition(join(dir, "agent.yaml"), { registry: registry ?? new Registry(builtinSkills()) });
}

describe("a definition's fields on a run", () => {
  it("tools: the scoped registry; the model cannot reach another skill whatever it writes", async () => {
    const { registry, runs } = countingRegistry();
    const definition = await define("name: scoped\ntools: [calculator]\n", {}, registry);
    const model = new ScriptedModel([
      callReply("secret"),
      callReply("convert_units"),
      callReply("calculator"),
      answerReply("done"),
    ]);
    const agent = agentFromDefinition(definition, { model });
    expect(agent.registry.names()).toEqual(["calculator"]);
    expect(agent.actionJsonSchema && JSON.stringify(agent.actionJsonSchema)).not.toContain("secret");
    const state = await agent.run("Go", { maxRetries: 5 });
    expect(state.answer).toBe("done");
    expect(runs).toEqual({ calculator: 1, convert_units: 0, secret: 0 });
    expect(state.stream.ofType("validation-error").map((e) => e.errorType)).toEqual(["unknown_skill", "unknown_skill"]);
  });

  it("loop_policy.max_iterations is enforced; on_max_iterations: warn_and_return answers with the last candidate", async () => {
    const replies = () => [
      callReply("calculator", { expression: "1+1" }),
      callReply("calculator", { expression: "2+2" }),
      callReply("calculator", { expression: "3+3" }),
    ];
    const failing = await define(
      "name: f\ntools: [calculator]\nloop_policy: { max_iterations: 2, final_round_without_tools: false }\n",
    );
    const state = await agentFromDefinition(failing, { model: new ScriptedModel(replies()) }).run("Go");
    expect([state.stopReason, state.iterations, state.answer]).toEqual(["max_iterations", 2, undefined]);
    const warning = await define(
      "name: w\ntools: [calculator]\nloop_policy: { max_iterations: 2, on_max_iterations: warn_and_return, final_round_without_tools: false }\n",
    );
    const warned = await agentFromDefinition(warning, { model: new ScriptedModel(replies()) }).run("Go");
    expect([warned.stopReason, warned.iterations, warned.answer]).toEqual(["max_iterations", 2, "4"]);
    expect(warned.stream.ofType("warning")[0]).toMatchObject({ code: "answer_at_max_iterations" });
    // a run's own budget still wins over the definition's
    const longer = await agentFromDefinition(failing, {
      model: new ScriptedModel([...replies(), answerReply("6")]),
    }).run("Go", { maxIterations: 4 });
    expect(longer.answer).toBe("6");
  });

  it("loop_policy.final_round_without_tools: the last iteration's grammar allows only a final answer", async () => {
    const on = await define(
      "name: on\ntools: [calculator]\nloop_policy: { max_iterations: 2, final_round_without_tools: true }\n",
    );
    const model = new ScriptedModel([callReply("calculator", { expression: "1+1" }), answerReply("2")]);
    const state = await agentFromDefinition(on, { model }).run("Go");
    expect(state.stream.ofType("final-round")).toHaveLength(1);
    const lastSchema = JSON.stringify(model.calls[1].options.jsonSchema);
    expect(lastSchema).toContain("final_answer");
    expect(lastSchema).not.toContain("skill_name");
    const off = await define(
      "name: off\ntools: [calculator]\nloop_policy: { max_iterations: 2, final_round_without_tools: false }\n",
    );
    const model2 = new ScriptedModel([callReply("calculator", { expression: "1+1" }), answerReply("2")]);
    await agentFromDefinition(off, { model: model2 }).run("Go");
    expect(JSON.stringify(model2.calls[1].options.jsonSchema)).toContain("skill_name");
  });

  for (const grammar of [true, false]) {
    it(`output_schema is enforced ${grammar ? "with" : "without"} the grammar: a violation is fed back and retried; the reply is typed`, async () => {
      const definition = await define("name: typed\ntools: []\noutput_schema: { file: ./s.json }\n", {
        "s.json": JSON.stringify(SCHEMA),
      });
      const model = new ScriptedModel([
        JSON.stringify({ final_answer: { value: "seven" } }),
        JSON.stringify({ final_answer: "not json" }),
        JSON.stringify({ final_answer: { value: 7 } }),
      ]);
      const agent = agentFromDefinition(definition, { model, options: { grammar } });
      if (grammar) expect(JSON.stringify(agent.actionJsonSchema)).toContain(`"final_answer":${JSON.stringify(SCHEMA)}`);
      else expect(agent.actionJsonSchema).toBeUndefined();
      const result = await agent.invoke("What is 3+4?");
      expect(result.reply).toEqual({ value: 7 });
      expect(result.answer).toBe('{"value":7}');
      const errors = result.state.stream.ofType("validation-error");
      expect(errors.map((e) => [e.validatorName, e.errorType])).toEqual([
        ["output_schema", "schema_mismatch"],
        ["output_schema", "schema_mismatch"],
      ]);
      expect(errors[0].feedback).toContain("expected number");
      expect(model.calls[1].prompt).toContain("Your final_answer did not match the required JSON Schema");
    });
  }

  it("constraints.max_total_tokens ends the run when a model call takes it over the limit", async () => {
    const definition = await define("name: t\ntools: [calculator]\nconstraints: { max_total_tokens: 400 }\n");
    const model = new ScriptedModel([callReply("calculator", { expression: "1+1" }), answerReply("2")], {
      reportTokens: (t) => t.length,
    });
    const state = await agentFromDefinition(definition, { model }).run("Go");
    expect(state.stopReason).toBe("constraint_violated");
    expect(state.iterations).toBe(1);
    const event = state.stream.ofType("constraint-violated")[0];
    expect(event).toMatchObject({ constraint: "max_total_tokens", limit: 400 });
    expect(event.actual).toBe(model.calls[0].prompt.length + callReply("calculator", { expression: "1+1" }).length);
  });

  it("constraints.max_latency_ms stops the run under way (here a slow skill)", async () => {
    const slow = defineSkill({
      name: "slow",
      description: "Takes its time.",
      parameters: z.object({}),
      run: (_args, ctx) =>
        new Promise((resolve) => {
          const timer = setTimeout(resolve, 5_000, "late");
          ctx.signal.addEventListener("abort", () => clearTimeout(timer));
        }),
    });
    const definition = await define(
      "name: l\ntools: [slow]\nconstraints: { max_latency_ms: 150 }\n",
      {},
      new Registry([slow]),
    );
    const started = performance.now();
    const state = await agentFromDefinition(definition, {
      model: new ScriptedModel([callReply("slow"), answerReply("x")]),
    }).run("Go");
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(state.stopReason).toBe("constraint_violated");
    expect(state.stream.ofType("constraint-violated")[0]).toMatchObject({ constraint: "max_latency_ms", limit: 150 });
    expect(state.stream.ofType("constraint-violated")[0].actual).toBeGreaterThanOrEqual(150);
  });

  it("constraints.forbidden_patterns: an answer matching one (case-insensitive; /.../ a regular expression) ends the run", async () => {
    const definition = await define(
      'name: p\ntools: []\nconstraints: { forbidden_patterns: ["As a language model", "/pass(word)?\\\\s*[:=]/"] }\n',
    );
    const run = async (answer: string) =>
      agentFromDefinition(definition, { model: new ScriptedModel([answerReply(answer)]) }).run("Hi");
    const literal = await run("as a LANGUAGE MODEL, I cannot browse.");
    expect([literal.stopReason, literal.answer]).toEqual(["constraint_violated", undefined]);
    expect(literal.stream.ofType("constraint-violated")[0]).toMatchObject({
      constraint: "forbidden_pattern",
      limit: "As a language model",
      answer: "as a LANGUAGE MODEL, I cannot browse.",
    });
    expect(literal.stream.ofType("final-answer")).toHaveLength(0);
    expect((await run("The PASSWORD: hunter2")).stream.ofType("constraint-violated")[0]?.limit).toBe(
      "/pass(word)?\\s*[:=]/",
    );
    expect((await run("A language model is a thing.")).stopReason).toBe("answer");
  });

  it("a nested agent as a tool: the supervisor delegates, the specialist runs with its own tools, depth 1", async () => {
    const definition = await define(
      "name: boss\ntools: [convert_units, { name: ask_math, type: agent, agent: ./math.yaml, max_depth: 2 }]\n",
      { "math.yaml": "name: math\ndescription: Does sums.\ntools: [calculator]\nloop_policy: { max_iterations: 3 }\n" },
    );
    const model = new ScriptedModel([
      callReply("ask_math", { task: "3 * 250" }),
      callReply("calculator", { expression: "3 * 250" }),
      answerReply("750"),
      answerReply("It is 750."),
    ]);
    const agent = agentFromDefinition(definition, { model });
    expect(agent.registry.names()).toEqual(["convert_units", "ask_math"]);
    const state = await agent.run("What is 3 times 250?");
    expect(state.answer).toBe("It is 750.");
    const nested = state.stream.toArray().filter((e) => e.depth === 1);
    expect(nested.map((e) => e.type)).toEqual(["call-skill", "observation", "final-answer"]);
    expect(state.stream.ofType("observation").find((e) => e.depth === undefined)?.result).toBe("750");
    // the specialist's prompt holds its own tool and not the supervisor's
    expect(model.calls[1].prompt).toContain("- calculator:");
    expect(model.calls[1].prompt).not.toContain("- convert_units:");
  });

  it("memory: a conversation keeps the turns and the next prompt shows them", async () => {
    const definition = await define("name: m\ntools: []\nmemory: { type: conversation, token_budget: 5000 }\n");
    const model = new ScriptedModel([answerReply("Hello, Ada."), answerReply("Your name is Ada.")]);
    const agent = agentFromDefinition(definition, { model });
    expect(agent.options.memory).toEqual({ tokenBudget: 5000, trimPolicy: "drop_oldest" });
    const conversation = new Conversation();
    await agent.invoke("My name is Ada.", { conversation });
    const second = await agent.invoke("What is my name?", { conversation });
    expect(second.answer).toBe("Your name is Ada.");
    expect(model.calls[1].prompt).toContain("My name is Ada.");
    expect(model.calls[1].prompt.slice(0, model.calls[0].prompt.length)).toBe(model.calls[0].prompt);
    expect(conversation.turns.map((t) => t.user)).toEqual(["My name is Ada.", "What is my name?"]);
  });

  it("system_prompt is the soul's text; soul is a parsed SOUL.md", async () => {
    const inline = await define("name: i\ntools: []\nsystem_prompt: You are Inline.\n");
    expect(agentFromDefinition(inline, { model: new ScriptedModel([]) }).systemPrompt).toMatch(/^You are Inline\./);
    const file = await define("name: s\ntools: []\nsoul: ./SOUL.md\n", {
      "SOUL.md": "## Personality\nDry.\n\n## Name & Role\nSoulful.\n",
    });
    expect(agentFromDefinition(file, { model: new ScriptedModel([]) }).systemPrompt).toMatch(
      /^# Name & Role\nSoulful\.\n\n# Personality\nDry\./,
    );
  });
});
