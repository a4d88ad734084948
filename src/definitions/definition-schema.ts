import { z } from "zod";
import { TRIM_POLICIES } from "../memory/memory-options.js";

const integerAtLeast = (min: number) => {
  const error = `expected an integer >= ${min}`;
  return z.number({ error }).int({ error }).min(min, { error });
};

/** An agent's name: what a supervisor's model writes to delegate to it, and what spans and conversations show. */
export const AGENT_NAME = /^[a-z0-9_-]+$/;

/** A tool that is another agent (a definition file), run as a nested agent (agentAsSkill). */
export const agentToolSchema = z.strictObject({
  name: z.string({ error: "expected a skill name" }).regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/, {
    error: "expected a skill name (letters, digits, _ - . ; starting with a letter or _)",
  }),
  type: z.literal("agent", { error: 'expected "agent"' }),
  agent: z.string({ error: "expected the path of an agent definition file" }).min(1),
  description: z.string().min(1).optional(),
  max_depth: integerAtLeast(1).optional(),
});

/** The YAML of an agent definition, as written (paths not yet resolved, names not yet checked against skills). */
export const agentDefinitionSchema = z.strictObject({
  name: z.string({ error: "expected a name" }).regex(AGENT_NAME, { error: "expected a name of a-z, 0-9, _ and -" }),
  description: z.string({ error: "expected a text" }).min(1).optional(),
  model: z.string({ error: "expected a model alias, a GGUF path or script:FILE" }).min(1).optional(),
  soul: z.string({ error: "expected the path of a SOUL.md file" }).min(1).optional(),
  system_prompt: z.string({ error: "expected a text" }).min(1).optional(),
  // each item is checked in the loader: a skill name, or an agent tool (agentToolSchema)
  tools: z.array(z.unknown(), { error: "expected a list of skill names and agent tools" }).optional(),
  memory: z
    .strictObject({
      type: z.literal("conversation", { error: 'expected "conversation"' }),
      token_budget: integerAtLeast(1).optional(),
      trim_policy: z
        .enum(TRIM_POLICIES as [string, ...string[]], { error: `expected ${TRIM_POLICIES.join(" or ")}` })
        .optional(),
    })
    .optional(),
  loop_policy: z
    .strictObject({
      max_iterations: integerAtLeast(1).optional(),
      max_retries: integerAtLeast(0).optional(),
      on_max_iterations: z
        .enum(["error", "warn_and_return"], { error: "expected error or warn_and_return" })
        .optional(),
      final_round_without_tools: z.boolean({ error: "expected true or false" }).optional(),
    })
    .optional(),
  // a { file: PATH } or an inline JSON Schema: checked in the loader
  output_schema: z
    .record(z.string(), z.unknown(), { error: "expected { file: PATH } or a JSON Schema object" })
    .optional(),
  constraints: z
    .strictObject({
      max_latency_ms: integerAtLeast(1).optional(),
      max_total_tokens: integerAtLeast(1).optional(),
      forbidden_patterns: z
        .array(z.string().min(1, { error: "expected a non-empty pattern" }), { error: "expected a list of patterns" })
        .optional(),
    })
    .optional(),
});

/** An agent definition as written. */
export type AgentDefinitionYaml = z.infer<typeof agentDefinitionSchema>;
