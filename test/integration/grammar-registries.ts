/** Registries of varied argument shapes for the grammar tests (the skills never run). */
import { z } from "zod";
import { defineSkill, Registry } from "../../src/skills/index.js";

const noop = () => null;

export const grammarTestRegistries: Record<string, Registry> = {
  calculator: new Registry([
    defineSkill({
      name: "add",
      description: "Add two numbers.",
      parameters: z.object({ a: z.number(), b: z.number() }),
      run: noop,
    }),
    defineSkill({
      name: "sqrt",
      description: "Square root.",
      parameters: z.object({ x: z.number().min(0) }),
      run: noop,
    }),
    defineSkill({
      name: "round",
      description: "Round a number.",
      parameters: z.object({ x: z.number(), digits: z.int().min(0).max(10).optional() }),
      run: noop,
    }),
  ]),
  search: new Registry([
    defineSkill({
      name: "weather",
      description: "Weather for a city.",
      parameters: z.object({ city: z.string().min(1), unit: z.enum(["celsius", "fahrenheit"]).optional() }),
      run: noop,
    }),
    defineSkill({
      name: "web.search",
      description: "Search the web.",
      parameters: z.object({ query: z.string().min(1).max(80), limit: z.int().positive().max(20).default(5) }),
      run: noop,
    }),
  ]),
  tasks: new Registry([
    defineSkill({
      name: "add_task",
      description: "Add a task.",
      parameters: z.object({
        title: z.string(),
        tags: z.array(z.string()).max(3),
        priority: z.union([z.literal(1), z.literal(2), z.literal(3)]).optional(),
        due: z.string().nullable(),
      }),
      run: noop,
    }),
    defineSkill({ name: "list_tasks", description: "List tasks.", parameters: z.object({}), run: noop }),
    defineSkill({
      name: "complete",
      description: "Complete a task.",
      parameters: z.object({ id: z.int().nonnegative(), done: z.boolean() }),
      run: noop,
    }),
  ]),
  calendar: new Registry([
    defineSkill({
      name: "create_event",
      description: "Create an event.",
      parameters: z.object({
        event: z.object({
          name: z.string().min(1),
          when: z.object({ date: z.string(), hour: z.int().min(0).max(23) }),
        }),
        attendees: z
          .array(z.object({ email: z.string(), optional: z.boolean().optional() }))
          .min(1)
          .max(2),
      }),
      run: noop,
    }),
    defineSkill({
      name: "cancel_event",
      description: "Cancel an event.",
      parameters: z.object({ id: z.string(), reason: z.enum(["conflict", "illness", "other"]).nullable() }),
      run: noop,
    }),
  ]),
};
