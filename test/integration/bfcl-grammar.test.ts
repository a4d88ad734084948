import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Llama } from "node-llama-cpp";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bfclToJsonSchema } from "../../src/eval/bfcl/bfcl-json-schema.js";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { benchAccess } from "../../src/model/llama/bench-access.js";
import { jsonSchemaToGbnf } from "../../src/model/gbnf/json-schema-to-gbnf.js";
import type { JsonSchema } from "../../src/model/model-handle.js";
import { gemma3ChatFormat } from "../../src/prompt/chat-format.js";
import { loadFixtureModel } from "../helpers/fixture-model.js";

const BFCL = join(import.meta.dirname, "../../evals/bfcl");
const CATEGORIES = ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"];

interface BfclFunction {
  name: string;
  description: string;
  parameters: unknown;
}

function readLines<T>(path: string): T[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as T);
}

/** Every BFCL function, once per name and schema. */
function bfclFunctions(): BfclFunction[] {
  const seen = new Map<string, BfclFunction>();
  for (const category of CATEGORIES) {
    for (const question of readLines<{ function: BfclFunction[] }>(join(BFCL, `BFCL_v4_${category}.json`))) {
      for (const fn of question.function) seen.set(`${fn.name} ${JSON.stringify(fn.parameters)}`, fn);
    }
  }
  return [...seen.values()];
}

const functions = bfclFunctions();
const byName = new Map(functions.map((fn) => [fn.name, fn]));
let model: LlamaModelHandle;
let llama: Llama;

beforeAll(async () => {
  model = await loadFixtureModel({ seed: 11, temperature: 0.8 });
  llama = benchAccess(model).llamaObjects.model.llama;
});
afterAll(() => model?.dispose());

async function grammarFor(schema: JsonSchema) {
  const grammar = await llama.createGrammar({ grammar: jsonSchemaToGbnf(schema) });
  return (text: string) => (grammar as unknown as { _testText(text: string): boolean })._testText(text);
}

describe("BFCL function schemas", () => {
  it("every function's parameters convert and compile with llama.cpp's grammar parser", async () => {
    expect(functions.length).toBeGreaterThan(1300);
    const failures: string[] = [];
    for (const fn of functions) {
      try {
        await llama.createGrammar({ grammar: jsonSchemaToGbnf(bfclToJsonSchema(fn.parameters)) });
      } catch (error) {
        failures.push(`${fn.name}: ${(error as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("every ground-truth call's arguments, written compactly in declared order, match its grammar", async () => {
    let checked = 0;
    const rejected: string[] = [];
    for (const category of ["simple_python", "multiple", "parallel", "parallel_multiple"]) {
      for (const answer of readLines<{ ground_truth: Array<Record<string, Record<string, unknown[]>>> }>(
        join(BFCL, "possible_answer", `BFCL_v4_${category}.json`),
      )) {
        for (const call of answer.ground_truth) {
          const [name, params] = Object.entries(call)[0];
          const fn = byName.get(name);
          if (!fn) continue;
          const schema = bfclToJsonSchema(fn.parameters);
          const args: Record<string, unknown> = {};
          for (const key of Object.keys((schema.properties as object) ?? {})) {
            const allowed = (params[key] ?? []).filter((v) => v !== "");
            if (allowed.length > 0) args[key] = allowed[0];
          }
          const text = JSON.stringify(args);
          if (!z.fromJSONSchema(schema).safeParse(args).success) continue; // ground truth outside its own schema
          checked++;
          if (!(await grammarFor(schema))(text)) rejected.push(`${name} ${text}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(900);
    expect(rejected).toEqual([]);
  });

  it("generations constrained by a sample of BFCL schemas validate against those schemas", async () => {
    // A fixed, varied sample: nested dicts, arrays, enums, tuples, `any`, integers and floats.
    const pick = (test: (s: string) => boolean, count: number) =>
      functions.filter((fn) => test(JSON.stringify(fn.parameters))).slice(0, count);
    const sample = [
      ...pick((s) => s.includes('"tuple"'), 2),
      ...pick((s) => s.includes('"any"'), 2),
      ...pick((s) => s.includes('"enum"'), 3),
      ...pick((s) => /"type": "dict", "properties"[^]*"type": "dict", "properties"/.test(s), 2),
      ...pick((s) => s.includes('"array"') && s.includes('"float"'), 2),
      ...pick((s) => s.includes('"minItems"'), 1),
    ];
    expect(sample.length).toBeGreaterThanOrEqual(10);
    const invalid: string[] = [];
    for (const fn of sample) {
      const schema = bfclToJsonSchema(fn.parameters);
      const prompt = gemma3ChatFormat.render([{ role: "user", content: `Call ${fn.name}: ${fn.description}` }]);
      const text = await model.generate(prompt, { jsonSchema: schema, maxTokens: 4 });
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        invalid.push(`${fn.name}: not JSON: ${text}`);
        continue;
      }
      const result = z.fromJSONSchema(schema).safeParse(value);
      if (!result.success) invalid.push(`${fn.name}: ${text}: ${result.error.message}`);
    }
    expect(invalid).toEqual([]);
  }, 600_000);
});
