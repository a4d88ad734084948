/**
 * The long run of the differential fuzzer of our GBNF matcher against llama.cpp's grammar (issue 42; the cases are in
 * test/reliability/matcher-fuzz-cases.ts, how llama.cpp is asked about each prefix in matcher-fuzz-oracle.ts).
 *
 *   npx tsx scripts/fuzz-matcher.ts --runs 100000 --seed 42 [--chunk 2000]
 *
 * Runs `--runs` cases (a JSON Schema and one text; or a schema the compiler must refuse) in chunks of `--chunk`, each
 * chunk a fast-check run seeded `seed + chunk index`. A chunk stops at its first disagreement, which fast-check
 * shrinks and this prints (schema, GBNF, text, which prefix, what each side said); the next chunk goes on. Progress
 * goes to stderr; the summary (cases, prefixes, disagreements, seed, time) to stdout. Exits 1 on any disagreement.
 */
import { parseArgs } from "node:util";
import fc from "fast-check";
import { fixtureModelPath } from "../test/helpers/fixture-model.js";
import { fuzzCase, type FuzzCase } from "../test/reliability/matcher-fuzz-cases.js";
import { describeCase, LlamaGrammarOracle, runCase } from "../test/reliability/matcher-fuzz-oracle.js";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "10000" },
    seed: { type: "string", default: "42" },
    chunk: { type: "string", default: "2000" },
  },
});
const runs = Number(values.runs);
const seed = Number(values.seed);
const chunk = Number(values.chunk);
if (![runs, seed, chunk].every(Number.isInteger) || runs < 1 || chunk < 1)
  throw new Error("--runs, --seed and --chunk must be integers (runs and chunk at least 1)");

const oracle = await LlamaGrammarOracle.open(fixtureModelPath());
const started = Date.now();
const tally = { cases: 0, compared: 0, refused: 0, prefixes: 0, disagreements: 0 };

for (let index = 0; tally.cases < runs; index++) {
  const numRuns = Math.min(chunk, runs - tally.cases);
  const chunkSeed = seed + index;
  let counted = 0;
  const property = fc.asyncProperty(fuzzCase, async (fuzz: FuzzCase) => {
    const result = await runCase(oracle, fuzz);
    if (result.kind === "disagree") throw new Error(describeCase(fuzz, result));
  });
  // count each case once: runs before the failure, not the re-runs of shrinking
  const counting = fc.asyncProperty(fuzzCase, async (fuzz: FuzzCase) => {
    const result = await runCase(oracle, fuzz);
    counted++;
    if (result.kind === "refused") tally.refused++;
    else if (result.kind === "agree") {
      tally.compared++;
      tally.prefixes += result.prefixes;
    } else throw new Error(describeCase(fuzz, result));
  });
  const details = await fc.check(counting, { numRuns, seed: chunkSeed, endOnFailure: true });
  tally.cases += counted;
  if (details.failed) {
    tally.disagreements++;
    const shrunk = await fc.check(property, { numRuns, seed: chunkSeed });
    const counterexample = shrunk.counterexample?.[0];
    const result = counterexample ? await runCase(oracle, counterexample) : undefined;
    console.log(`\nDISAGREEMENT (chunk seed ${chunkSeed}, shrunk in ${shrunk.numShrinks} steps):`);
    console.log(counterexample && result ? describeCase(counterexample, result) : String(details.errorInstance));
  }
  const seconds = (Date.now() - started) / 1000;
  process.stderr.write(
    `\r${tally.cases}/${runs} cases, ${tally.disagreements} disagreements, ${seconds.toFixed(0)} s   `,
  );
}
await oracle.dispose();

const seconds = (Date.now() - started) / 1000;
process.stderr.write("\n");
console.log(
  [
    `GBNF matcher vs llama.cpp's grammar: ${tally.cases} cases (${tally.compared} texts compared on ${tally.prefixes} prefixes, ${tally.refused} schemas refused)`,
    `disagreements: ${tally.disagreements}`,
    `seed: ${seed} (chunks of ${chunk}, chunk i seeded ${seed}+i)`,
    `time: ${seconds.toFixed(1)} s`,
  ].join("\n"),
);
process.exitCode = tally.disagreements > 0 ? 1 : 0;
