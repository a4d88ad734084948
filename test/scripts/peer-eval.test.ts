/**
 * scripts/peer-eval.ts without a model: its flag errors as a user meets them (a real child process: one line on
 * stderr, exit 2), and the schema conversion to node-llama-cpp's GbnfJsonSchema on the shapes our skills produce.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ANY_JSON, toGbnfJsonSchema } from "../../scripts/lib/peer-schema.js";
import { defineSkill, Registry } from "../../src/skills/index.js";

const ROOT = join(import.meta.dirname, "../..");
const SCRIPT = join(ROOT, "scripts/peer-eval.ts");

function peerEval(args: string[]) {
  const result = spawnSync(process.execPath, ["--import", "tsx", SCRIPT, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.trim() };
}

describe("scripts/peer-eval.ts flags", () => {
  it.each([
    [["--bogus"], /Unknown option '--bogus'/],
    [["--suite", "evals/basic.json"], /--model PATH is required/],
    [["--model", "/no/such/model.gguf", "--suite", "evals/basic.json"], /no model file \/no\/such\/model\.gguf/],
    [["--model", "m.gguf", "--bfcl", "evals/bfcl"], /--bfcl needs --category/],
    [["--model", "m.gguf", "--suite", "evals/basic.json", "--budgets", "2,0"], /--budgets must be a whole number >= 1/],
  ])("%j: one line, exit 2", (args, message) => {
    const { status, stderr } = peerEval(args);
    expect(status).toBe(2);
    expect(stderr.split("\n")).toHaveLength(1);
    expect(stderr).toMatch(message);
  });

  it("--help prints the usage, exit 0", () => {
    const { status, stdout } = peerEval(["--help"]);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^usage: npx tsx scripts\/peer-eval\.ts --model PATH/);
  });
});

describe("toGbnfJsonSchema", () => {
  it("keeps what node-llama-cpp reads and reports the rest", () => {
    const skill = defineSkill({
      name: "f",
      description: "d",
      parameters: z.object({
        n: z.number().int().min(1).describe("count"),
        s: z.string().regex(/^a/).optional(),
        e: z.enum(["x", "y"]),
        v: z.unknown(),
        l: z.array(z.string()).max(3),
        o: z.string().nullable(),
      }),
      run: () => 0,
    });
    const { schema, dropped } = toGbnfJsonSchema(new Registry([skill]).jsonSchema("f"));
    expect(schema).toEqual({
      type: "object",
      properties: {
        n: { type: "integer", description: "count" },
        s: { type: "string" },
        e: { enum: ["x", "y"] },
        v: ANY_JSON,
        l: { type: "array", items: { type: "string" }, maxItems: 3 },
        o: { oneOf: [{ type: "string" }, { type: "null" }] },
      },
      required: ["n", "e", "v", "l", "o"],
    });
    expect(dropped).toEqual(expect.arrayContaining(["maximum", "minimum", "pattern"]));
  });
});
