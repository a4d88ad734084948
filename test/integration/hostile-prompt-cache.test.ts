/**
 * The prompt cache against a hostile or broken folder (issue 29), on the fixture model through real llama.cpp: foreign
 * files (named like entries or not) are never deleted, a read-only folder, a folder or FIFO where an entry should be,
 * crafted states (with a recomputed sha256, even re-signed with the user's own key) never fail a run nor reach
 * llama.cpp unchecked. Every run must answer exactly as a handle without the cache. Prints its probes (tried, held).
 */
import { createHash, createHmac } from "node:crypto";
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlamaModelHandle } from "../../src/model/llama/index.js";
import { benchAccess } from "../../src/model/llama/bench-access.js";
import { gemma3ChatFormat } from "../../src/prompt/chat-format.js";
import { sharedOpeningLength } from "../../src/prompt/shared-opening.js";
import { fixtureModelPath, loadFixtureModel } from "../helpers/fixture-model.js";
import { CLI } from "../helpers/hostile-cli.js";

const SYSTEM = `You are a careful assistant running on the user's own computer.\n${"Use the calculator for arithmetic. ".repeat(12)}`;
const MAX_TOKENS = 6;
const root = mkdtempSync(join(tmpdir(), "ga-hostile-cache-"));
const probes = { tried: 0, failed: [] as string[] };
const mounts: string[] = [];

function prompt(system: string, question: string) {
  const text = gemma3ChatFormat.render([
    { role: "system", content: system },
    { role: "user", content: question },
  ]);
  return { text, sharedPrefix: sharedOpeningLength(gemma3ChatFormat, system) };
}

let reference: LlamaModelHandle;
beforeAll(async () => {
  reference = await loadFixtureModel({ seed: 3 });
}, 120_000);
afterAll(async () => {
  await reference?.dispose();
  for (const mount of mounts) execFileSync("umount", [mount], { stdio: "ignore" });
  rmSync(root, { recursive: true, force: true });
  console.log(
    `hostile prompt cache: ${probes.tried} probes, ${probes.tried - probes.failed.length} held${probes.failed.length ? `; failed: ${probes.failed.join(" | ")}` : ""}`,
  );
});

async function expected(p: { text: string }): Promise<string> {
  await benchAccess(reference).llamaObjects.sequence.clearHistory();
  return reference.generate(p.text, { maxTokens: MAX_TOKENS });
}

/**
 * A handle whose cache is `dir` (loaded once: loads are the slow part). Each `ask` starts from an empty sequence, as
 * a new process does, and must answer exactly as a handle without the cache; failures and warnings are collected.
 */
async function cachedHandle(dir: string) {
  const warnings: string[] = [];
  const failures: string[] = [];
  const handle = await loadFixtureModel({
    seed: 3,
    promptCache: { dir, maxEntries: 3, onWarning: (m) => warnings.push(m) },
  });
  const ask = async (question: string, system = SYSTEM): Promise<number> => {
    const p = prompt(system, question);
    await benchAccess(handle).llamaObjects.sequence.clearHistory();
    try {
      const text = await handle.generate(p.text, { maxTokens: MAX_TOKENS, sharedPrefix: p.sharedPrefix });
      if (text !== (await expected(p))) failures.push(`answered ${JSON.stringify(text)}, not as without the cache`);
    } catch (error) {
      failures.push(`generate threw ${(error as Error).message}`);
    }
    return handle.stats.restoredPromptTokens ?? 0;
  };
  return { ask, warnings, failures, dispose: () => handle.dispose() };
}

/** The folder's files and their sha256 (a FIFO or folder by its kind). */
function snapshot(dir: string, keep: (name: string) => boolean): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(dir).filter(keep)) {
    const info = statSync(join(dir, name));
    files.set(
      name,
      info.isFile()
        ? createHash("sha256")
            .update(readFileSync(join(dir, name)))
            .digest("hex")
        : info.isFIFO()
          ? "fifo"
          : "dir",
    );
  }
  return files;
}

function record(name: string, failures: string[]): void {
  probes.tried++;
  if (failures.length) probes.failed.push(`${name}: ${failures.join("; ")}`);
}

const HEX40 = (n: number) => createHash("sha1").update(String(n)).digest("hex");

describe("the prompt cache in a hostile folder (issue 29)", () => {
  it("never deletes a file it did not write, named like its entries or not", async () => {
    const dir = join(root, "foreign");
    mkdirSync(dir);
    for (let i = 0; i < 60; i++) writeFileSync(join(dir, `photo-${i}.jpg`), `photo ${i}`);
    writeFileSync(join(dir, "notes.json"), '{"lastUsed":0,"bytes":1}');
    writeFileSync(join(dir, "notes.state"), "state");
    writeFileSync(join(dir, "backup.tmp"), "backup");
    for (let i = 0; i < 4; i++) {
      writeFileSync(
        join(dir, `${HEX40(i)}.json`),
        JSON.stringify({ version: 1, tokens: 1, bytes: 1, sha256: "x", lastUsed: 0 }),
      );
      writeFileSync(join(dir, `${HEX40(i)}.state`), "not a state");
    }
    writeFileSync(join(dir, `${HEX40(9)}.state.1.abcdef01.tmp`), "looks like a leftover");
    // the cache's own temp folder, holding a write killed mid-way (a process that is gone) and a file of no write
    const temp = join(dir, "gemma-agent-prompt-cache.tmp");
    mkdirSync(temp, { mode: 0o700 });
    const deadPid = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" }).stdout.trim();
    const leftover = join(temp, `${HEX40(7)}.state.${deadPid}.0badc0de.tmp`);
    writeFileSync(leftover, "half a state");
    writeFileSync(join(temp, "notes.txt"), "not a temporary file of the cache");
    const foreign = (name: string) => !name.startsWith("gemma-agent-prompt-cache");
    const before = snapshot(dir, foreign);
    const systems = ["alpha", "beta", "gamma", "delta", "epsilon"].map((n) => `${SYSTEM}\nYou are agent ${n}.`);
    const cache = await cachedHandle(dir);
    for (const system of systems) for (const question of ["hi", "hi again"]) await cache.ask(question, system);
    await cache.dispose();
    const failures = [...cache.failures];
    const after = snapshot(dir, foreign);
    for (const [name, hash] of before) if (after.get(name) !== hash) failures.push(`${name} deleted or changed`);
    if (existsSync(leftover)) failures.push("a dead write's leftover was kept");
    if (!existsSync(join(temp, "notes.txt")))
      failures.push("a file in the temp folder not named as its own was deleted");
    const ours = [...after.keys()].filter((n) => !before.has(n) && n.endsWith(".json"));
    if (ours.length !== 3) failures.push(`${ours.length} entries kept (maxEntries 3)`);
    record(`${before.size} foreign files, 5 prompts through a 3-entry cache`, failures);
    expect(failures).toEqual([]);
  }, 300_000);

  it("a read-only folder, a folder or a FIFO at an entry's names: the run answers, with one warning at most", async () => {
    const failures: string[] = [];
    // an entry of this prompt, then its state replaced by a folder
    const dirAtState = join(root, "dir-at-state");
    const a = await cachedHandle(dirAtState);
    await a.ask("seed");
    const state = readdirSync(dirAtState).find((n) => n.endsWith(".state"))!;
    rmSync(join(dirAtState, state));
    mkdirSync(join(dirAtState, state));
    writeFileSync(join(dirAtState, state, "inside"), "x");
    await a.ask("one");
    await a.ask("two");
    await a.dispose();
    if (readFileSync(join(dirAtState, state, "inside"), "utf8") !== "x") a.failures.push("the folder was touched");
    record(`a folder at ${state}`, a.failures);
    failures.push(...a.failures);
    // FIFOs named as a record, as an entry's state, and as any *.json
    const fifos = join(root, "fifos");
    const b = await cachedHandle(fifos);
    await b.ask("seed");
    const json = readdirSync(fifos).find((n) => n.endsWith(".json"))!;
    for (const name of [json, "x.json", `${HEX40(5)}.json`]) {
      rmSync(join(fifos, name), { force: true });
      execFileSync("mkfifo", [join(fifos, name)]);
    }
    const started = performance.now();
    await b.ask("one", `${SYSTEM}\nAnother agent.`);
    await b.ask("two", `${SYSTEM}\nAnother agent.`);
    await b.ask("three");
    await b.dispose();
    if (performance.now() - started > 60_000) b.failures.push("took over a minute");
    record("FIFOs as a record and as *.json", b.failures);
    failures.push(...b.failures);
    // a read-only folder holding an entry (root ignores modes: a read-only tmpfs)
    const readOnly = join(root, "ro");
    mkdirSync(readOnly);
    const root0 = process.getuid?.() === 0;
    if (root0) {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", readOnly]);
      mounts.unshift(readOnly);
    }
    const c = await cachedHandle(readOnly);
    await c.ask("seed");
    if (root0) execFileSync("mount", ["-o", "remount,ro", readOnly]);
    else execFileSync("chmod", ["555", readOnly]);
    await c.ask("one", `${SYSTEM}\nA third agent.`);
    await c.ask("two", `${SYSTEM}\nA third agent.`);
    await c.ask("three");
    await c.dispose();
    if (c.warnings.length !== 1) c.failures.push(`${c.warnings.length} warnings`);
    record(`a read-only folder (${c.warnings.length} warning: ${c.warnings[0]?.slice(0, 100)})`, c.failures);
    failures.push(...c.failures);
    // the same folder under the CLI (it held entries; its own are keyed by its context settings): one warning line,
    // no model error, the exit of a run without the cache (the fixture model answers nothing: 1, no answer)
    const cli = spawnSync(
      process.execPath,
      [
        CLI,
        "ask",
        "What is 2+2?",
        "--model",
        fixtureModelPath(),
        "--max-iterations",
        "1",
        "--max-tokens",
        "8",
        "--quiet",
      ],
      { encoding: "utf8", env: { ...process.env, GEMMA_AGENT_PROMPT_CACHE: readOnly }, timeout: 120_000 },
    );
    const e: string[] = [];
    if (cli.status !== 0 && cli.status !== 1) e.push(`exit ${cli.status} (${cli.signal ?? ""})`);
    if (/model error|unexpected error/.test(cli.stderr)) e.push(cli.stderr.slice(0, 200));
    if ((cli.stderr.match(/gemma-agent: warning: prompt cache/g) ?? []).length !== 1)
      e.push(`warnings: ${cli.stderr.slice(0, 300)}`);
    record("a read-only folder under the CLI", e);
    failures.push(...e);
    expect(failures).toEqual([]);
  }, 300_000);

  // Not probed: half a state re-signed with the user's own key (only the user or root can read it): llama.cpp's state
  // format past its header (token ids) is not checked, and such a state would still abort the process.
  it("a crafted state never reaches llama.cpp: half its length or a token id of 2^31-1 with a recomputed sha256, the token even re-signed with the user's key", async () => {
    const dir = join(root, "craft");
    const cache = await cachedHandle(dir);
    await cache.ask("seed");
    for (const craft of ["half", "token", "token-signed"] as const) {
      const before = cache.failures.length;
      const name = readdirSync(dir).find((n) => n.endsWith(".json"))!;
      const statePath = join(dir, name.replace(/\.json$/, ".state"));
      let bytes = readFileSync(statePath);
      bytes = craft.startsWith("half") ? bytes.subarray(0, Math.floor(bytes.length / 2)) : Buffer.from(bytes);
      if (craft.startsWith("token")) bytes.writeUInt32LE(2 ** 31 - 1, 12 + 4 * 5);
      writeFileSync(statePath, bytes);
      const rec = JSON.parse(readFileSync(join(dir, name), "utf8"));
      rec.bytes = bytes.length;
      rec.sha256 = createHash("sha256").update(bytes).digest("hex");
      if (craft.endsWith("signed")) {
        const key = readFileSync(join(dir, "gemma-agent-prompt-cache.key"));
        rec.mac = createHmac("sha256", key)
          .update(`${name}\u0000${rec.tokens}\u0000${rec.bytes}\u0000${rec.sha256}`)
          .digest("hex");
      }
      writeFileSync(join(dir, name), JSON.stringify(rec));
      const restored = await cache.ask("one");
      if (restored !== 0) cache.failures.push(`restored ${restored} tokens from the crafted state`);
      // the crafted entry went; the prefill saved a good one, which the next run restores
      if (!((await cache.ask("two")) > 0)) cache.failures.push("the cache did not recover");
      record(`crafted state: ${craft}`, cache.failures.slice(before));
    }
    await cache.dispose();
    const failures = cache.failures;
    expect(failures).toEqual([]);
  }, 300_000);
});
