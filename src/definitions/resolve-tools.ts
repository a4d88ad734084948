import { resolve } from "node:path";
import { isPlainObject } from "../is-plain-object.js";
import type { Soul } from "../prompt/soul.js";
import type { Registry } from "../skills/registry.js";
import type { AgentDefinition, AgentToolDefinition, ToolDefinition } from "./agent-definition.js";
import { AgentDefinitionError, DefinitionProblems } from "./definition-error.js";
import { describeIssue } from "./definition-issues.js";
import { agentToolSchema } from "./definition-schema.js";

/** What loading a definition's tools needs: the registry, the files loading (for cycles), those loaded, the top's name. */
export interface ToolContext {
  registry: Registry;
  /** Absolute paths of the definitions being loaded, outermost first. */
  stack: string[];
  loaded: Map<string, AgentDefinition>;
  /** The top file as the caller wrote it (messages name it so). */
  topDisplay: string;
}

/** The definition file being loaded: its path, its name in messages, its folder. */
export interface Where {
  path: string;
  display: string;
  dir: string;
}

/** Loads a nested definition file (load-agent-definition.ts's loader). */
export type LoadNested = (path: string, context: ToolContext) => Promise<AgentDefinition>;

function unknownSkill(name: string, field: string, where: Where, registry: Registry, display = where.display) {
  return new AgentDefinitionError(
    "unknown_tool",
    `${display}: ${field}: unknown skill "${name}" (available: ${registry.names().join(", ") || "none"})`,
    where.path,
    field,
    name,
  );
}

/** An agent tool: its fields checked, its file loaded (a cycle back to a file being loaded is an error). */
async function agentTool(
  item: unknown,
  field: string,
  where: Where,
  context: ToolContext,
  load: LoadNested,
): Promise<AgentToolDefinition> {
  const parsed = agentToolSchema.safeParse(item);
  if (!parsed.success) {
    const issue = describeIssue(parsed.error.issues[0], agentToolSchema);
    const at = issue.field === "(root)" ? field : `${field}.${issue.field}`;
    throw new AgentDefinitionError("invalid", `${where.display}: ${at}: ${issue.message}`, where.path, at);
  }
  const file = resolve(where.dir, parsed.data.agent);
  const start = context.stack.indexOf(file);
  if (start >= 0) {
    const chain = [...context.stack.slice(start), file].map((p) => p.split(/[\\/]/).pop()).join(" → ");
    throw new AgentDefinitionError(
      "cycle",
      `${where.display}: ${field}.agent: the agent definitions nest in a cycle: ${chain}`,
      where.path,
      `${field}.agent`,
    );
  }
  const definition = await load(file, context);
  const description = parsed.data.description ?? definition.description;
  if (!description)
    throw new AgentDefinitionError(
      "invalid",
      `${where.display}: ${field}.description: the tool needs a description (its agent ${definition.name} has none), for the model that calls it`,
      where.path,
      `${field}.description`,
    );
  return {
    type: "agent",
    name: parsed.data.name,
    description,
    file,
    definition,
    maxDepth: parsed.data.max_depth,
  };
}

/** One item of `tools`: a skill of the registry, or an agent tool. */
async function toolItem(
  item: unknown,
  field: string,
  where: Where,
  context: ToolContext,
  load: LoadNested,
): Promise<ToolDefinition> {
  if (typeof item === "string") {
    if (!context.registry.has(item)) throw unknownSkill(item, field, where, context.registry);
    return { type: "skill", name: item };
  }
  if (isPlainObject(item)) return agentTool(item, field, where, context, load);
  throw new AgentDefinitionError(
    "invalid",
    `${where.display}: ${field}: expected a skill name or { name, type: agent, agent: FILE }`,
    where.path,
    field,
  );
}

/** The definition's `tools`: each a skill of the registry or an agent tool; names must be unique. Every bad item is named. */
export async function resolveTools(
  items: readonly unknown[],
  where: Where,
  context: ToolContext,
  load: LoadNested,
): Promise<ToolDefinition[]> {
  const tools: ToolDefinition[] = [];
  const problems = new DefinitionProblems(where.path, where.display);
  for (const [i, item] of items.entries()) {
    const field = `tools[${i}]`;
    const tool = await problems.attempt(() => toolItem(item, field, where, context, load));
    if (!tool) continue;
    if (tools.some((t) => t.name === tool.name))
      problems.add(
        new AgentDefinitionError(
          "invalid",
          `${where.display}: ${field}: "${tool.name}" is listed twice`,
          where.path,
          field,
        ),
      );
    else tools.push(tool);
  }
  problems.throwIfAny();
  return tools;
}

/** The skills a SOUL.md's `## Tools` lists (when the definition gives no `tools`): each must be in the registry. */
export function soulTools(soul: Soul, where: Where, registry: Registry): ToolDefinition[] {
  const display = `${where.display}: soul ${soul.source ?? ""}`.trimEnd();
  const names = [...new Set(soul.tools)];
  const unknown = names.filter((name) => !registry.has(name));
  if (unknown.length > 0)
    throw AgentDefinitionError.combine(
      where.display,
      where.path,
      unknown.map((name) => unknownSkill(name, "## Tools", where, registry, display)),
    );
  return names.map((name) => ({ type: "skill", name }));
}
