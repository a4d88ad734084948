/**
 * The prompt cache across processes (issue 11 §3), on the fixture model through real llama.cpp: a later handle
 * restores the shared opening instead of prefilling it and answers exactly as a handle without the cache; a different
 * prompt, model file or context never matches; a damaged or truncated state is deleted and the prompt prefilled; the
 * folder stays within its bounds.
 */
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlamaModelHandle, LoadModelOptions } from "../../src/model/llama/index.js";
import { benchAccess } from "../../src/model/llama/bench-access.js";
import { gemma3ChatFormat } from "../../src/prompt/chat-format.js";
import { sharedOpeningLength } from "../../src/prompt/shared-opening.js";
import { fixtureModelPath, loadFixtureModel } from "../helpers/fixture-model.js";

const SYSTEM = `You are a careful assistant running on the user's own computer.\n${"Use the calculator for arithmetic. ".repeat(12)}`;
const OTHER_SYSTEM = `You are a terse assistant.\n${"Answer in one word when you can. ".repeat(12)}`;
const MAX_TOKENS = 6;

function prompt(system: string, question: string): { text: string; sharedPrefix: number } {
  const text = gemma3ChatFormat.render([
    { role: "system", content: system },
    { role: "user", content: question },
  ]);
  return { text, sharedPrefix: sharedOpeningLength(gemma3ChatFormat, system) };
}

let reference: LlamaModelHandle;
/** A handle with the cache in DIR: each `run` on it empties its sequence first, as a new process starts empty. */
let cached: LlamaModelHandle;
const DIR = mkdtempSync(join(tmpdir(), "prompt-cache-"));
beforeAll(async () => {
  reference = await loadFixtureModel({ seed: 3 });
  cached = await loadFixtureModel({ seed: 3, promptCache: { dir: DIR, maxEntries: 3 } });
}, 120_000);
afterAll(async () => {
  await reference?.dispose();
  await cached?.dispose();
});

/** What a handle without a prompt cache answers (greedy), from an empty sequence. */
async function expected(p: { text: string }): Promise<string> {
  await benchAccess(reference).llamaObjects.sequence.clearHistory();
  return reference.generate(p.text, { maxTokens: MAX_TOKENS });
}

/** Answer `p` as a new process would: from an empty sequence, with the cache in DIR; returns the answer and stats. */
async function run(p: { text: string; sharedPrefix: number }) {
  await benchAccess(cached).llamaObjects.sequence.clearHistory();
  const text = await cached.generate(p.text, { maxTokens: MAX_TOKENS, sharedPrefix: p.sharedPrefix });
  return { text, stats: cached.stats };
}

/** The same in a handle loaded with other options (another model file, another context). */
async function runLoaded(p: { text: string; sharedPrefix: number }, options: Partial<LoadModelOptions>) {
  const handle = await loadFixtureModel({ seed: 3, promptCache: { dir: DIR, maxEntries: 3 }, ...options });
  try {
    const text = await handle.generate(p.text, { maxTokens: MAX_TOKENS, sharedPrefix: p.sharedPrefix });
    return { text, stats: handle.stats };
  } finally {
    await handle.dispose();
  }
}

function emptyCache(): string {
  for (const name of readdirSync(DIR)) rmSync(join(DIR, name), { recursive: true, force: true });
  return DIR;
}

const entries = (dir: string) => readdirSync(dir).filter((name) => name.endsWith(".json"));
const states = (dir: string) => readdirSync(dir).filter((name) => name.endsWith(".state"));

describe("the prompt cache", () => {
  it("a later process restores the shared opening instead of prefilling it, and answers exactly as without the cache", async () => {
    const dir = emptyCache();
    const first = prompt(SYSTEM, "What is 17% of 2,340?");
    const cold = await run(first);
    expect(cold.stats.restoredPromptTokens).toBe(0);
    expect(entries(dir)).toHaveLength(1);
    expect(cold.text).toBe(await expected(first));

    const second = prompt(SYSTEM, "Convert 72 km to miles.");
    const warm = await run(second);
    expect(warm.stats.restoredPromptTokens).toBeGreaterThan(80);
    expect(warm.stats.evaluatedPromptTokens).toBe(warm.stats.promptTokens - warm.stats.restoredPromptTokens!);
    expect(warm.text).toBe(await expected(second));
    expect(entries(dir)).toHaveLength(1);
  }, 120_000);

  it("never matches a different prompt, model file or context size", async () => {
    emptyCache();
    await run(prompt(SYSTEM, "first"));
    const other = prompt(OTHER_SYSTEM, "second");
    const otherRun = await run(other);
    expect(otherRun.stats.restoredPromptTokens).toBe(0);
    expect(otherRun.text).toBe(await expected(other));
    // and the first prompt's opening still matches its own entry
    expect((await run(prompt(SYSTEM, "sixth"))).stats.restoredPromptTokens).toBeGreaterThan(0);

    // the same bytes under another name, then the same file touched: each its own entry
    const copy = join(mkdtempSync(join(tmpdir(), "model-copy-")), "tiny.gguf");
    copyFileSync(fixtureModelPath(), copy);
    expect((await runLoaded(prompt(SYSTEM, "third"), { model: copy })).stats.restoredPromptTokens).toBe(0);
    utimesSync(copy, new Date(), new Date(Date.now() + 60_000));
    expect((await runLoaded(prompt(SYSTEM, "fourth"), { model: copy })).stats.restoredPromptTokens).toBe(0);
    expect((await runLoaded(prompt(SYSTEM, "fifth"), { contextSize: 2048 })).stats.restoredPromptTokens).toBe(0);
  }, 300_000);

  it("a damaged, truncated or foreign state is deleted and the prompt prefilled, with the right answer", async () => {
    for (const damage of ["flip", "truncate", "record"] as const) {
      const dir = emptyCache();
      await run(prompt(SYSTEM, "seed the cache"));
      const [state] = states(dir);
      const path = join(dir, state);
      if (damage === "flip") {
        const bytes = readFileSync(path);
        bytes[Math.floor(bytes.length / 2)] ^= 0xff;
        writeFileSync(path, bytes);
      } else if (damage === "truncate") truncateSync(path, 100);
      else {
        const record = join(dir, entries(dir)[0]);
        writeFileSync(record, JSON.stringify({ ...JSON.parse(readFileSync(record, "utf8")), tokens: 3 }));
      }
      const p = prompt(SYSTEM, "What is 2+2?");
      const after = await run(p);
      expect(after.stats.restoredPromptTokens, damage).toBe(0);
      expect(after.text, damage).toBe(await expected(p));
      // the damaged entry went; the prefill saved a good one in its place, which the next process restores
      expect(entries(dir), damage).toHaveLength(1);
      expect((await run(prompt(SYSTEM, "again"))).stats.restoredPromptTokens, damage).toBeGreaterThan(0);
    }
  }, 300_000);

  it("keeps at most maxEntries, the least recently used going first", async () => {
    const dir = emptyCache();
    const systems = ["alpha", "beta", "gamma", "delta"].map((name) => `${SYSTEM}\nYou are agent ${name}.`);
    for (const system of systems.slice(0, 3)) await run(prompt(system, "hi"));
    expect((await run(prompt(systems[0], "hi again"))).stats.restoredPromptTokens).toBeGreaterThan(0);
    await run(prompt(systems[3], "hi")); // a fourth: beta, used longest ago, goes
    expect(entries(dir)).toHaveLength(3);
    expect(states(dir)).toHaveLength(3);
    expect((await run(prompt(systems[0], "and again"))).stats.restoredPromptTokens).toBeGreaterThan(0);
    expect((await run(prompt(systems[1], "and again"))).stats.restoredPromptTokens).toBe(0);
  }, 300_000);
});
