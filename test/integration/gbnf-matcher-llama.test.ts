/**
 * Jump-forward feeds the text our GBNF matcher says a grammar forces, so the matcher must never allow what
 * llama.cpp's grammar refuses. Checked on every BFCL function schema in evals/bfcl (all five categories) and on
 * action schemas: random texts walked through the matcher (free choices at random, forced text taken, then closed
 * along a short path) must be complete matches for llama.cpp (`isTextCompatible`), and a text with one character
 * changed is a complete match for both or for neither.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Llama, LlamaGrammar } from "node-llama-cpp";
import { beforeAll, describe, expect, it } from "vitest";
import { buildActionJsonSchema } from "../../src/actions/action-json-schema.js";
import { bfclToJsonSchema } from "../../src/eval/bfcl/bfcl-json-schema.js";
import { GbnfMatcher } from "../../src/model/gbnf/gbnf-matcher.js";
import { parseGbnf } from "../../src/model/gbnf/gbnf-parse.js";
import { jsonSchemaToGbnf } from "../../src/model/gbnf/json-schema-to-gbnf.js";
import { getLlamaRuntime } from "../../src/model/llama/llama-runtime.js";
import { Registry } from "../../src/skills/registry.js";
import { calculatorSkill, convertUnitsSkill } from "../../src/skills/builtin/index.js";

const BFCL = join(import.meta.dirname, "../../evals/bfcl");
const CATEGORIES = ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"];
/** Characters a random walk tries: JSON's structure, letters, digits, escapes, non-ASCII, spaces. */
const ALPHABET = Array.from('{}[]",:.-+0123456789eEabcdfnrtuxyzABZ \\/_é中😀\t'); // code points, the emoji whole
/** Closing: the characters that end strings, objects and arrays first, then the cheapest value characters. */
const CLOSERS = Array.from('"}]0a1te,:[{.-');

function bfclSchemas(): { name: string; gbnf: string }[] {
  const seen = new Map<string, { name: string; gbnf: string }>();
  for (const category of CATEGORIES) {
    for (const line of readFileSync(join(BFCL, `BFCL_v4_${category}.json`), "utf8").split("\n")) {
      if (line.trim() === "") continue;
      for (const fn of (JSON.parse(line) as { function: { name: string; parameters: unknown }[] }).function) {
        const gbnf = jsonSchemaToGbnf(bfclToJsonSchema(fn.parameters));
        seen.set(gbnf, { name: fn.name, gbnf });
      }
    }
  }
  return [...seen.values()];
}

/** A small deterministic random source (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A complete text of the grammar: `freeSteps` random choices (forced text taken whole), then the shortest-looking close. */
function walk(matcher: GbnfMatcher, rand: () => number, freeSteps: number): string | undefined {
  let text = "";
  const take = (piece: string) => {
    const ok = matcher.accept(piece);
    if (ok) text += piece;
    return ok;
  };
  for (let step = 0; step < freeSteps && !matcher.finished; step++) {
    const forced = matcher.forced();
    if (forced !== "") {
      take(forced);
      continue;
    }
    for (let tries = 0; tries < 40; tries++) {
      const char = ALPHABET[Math.floor(rand() * ALPHABET.length)];
      if (matcher.clone().accept(char) && take(char)) break;
    }
  }
  for (let step = 0; step < 3000 && !matcher.complete; step++) {
    const forced = matcher.forced();
    if (forced !== "" && take(forced)) continue;
    const char = CLOSERS.find((c) => matcher.clone().accept(c));
    if (char === undefined) return undefined;
    take(char);
  }
  return matcher.complete ? text : undefined;
}

let llama: Llama;
beforeAll(async () => {
  llama = (await getLlamaRuntime(false)).llama;
}, 120_000);

async function checkGrammar(gbnf: string, walks: number, seed: number, failures: string[]): Promise<number> {
  const grammar: LlamaGrammar = await llama.createGrammar({ grammar: gbnf });
  const llamaAccepts = (text: string) => (grammar as unknown as { _testText(t: string): boolean })._testText(text);
  const parsed = parseGbnf(gbnf);
  const rand = random(seed);
  let checked = 0;
  for (let w = 0; w < walks; w++) {
    const text = walk(new GbnfMatcher(parsed), rand, Math.floor(rand() * 60));
    if (text === undefined) continue;
    checked++;
    if (!llamaAccepts(text)) failures.push(`llama.cpp refuses what the matcher wrote: ${text}`);
    const at = Math.floor(rand() * text.length);
    const mutated = text.slice(0, at) + ALPHABET[Math.floor(rand() * ALPHABET.length)] + text.slice(at + 1);
    const ours = new GbnfMatcher(parsed);
    const oursComplete = ours.accept(mutated) && ours.complete;
    if (oursComplete !== llamaAccepts(mutated))
      failures.push(`disagree on ${JSON.stringify(mutated)}: matcher ${oursComplete}, llama.cpp ${!oursComplete}`);
  }
  return checked;
}

describe("the GBNF matcher against llama.cpp's grammar", () => {
  it("on every BFCL function schema: every text it walks is a complete match for llama.cpp, one-character changes agree", async () => {
    const schemas = bfclSchemas();
    expect(schemas.length).toBeGreaterThan(1000);
    const failures: string[] = [];
    let checked = 0;
    for (const [i, { name, gbnf }] of schemas.entries()) {
      const before = failures.length;
      checked += await checkGrammar(gbnf, 3, i + 1, failures);
      if (failures.length > before) failures.push(`  (in ${name})`);
    }
    console.info(
      `GBNF matcher vs llama.cpp: ${schemas.length} BFCL schemas, ${checked} walked texts and as many changed ones`,
    );
    expect(checked).toBeGreaterThan(schemas.length * 2);
    expect(failures.slice(0, 20)).toEqual([]);
  }, 600_000);

  it("on action schemas (thought bounds, parallel calls)", async () => {
    const registry = new Registry();
    registry.register(calculatorSkill);
    registry.register(convertUnitsSkill);
    const failures: string[] = [];
    let checked = 0;
    for (const options of [{}, { maxThoughtChars: 30, maxAnswerChars: 40 }, { parallelCalls: true }]) {
      checked += await checkGrammar(jsonSchemaToGbnf(buildActionJsonSchema(registry, options)), 40, 7, failures);
    }
    expect(checked).toBeGreaterThan(80);
    expect(failures).toEqual([]);
  }, 120_000);
});
