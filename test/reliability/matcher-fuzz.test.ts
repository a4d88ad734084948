/**
 * The differential fuzzer of our GBNF matcher against llama.cpp's grammar (issue 42), seeded and bounded for CI: JSON
 * Schemas of the shapes BFCL lacks and texts walked through the matcher, mutated or random
 * (matcher-fuzz-cases.ts); for each, both sides must agree on every prefix (alive, complete) and on the whole text
 * (matcher-fuzz-oracle.ts says how llama.cpp is asked about a prefix: byte tokens of the fixture model's vocabulary
 * into a grammar evaluation state). Schemas the compiler must refuse are refused with their JsonSchemaGrammarError.
 * The long run is `npx tsx scripts/fuzz-matcher.ts --runs 100000 --seed N`.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGbnf } from "../../src/model/gbnf/gbnf-parse.js";
import { JsonSchemaGrammarError } from "../../src/model/gbnf/json-schema-keywords.js";
import { jsonSchemaToGbnf } from "../../src/model/gbnf/json-schema-to-gbnf.js";
import { getLlamaRuntime } from "../../src/model/llama/llama-runtime.js";
import { fixtureModelPath } from "../helpers/fixture-model.js";
import { fuzzCase, refusedSchema, type FuzzCase } from "./matcher-fuzz-cases.js";
import {
  describeCase,
  LlamaGrammarOracle,
  matcherVerdicts,
  runCase,
  type PrefixVerdict,
} from "./matcher-fuzz-oracle.js";

/** Cases per CI run: 8 to 15 s on a 2-core machine, with other tests beside it (the long run is the script's). */
const RUNS = 1500;
const SEED = 42;

let oracle: LlamaGrammarOracle;
beforeAll(async () => {
  oracle = await LlamaGrammarOracle.open(fixtureModelPath());
});
afterAll(() => oracle?.dispose());

const ALIVE: PrefixVerdict = { alive: true, complete: false };
const COMPLETE: PrefixVerdict = { alive: true, complete: true };
const DEAD: PrefixVerdict = { alive: false, complete: false };

describe("the prefix oracle (llama.cpp asked through byte tokens)", () => {
  it("tells a dead prefix from a live incomplete one, per code point, multi-byte characters included", async () => {
    // hand-derived: "a", then at most one of é..中 (U+00E9..U+4E2D), then "b", then optionally 😀
    const grammar = await oracle.grammar('root ::= "a" [é-中]? "b" "😀"?\n');
    const verdicts = (text: string) => oracle.verdicts(grammar, text);
    expect(verdicts("")).toEqual([ALIVE]);
    expect(verdicts("a中b😀")).toEqual([ALIVE, ALIVE, ALIVE, COMPLETE, COMPLETE]);
    expect(verdicts("ab")).toEqual([ALIVE, ALIVE, COMPLETE]);
    expect(verdicts("aéé")).toEqual([ALIVE, ALIVE, ALIVE, DEAD]);
    expect(verdicts("aßb")).toEqual([ALIVE, ALIVE, DEAD, DEAD]); // ß is U+00DF, below é
    expect(verdicts("a𝄞")).toEqual([ALIVE, ALIVE, DEAD]); // four bytes, above 中
    // nothing may follow a finished match, a multi-byte character included
    expect(verdicts("ab😀é")).toEqual([ALIVE, ALIVE, COMPLETE, COMPLETE, DEAD]);
    expect(oracle.wholeText(grammar, "ab😀")).toBe(true);
    expect(oracle.wholeText(grammar, "a")).toBe(false);
  });

  it("catches grammars that differ by one repetition, where our matcher reads the other one", async () => {
    const llama = await oracle.grammar('root ::= "[" "x"{0,3} "]"\n');
    const ours = parseGbnf('root ::= "[" "x"{0,4} "]"\n');
    expect(oracle.verdicts(llama, "[xxx]")).toEqual(matcherVerdicts(ours, "[xxx]"));
    expect(oracle.verdicts(llama, "[xxxx]")).not.toEqual(matcherVerdicts(ours, "[xxxx]"));
  });

  it("llama.cpp refuses a left-recursive grammar (why the compiler refuses a $ref cycle that reads nothing)", async () => {
    const { llama } = await getLlamaRuntime(false);
    await expect(llama.createGrammar({ grammar: 'root ::= a\na ::= a "x" | "y"\n' })).rejects.toThrow(/grammar/);
    expect(() => parseGbnf('root ::= a\na ::= a "x" | "y"\n')).not.toThrow(); // our reader takes it: the compiler must not write it
    expect(() => jsonSchemaToGbnf({ $ref: "#" })).toThrow(JsonSchemaGrammarError);
  });
});

describe("our GBNF matcher against llama.cpp's grammar, on fuzzed schemas and texts", () => {
  it(`agrees on every prefix of ${RUNS} seeded cases; refuses what it must with a clear error`, async () => {
    const tally = { compared: 0, refused: 0, prefixes: 0, complete: 0, dead: 0, live: 0 };
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fuzzCase, async (fuzz: FuzzCase) => {
        const result = await runCase(oracle, fuzz);
        if (result.kind === "disagree") throw new Error(describeCase(fuzz, result));
        if (result.kind === "refused") tally.refused++;
        else {
          tally.compared++;
          tally.prefixes += result.prefixes;
          if (result.last.complete) tally.complete++;
          else if (result.last.alive) tally.live++;
          else tally.dead++;
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    console.info(
      `matcher fuzz: ${RUNS} cases (seed ${SEED}): ${tally.compared} texts compared on ${tally.prefixes} prefixes ` +
        `(${tally.complete} complete, ${tally.live} live, ${tally.dead} dead at the end), ${tally.refused} refused, ` +
        `0 disagreements, ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    // both sides of the line were probed: complete matches, live prefixes, dead texts and refusals
    expect(tally.compared + tally.refused).toBe(RUNS);
    for (const count of [tally.complete, tally.live, tally.dead]) expect(count).toBeGreaterThan(RUNS / 20);
    expect(tally.refused).toBeGreaterThan(RUNS / 50);
    expect(tally.prefixes).toBeGreaterThan(RUNS * 10);
  }, 120_000);

  it("refuses every schema that must be refused with its JsonSchemaGrammarError code (no llama.cpp needed)", () => {
    fc.assert(
      fc.property(refusedSchema, ({ schema, code }) => {
        expect(() => jsonSchemaToGbnf(schema)).toThrow(
          expect.objectContaining({
            name: "JsonSchemaGrammarError",
            code,
            message: expect.stringMatching(/^jsonSchemaToGbnf: /),
          }),
        );
      }),
      { numRuns: 300, seed: SEED },
    );
  });
});
