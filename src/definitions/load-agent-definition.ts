import { dirname, isAbsolute, relative, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { MAX_DEFINITION_FILE_BYTES, MAX_NESTED_DEFINITIONS } from "../defaults.js";
import { isPlainObject } from "../is-plain-object.js";
import { readRegularText, RegularFileError } from "../regular-file.js";
import type { TrimPolicy } from "../memory/memory-options.js";
import { withoutUndefined } from "../without-undefined.js";
import { builtinSkills } from "../skills/builtin/index.js";
import { Registry } from "../skills/registry.js";
import { forbiddenPatternTest } from "../agent/run-limits.js";
import { SoulError, type Soul } from "../prompt/soul.js";
import type { AgentDefinition, AgentToolDefinition, ToolDefinition } from "./agent-definition.js";
import { AgentDefinitionError, DefinitionProblems } from "./definition-error.js";
import { describeIssues } from "./definition-issues.js";
import { agentDefinitionSchema, type AgentDefinitionYaml } from "./definition-schema.js";
import { loadSoul } from "./load-soul.js";
import { readOutputSchema } from "./output-schema-file.js";
import { resolveTools, soulTools, type ToolContext, type Where } from "./resolve-tools.js";

/** How definitions are loaded. */
export interface LoadAgentDefinitionOptions {
  /**
   * The skills a definition's tools may name (a definition's `tools` is a scoped view of it). Default: the built-in
   * skills without the file skills (those need an allowed folder: pass `builtinSkills({ allowDir })`).
   */
  registry?: Registry;
}

/** A file as messages show it: relative to the working folder when inside it. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

/** A model spec with its relative path made absolute (`./x.gguf`, `script:./replies.json`); aliases stay. */
function resolveModel(model: string | undefined, dir: string): string | undefined {
  if (model === undefined) return undefined;
  const script = /^script:(.*)$/.exec(model);
  if (script) return `script:${resolve(dir, script[1])}`;
  if (/^\.{1,2}[\\/]/.test(model) || (/\.gguf$/i.test(model) && !/^[a-z]+:/i.test(model))) return resolve(dir, model);
  return model;
}

/** The text of a definition file: a regular file of at most MAX_DEFINITION_FILE_BYTES. */
function readDefinitionText(path: string, display: string): string {
  try {
    return readRegularText(path, MAX_DEFINITION_FILE_BYTES, "an agent definition");
  } catch (error) {
    const missing = error instanceof RegularFileError && error.code === "not_found";
    const reason = (error as Error).message.startsWith(path)
      ? (error as Error).message.slice(path.length)
      : `: ${(error as Error).message}`;
    throw new AgentDefinitionError(
      missing ? "not_found" : "unreadable",
      `${display}${missing ? ": no such file" : reason}`,
      path,
    );
  }
}

/** The YAML document of a definition file, checked against the schema (every problem named with its field). */
function readDefinitionYaml(path: string, display: string): AgentDefinitionYaml {
  const text = readDefinitionText(path, display);
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new AgentDefinitionError(
      "yaml_syntax",
      `${display}: ${(error as Error).message.split("\n")[0].replace(/:$/, "")}`,
      path,
    );
  }
  if (!isPlainObject(document))
    throw new AgentDefinitionError("invalid", `${display}: expected a YAML mapping (name: ..., tools: ...)`, path);
  const problems = new DefinitionProblems(path, display);
  const parsed = agentDefinitionSchema.safeParse(document);
  if (!parsed.success)
    for (const { field, message } of describeIssues(parsed.error.issues, agentDefinitionSchema))
      problems.add(new AgentDefinitionError("invalid", `${display}: ${field}: ${message}`, path, field));
  if (document.soul !== undefined && document.system_prompt !== undefined)
    problems.add(
      new AgentDefinitionError(
        "invalid",
        `${display}: soul, system_prompt: give one of them, not both (system_prompt is the soul's text written inline)`,
        path,
        "soul",
      ),
    );
  problems.throwIfAny();
  return parsed.data!;
}

/** The definition's SOUL.md, parsed; its errors become the definition's, naming both files. */
async function readSoul(file: string, display: string, path: string): Promise<Soul> {
  try {
    return await loadSoul(file);
  } catch (error) {
    if (error instanceof SoulError)
      throw new AgentDefinitionError("soul", `${display}: soul: ${error.message}`, path, "soul");
    throw error;
  }
}

/** The definition's memory, loop policy and constraints, from the YAML's snake_case to the runtime's fields. */
function policies(yaml: AgentDefinitionYaml): Pick<AgentDefinition, "memory" | "loopPolicy" | "constraints"> {
  const loop = yaml.loop_policy;
  const limits = yaml.constraints;
  return {
    ...(yaml.memory && {
      memory: {
        ...withoutUndefined({ tokenBudget: yaml.memory.token_budget }),
        trimPolicy: (yaml.memory.trim_policy ?? "drop_oldest") as TrimPolicy,
      },
    }),
    loopPolicy: {
      ...withoutUndefined({ maxIterations: loop?.max_iterations, maxRetries: loop?.max_retries }),
      onMaxIterations: loop?.on_max_iterations ?? "error",
      ...withoutUndefined({ finalRoundWithoutTools: loop?.final_round_without_tools }),
    },
    ...(limits && {
      constraints: withoutUndefined({
        maxLatencyMs: limits.max_latency_ms,
        maxTotalTokens: limits.max_total_tokens,
        forbiddenPatterns: limits.forbidden_patterns,
      }),
    }),
  };
}

/** The definition's tools: its `tools`, else the soul's `## Tools`, else every skill of the registry. */
async function definitionTools(
  yaml: AgentDefinitionYaml,
  soul: Soul | string | undefined,
  where: Where,
  context: ToolContext,
): Promise<{ tools: ToolDefinition[]; from: AgentDefinition["toolsFrom"] }> {
  if (yaml.tools !== undefined)
    return { tools: await resolveTools(yaml.tools, where, context, loadDefinition), from: "definition" };
  if (typeof soul === "object" && soul.tools.length > 0)
    return { tools: soulTools(soul, where, context.registry), from: "soul" };
  return { tools: context.registry.names().map((name) => ({ type: "skill", name })), from: "registry" };
}

/** A definition about to be loaded: refused when it closes a cycle, or when the top file reaches too many files. */
function checkNesting(path: string, display: string, context: ToolContext): void {
  if (context.stack.includes(path)) {
    const chain = [...context.stack.slice(context.stack.indexOf(path)), path].map(shown).join(" → ");
    throw new AgentDefinitionError("cycle", `${display}: the agent definitions nest in a cycle: ${chain}`, path);
  }
  if (context.loaded.size + context.stack.length >= MAX_NESTED_DEFINITIONS)
    throw new AgentDefinitionError(
      "too_many",
      `${context.topDisplay}: the agent definitions it nests reach more than ${MAX_NESTED_DEFINITIONS} files (each counted once): split the team`,
      path,
    );
}

/** A definition's forbidden patterns, each compiled now: a bad regular expression is a problem of the file. */
function checkPatterns(yaml: AgentDefinitionYaml, where: Where, problems: DefinitionProblems): void {
  for (const [i, pattern] of (yaml.constraints?.forbidden_patterns ?? []).entries()) {
    try {
      forbiddenPatternTest(pattern);
    } catch (error) {
      const field = `constraints.forbidden_patterns[${i}]`;
      const reason = (error as Error).message.replace(/^Invalid regular expression: /, "");
      problems.add(
        new AgentDefinitionError(
          "invalid",
          `${where.display}: ${field}: not a valid regular expression (${reason})`,
          where.path,
          field,
        ),
      );
    }
  }
}

/** Load one definition file (and, through its tools, the files it nests), with the chain of files loading it. */
async function loadDefinition(path: string, context: ToolContext): Promise<AgentDefinition> {
  const display = context.stack.length === 0 ? context.topDisplay : shown(path);
  const cached = context.loaded.get(path);
  if (cached) return cached;
  checkNesting(path, display, context);
  const yaml = readDefinitionYaml(path, display);
  const dir = dirname(path);
  const where: Where = { path, display, dir };
  const problems = new DefinitionProblems(path, display);
  const soulPath = yaml.soul === undefined ? undefined : resolve(dir, yaml.soul);
  const soul = soulPath ? await problems.attempt(() => readSoul(soulPath, display, path)) : yaml.system_prompt;
  const inner: ToolContext = { ...context, stack: [...context.stack, path] };
  const resolved = await problems.attempt(() => definitionTools(yaml, soul, where, inner));
  const withHandoffs = resolved && (await problems.attempt(() => addHandoffs(resolved.tools, soul, where, inner)));
  const schema =
    yaml.output_schema === undefined
      ? undefined
      : await problems.attempt(() => readOutputSchema(yaml.output_schema!, where));
  checkPatterns(yaml, where, problems);
  problems.throwIfAny();
  const definition: AgentDefinition = {
    name: yaml.name,
    ...withoutUndefined({ description: yaml.description, model: resolveModel(yaml.model, dir), soul, soulPath }),
    path,
    tools: withHandoffs!.tools,
    toolsFrom: resolved!.from,
    handoffs: withHandoffs!.handoffs,
    ...policies(yaml),
    ...withoutUndefined({ outputSchema: schema?.schema, outputSchemaPath: schema?.file }),
    registry: context.registry,
  };
  context.loaded.set(path, definition);
  return definition;
}

/**
 * The soul's `## Handoffs`: each entry names an agent tool of the definition (by tool name or by its agent's name),
 * or is a definition file (relative to the SOUL.md) added as an agent tool named after its agent.
 */
async function addHandoffs(
  tools: ToolDefinition[],
  soul: Soul | string | undefined,
  where: Where,
  context: ToolContext,
): Promise<{ tools: ToolDefinition[]; handoffs: string[] }> {
  if (typeof soul !== "object" || soul.handoffs.length === 0) return { tools, handoffs: [] };
  const all = [...tools];
  const handoffs: string[] = [];
  const soulDir = dirname(soul.source ?? where.path);
  for (const entry of soul.handoffs) {
    const agents = all.filter((t): t is AgentToolDefinition => t.type === "agent");
    const isFile = /\.ya?ml$/i.test(entry) || /^\.{0,2}[\\/]/.test(entry);
    const file = isFile ? resolve(soulDir, entry) : undefined;
    let tool = agents.find((t) => (file ? t.file === file : t.name === entry || t.definition.name === entry));
    if (!tool && file) {
      const definition = await loadDefinition(file, context);
      if (!definition.description)
        throw new AgentDefinitionError(
          "invalid",
          `${shown(file)}: description: a handed-off agent needs a description (its caller's model reads it)`,
          file,
          "description",
        );
      tool = { type: "agent", name: definition.name, description: definition.description, file, definition };
      all.push(tool);
    }
    if (!tool)
      throw new AgentDefinitionError(
        "invalid",
        `${shown(soul.source ?? where.path)}: ## Handoffs: "${entry}" is not an agent tool of ${where.display} (agent tools: ${agents.map((a) => a.name).join(", ") || "none"}); name one, or give the definition file's path`,
        where.path,
        "handoffs",
      );
    handoffs.push(tool.name);
  }
  return { tools: all, handoffs };
}

/**
 * Read an agent definition (YAML), validated with a zod schema: every error is an {@link AgentDefinitionError} naming
 * the file and the field path (`agents/x.yaml: loop_policy.max_iterations: expected an integer >= 1`); unknown keys
 * are errors (a typo is never ignored); unknown tool names list the available ones. Relative paths resolve against
 * the file's folder (a SOUL.md's handoffs against its own). Nested agent files are loaded too, and a cycle among them
 * is an error naming it.
 */
export async function loadAgentDefinition(
  path: string,
  options: LoadAgentDefinitionOptions = {},
): Promise<AgentDefinition> {
  const registry = options.registry ?? new Registry(builtinSkills());
  return loadDefinition(resolve(path), { registry, stack: [], loaded: new Map(), topDisplay: path });
}
