/**
 * Crash trials of the prompt cache (`ask` on a GGUF model saves its system prompt's state): `ask` on the fixture model
 * (real llama.cpp), in a new cache folder (the save makes the key) or, half the trials, in one holding its key (the save
 * is the state's alone), killed mostly while it saves (a delay drawn after the folder's first change, over the time a
 * save takes), else at any point of the run. After each kill, an entry at
 * its final name is looked at (a state whose sha256 is not the whole state's is a half-written entry), and the next
 * `ask` on the same folder must answer exactly as an uninterrupted run, without a warning (the cache left on), with
 * either the whole state restored or the prompt prefilled: restoring from a state that was not whole when the kill
 * left it counts as a partial state accepted. In the end the folder holds the whole entry.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixtureModelPath } from "../../helpers/fixture-model.js";
import {
  between,
  described,
  runCli,
  startCli,
  type CrashRun,
  type CrashWriter,
  type PreparedWriter,
  type TrialContext,
} from "./harness.js";

const STATE = /^[0-9a-f]{40}\.state$/;
const TEMP_DIR = "gemma-agent-prompt-cache.tmp";
const KEY_FILE = "gemma-agent-prompt-cache.key";

const ask = (model: string) => [
  "ask",
  "What is 2+2?",
  "--model",
  model,
  "--threads",
  "1",
  "--context-size",
  "2048",
  "--max-tokens",
  "8",
  "--max-iterations",
  "1",
  "--json",
  "--quiet",
];

/** What must be the same in every run: the answer, the stop reason, each event's kind and reply. */
function outcome(run: CrashRun): string {
  const doc = JSON.parse(run.stdout) as {
    answer: unknown;
    stopReason: string;
    events: { type: string; raw?: string }[];
  };
  return JSON.stringify([run.status, doc.answer, doc.stopReason, doc.events.map((e) => [e.type, e.raw])]);
}

const restoredOf = (run: CrashRun): number =>
  (JSON.parse(run.stdout) as { stats: { lastGeneration?: { restoredPromptTokens?: number } } }).stats.lastGeneration
    ?.restoredPromptTokens ?? 0;

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** The entries' states at their final names, by name, with their sha256. */
function states(cache: string): Map<string, string> {
  const found = new Map<string, string>();
  if (!existsSync(cache)) return found;
  for (const name of readdirSync(cache)) if (STATE.test(name)) found.set(name, sha256(join(cache, name)));
  return found;
}

interface CacheSetup {
  cli: string;
  model: string;
  /** The uninterrupted run's outcome. */
  expected: string;
  /** The whole state's sha256, and its tokens (what a restore restores). */
  stateSha: string;
  tokens: number;
  /** The cache's key, for a folder that has one already. */
  key: Buffer;
  /** ms from the folder's first change to the state at its final name: in a new folder, and in one with its key. */
  saveMs: { fresh: number; keyed: number };
  /** ms of a whole run. */
  runMs: number;
}

/** A new cache folder, or one holding the cache's key and temporary folder (its first change is then the state's). */
function cacheFolder(dir: string, key?: Buffer): string {
  const cache = join(dir, "cache");
  mkdirSync(cache, { recursive: true });
  if (key) {
    writeFileSync(join(cache, KEY_FILE), key, { mode: 0o600 });
    mkdirSync(join(cache, TEMP_DIR), { mode: 0o700 });
  }
  return cache;
}

/** One uninterrupted run on `cache`: when the folder first changed, and when the state was at its final name. */
async function timedRun(cli: string, model: string, cache: string) {
  const times = { first: NaN, state: NaN };
  const started = startCli(cli, ask(model), { env: { GEMMA_AGENT_PROMPT_CACHE: cache }, watch: cache });
  void started.firstChange.then((ms) => (times.first = ms));
  // the state at its final name: looked for every millisecond (a watch may drop the rename's event)
  const poll = setInterval(() => {
    if (Number.isNaN(times.state) && states(cache).size > 0) times.state = performance.now() - started.startedAt;
  }, 1);
  const run = await started.result;
  clearInterval(poll);
  return { run, saveMs: times.state - times.first, firstMs: times.first };
}

export const promptCacheWriter: CrashWriter = {
  name: "prompt-cache",
  async prepare(work, cli, log) {
    const model = fixtureModelPath();
    const cache = cacheFolder(join(work, "fresh"));
    const fresh = await timedRun(cli, model, cache);
    const [stateSha] = [...states(cache).values()];
    const again = await runCli(cli, ask(model), { env: { GEMMA_AGENT_PROMPT_CACHE: cache } });
    const key = readFileSync(join(cache, KEY_FILE));
    const keyed = await timedRun(cli, model, cacheFolder(join(work, "keyed"), key));
    const runs = [fresh.run, again, keyed.run];
    if (
      !stateSha ||
      Number.isNaN(fresh.saveMs + keyed.saveMs) ||
      runs.some((run) => run.signal || outcome(run) !== outcome(fresh.run)) ||
      restoredOf(again) === 0
    )
      throw new Error(`reference runs: ${runs.map(described).join("; ")}`);
    const setup: CacheSetup = {
      cli,
      model,
      expected: outcome(fresh.run),
      stateSha,
      tokens: restoredOf(again),
      key,
      saveMs: { fresh: fresh.saveMs, keyed: keyed.saveMs },
      runMs: fresh.run.ms,
    };
    log(
      `prompt-cache: a run takes ${fresh.run.ms.toFixed(0)} ms; its save ${fresh.saveMs.toFixed(1)} ms from ${fresh.firstMs.toFixed(0)} ms in a new folder, ${keyed.saveMs.toFixed(1)} ms with the key made; ${setup.tokens} tokens restored`,
    );
    return {
      trial: (context: TrialContext) => cacheTrial(context, setup),
      close: async () => {},
    } satisfies PreparedWriter;
  },
};

async function cacheTrial(context: TrialContext, setup: CacheSetup): Promise<void> {
  const { random, dir, tally } = context;
  // half the trials in a new folder (the key is made in the save), half in one with its key (the state is all)
  const keyed = random() < 0.5;
  const cache = cacheFolder(dir, keyed ? setup.key : undefined);
  const env = { GEMMA_AGENT_PROMPT_CACHE: cache };
  const run = startCli(setup.cli, ask(setup.model), { env, watch: cache });
  // mostly while the state is saved (from the folder's first change, over a little more than a save takes)
  const saveMs = keyed ? setup.saveMs.keyed : setup.saveMs.fresh;
  if (random() < 0.8) run.killAt({ from: "first-change", ms: between(random, 0, 1.2 * saveMs + 1) });
  else run.killAt({ from: "start", ms: between(random, 0, setup.runMs) });
  const ended = await run.result;
  if (!ended.killed) {
    if (ended.signal || outcome(ended) !== setup.expected) tally.failures.push(`a run not killed: ${described(ended)}`);
    return;
  }
  tally.kills++;
  const left = states(cache);
  context.log(`prompt-cache: killed at ${ended.ms.toFixed(0)} ms, leaving ${JSON.stringify(listing(cache))}`);
  const temp = join(cache, TEMP_DIR);
  const halfWritten = [...left.values()].filter((sha) => sha !== setup.stateSha).length;
  const records = existsSync(cache) ? readdirSync(cache).filter((name) => /^[0-9a-f]{40}\.json$/.test(name)) : [];
  // a save under way: a file left in the temporary folder, a state not whole, a record without its state
  if (halfWritten > 0 || (existsSync(temp) && readdirSync(temp).length > 0) || records.length > left.size)
    tally.midWrite++;
  const next = await runCli(setup.cli, ask(setup.model), { env });
  if (next.signal || next.stdout.trim() === "") {
    tally.failures.push(`the next run: ${described(next)}`);
    return;
  }
  if (outcome(next) !== setup.expected)
    tally.failures.push(`the next run answered otherwise: ${next.stdout.slice(0, 200)}`);
  if (/warning/i.test(next.stderr)) tally.failures.push(`the next run warned: ${next.stderr.trim().slice(0, 200)}`);
  const restored = restoredOf(next);
  if (restored > 0 && (restored !== setup.tokens || halfWritten > 0 || left.size === 0)) tally.partialAccepted++;
  if (restored === 0 && left.size > 0 && halfWritten === 0)
    tally.failures.push("a whole entry was left, and the next run prefilled instead of using it");
  const after = states(cache);
  if (after.size !== 1 || [...after.values()][0] !== setup.stateSha)
    tally.failures.push(`after the next run the folder holds ${after.size} state(s), not the whole entry`);
}

/** What a folder holds, its subfolders' files included (for the log). */
function listing(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true }).map(String);
}
