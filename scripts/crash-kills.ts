/**
 * Crash consistency (issue 42 item 3): SIGKILL the built CLI at random points (delays drawn from a seeded source)
 * while it writes each of its five files (eval results with --resume, a conversation, a trace, the prompt cache, a
 * download), check after each kill that the next run starts clean, and print per writer the kills and what went wrong:
 * records lost, doubled or torn, partial states or files accepted (all must be 0). See test/reliability/crash/.
 *
 *   npm run build
 *   npx tsx scripts/crash-kills.ts --kills 500 --seed 1 [--writer eval|conversation|trace|prompt-cache|download]
 *     [--cli dist/cli/main.js] [--work DIR] [--keep] [--verbose]
 *
 * `--kills` is the total, shared evenly by the writers run (one after the other; the prompt cache's runs are real
 * llama.cpp processes on the fixture model, never two at once). `--writer` may be repeated or comma-separated.
 * `--keep` keeps a failed trial's folder (under --work) to look at. Exit 1 when anything went wrong.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  runCrashKills,
  tallyFailures,
  tallyLine,
  WRITER_NAMES,
  type WriterName,
} from "../test/reliability/crash/index.js";

const { values } = parseArgs({
  options: {
    kills: { type: "string", default: "500" },
    seed: { type: "string", default: "1" },
    writer: { type: "string", multiple: true },
    cli: { type: "string" },
    work: { type: "string" },
    keep: { type: "boolean", default: false },
    verbose: { type: "boolean", default: false },
  },
});

const writers = (values.writer ?? [...WRITER_NAMES]).flatMap((w) => w.split(",")).map((w) => w.trim());
for (const name of writers)
  if (!(WRITER_NAMES as readonly string[]).includes(name))
    throw new Error(`--writer ${name}: one of ${WRITER_NAMES.join(", ")}`);
const kills = Number(values.kills);
const seed = Number(values.seed);
if (!Number.isInteger(kills) || kills < 1 || !Number.isInteger(seed)) throw new Error("--kills and --seed: integers");
const killsPerWriter = Math.ceil(kills / writers.length);
const work = values.work ? resolve(values.work) : mkdtempSync(join(tmpdir(), "crash-kills-"));
const started = performance.now();
const log = (line: string) => process.stderr.write(`${line}\n`);

log(
  `crash-kills: ${killsPerWriter} kills for each of ${writers.join(", ")} (seed ${seed}) in ${work}; ${cpus().length} CPUs`,
);
const tallies = await runCrashKills(writers as WriterName[], {
  killsPerWriter,
  seed,
  work,
  keepFailed: values.keep,
  ...(values.cli && { cli: resolve(values.cli) }),
  log: (line) => {
    if (values.verbose || !line.includes("killed at")) log(line);
  },
});
if (!values.work && !values.keep) rmSync(work, { recursive: true, force: true });

const sum = (key: "kills" | "midWrite" | "lost" | "doubled" | "torn" | "partialAccepted") =>
  tallies.reduce((total, t) => total + t[key], 0);
for (const tally of tallies) console.log(tallyLine(tally));
const failures = tallies.reduce((total, t) => total + tallyFailures(t), 0);
console.log(
  `total: ${sum("kills")} kills (${sum("midWrite")} mid-write), ${sum("lost")} lost, ${sum("doubled")} doubled, ${sum("torn")} torn, ${sum("partialAccepted")} partial accepted, ${tallies.reduce((n, t) => n + t.failures.length, 0)} other failures; seed ${seed}, ${((performance.now() - started) / 1000).toFixed(0)} s`,
);
process.exitCode = failures > 0 ? 1 : 0;
