import { z } from "zod";
import { defineSkill, Registry } from "../../src/skills/index.js";

/** A small registry for loop tests: add, echo, and a skill that always throws. */
export function mathRegistry(): Registry {
  return new Registry([
    defineSkill({
      name: "add",
      description: "Add two numbers.",
      parameters: z.object({ a: z.number(), b: z.number() }),
      run: ({ a, b }) => a + b,
    }),
    defineSkill({
      name: "echo",
      description: "Echo text back.",
      parameters: z.object({ text: z.string() }),
      run: ({ text }) => text,
    }),
    defineSkill({
      name: "explode",
      description: "Always fails.",
      parameters: z.object({}),
      run: () => {
        throw new Error("kaboom: the reactor is offline");
      },
    }),
  ]);
}
