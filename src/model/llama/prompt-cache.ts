import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { lstat, mkdir, mkdtemp, open, readdir, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { LlamaContextSequence, Token } from "node-llama-cpp";
import { DEFAULT_PROMPT_CACHE_MAX_BYTES, DEFAULT_PROMPT_CACHE_MAX_ENTRIES } from "./defaults.js";
import {
  cacheKey,
  copyCheckedState,
  ENTRY_NAME,
  entryPaths,
  fileSha256,
  KEY_FILE,
  ownRecord,
  signedRecord,
  tempFolder,
  tempName,
  type EntryPaths,
  type EntryRecord,
} from "./prompt-cache-entry.js";

/** Bumped when what a state file means changes: older entries then never match. */
export const PROMPT_CACHE_FORMAT = 1;

/** Where and how much a {@link PromptCache} keeps. */
export interface PromptCacheOptions {
  /** The folder. Default: env `GEMMA_AGENT_PROMPT_CACHE`, else `~/.cache/gemma-agent/prompt-cache`. */
  dir?: string;
  /** Bytes of state files kept at most (least recently used go first). Default DEFAULT_PROMPT_CACHE_MAX_BYTES. */
  maxBytes?: number;
  /** Entries kept at most. Default DEFAULT_PROMPT_CACHE_MAX_ENTRIES. */
  maxEntries?: number;
  /**
   * Told once when an error of the folder turns the cache off (the run goes on without it). Default: a process
   * warning (`process.emitWarning`, type PromptCacheWarning); the CLI prints it as a `gemma-agent: warning:` line.
   */
  onWarning?: (message: string) => void;
}

/** What makes two saved states interchangeable: the model file, the context's settings, the runtime. */
export interface PromptCacheIdentity {
  modelPath: string;
  contextSize: number;
  /** Anything else the state depends on (backend, node-llama-cpp version, batch size, ...). */
  settings: Record<string, unknown>;
}

/** The default folder: env `GEMMA_AGENT_PROMPT_CACHE`, else `~/.cache/gemma-agent/prompt-cache`. */
function defaultPromptCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.GEMMA_AGENT_PROMPT_CACHE || join(homedir(), ".cache", "gemma-agent", "prompt-cache");
}

/** sha256 of the model file's identity: its real path, size, modification time and first 1 MiB (its GGUF header). */
async function modelFingerprint(path: string): Promise<string> {
  const real = await realpath(path);
  const info = await stat(real);
  const handle = await open(real, "r");
  try {
    const head = Buffer.alloc(Math.min(info.size, 1 << 20));
    await handle.read(head, 0, head.length, 0);
    return createHash("sha256")
      .update(`${real}\u0000${info.size}\u0000${info.mtimeMs}\u0000`)
      .update(head)
      .digest("hex");
  } finally {
    await handle.close();
  }
}

/**
 * A prompt cache across runs: the KV state of a prompt's shared opening (the system prompt, every skill's schema, the
 * action format) saved per model file, context settings and token sequence, and restored by the next process whose
 * prompt opens the same way, instead of prefilling it again (node-llama-cpp's sequence state files).
 *
 * - A state is written to a temporary file (in the cache's own 0700 folder, where a killed write's leftover is removed
 *   once its process is gone), its record (tokens, size, sha256, signed with a key only this user can
 *   read) written beside it, and then the state renamed into place. A state loads only when its record is one this cache
 *   signed, and its bytes (copied to a private folder as they are checked, so nothing can swap them before llama.cpp
 *   reads them) have the record's size and sha256 and hold exactly the prompt's tokens: llama.cpp trusts state files,
 *   and a crafted one can abort the process. A state that fails is deleted with its record, and the prompt prefilled.
 * - It deletes only what it wrote: files named as its entries (`<40 hex>.state|.json`) whose record it signed. Other
 *   files in its folder are never touched, whatever their names.
 * - Bounded: past `maxBytes` or `maxEntries`, the least recently used entries are deleted.
 * - Never fails a run: any error of the folder (read-only, full, a FIFO or folder where an entry should be) turns the
 *   cache off for the rest of the process with one warning (`onWarning`); the prompt is prefilled.
 * - Entries are keyed by a hash of the model file's identity, the settings and the exact tokens, so a different
 *   prompt, model file or context never matches.
 */
export class PromptCache {
  readonly dir: string;
  readonly #maxBytes: number;
  readonly #maxEntries: number;
  readonly #identity: Promise<string>;
  readonly #onWarning: (message: string) => void;
  #key: Buffer | undefined;
  #off = false;

  constructor(identity: PromptCacheIdentity, options: PromptCacheOptions = {}) {
    this.dir = options.dir ?? defaultPromptCacheDir();
    this.#maxBytes = options.maxBytes ?? DEFAULT_PROMPT_CACHE_MAX_BYTES;
    this.#maxEntries = options.maxEntries ?? DEFAULT_PROMPT_CACHE_MAX_ENTRIES;
    this.#onWarning = options.onWarning ?? ((message) => process.emitWarning(message, "PromptCacheWarning"));
    this.#identity = modelFingerprint(identity.modelPath).then((model) =>
      createHash("sha256")
        .update(JSON.stringify({ model, contextSize: identity.contextSize, settings: identity.settings }))
        .digest("hex"),
    );
    this.#identity.catch(() => undefined); // a missing file shows up as a miss, not as an unhandled rejection
  }

  /** Whether the cache was turned off by an error of its folder (it then neither restores nor saves). */
  get off(): boolean {
    return this.#off;
  }

  /** Turn the cache off for this process, with one warning saying why. */
  #fail(what: string, error: unknown): void {
    if (this.#off) return;
    this.#off = true;
    this.#onWarning(
      `prompt cache ${this.dir}: ${what} failed (${(error as Error).message}); the cache is off until the process ends (prompts are prefilled)`,
    );
  }

  async #paths(tokens: readonly Token[]): Promise<EntryPaths> {
    const key = createHash("sha256")
      .update(await this.#identity)
      .update(Buffer.from(Uint32Array.from(tokens).buffer))
      .digest("hex")
      .slice(0, 40);
    return entryPaths(this.dir, key);
  }

  /** The signing key, read or made once (the folder made first when `create`); undefined when there is none yet. */
  async #signingKey(create: boolean): Promise<Buffer | undefined> {
    if (this.#key) return this.#key;
    if (!create && !existsSync(join(this.dir, KEY_FILE))) return undefined;
    if (create) await mkdir(this.dir, { recursive: true });
    this.#key = cacheKey(this.dir);
    return this.#key;
  }

  /**
   * Make `sequence` hold exactly `tokens` from a saved state. Returns false (the sequence then holds nothing) when
   * there is none, it is damaged (then it is deleted), or the cache is off.
   */
  async restore(sequence: LlamaContextSequence, tokens: readonly Token[]): Promise<boolean> {
    if (this.#off) return false;
    let paths: EntryPaths;
    let found: ReturnType<typeof ownRecord>;
    try {
      const key = await this.#signingKey(false);
      if (!key) return false;
      paths = await this.#paths(tokens);
      found = ownRecord(paths.record, `${paths.key}.json`, key);
    } catch (error) {
      this.#fail("reading an entry", error);
      return false;
    }
    if (!found) return false;
    if (!found.trusted || found.record.tokens !== tokens.length) {
      await this.#remove(paths);
      return false;
    }
    const loaded = await this.#load(sequence, paths, found.record, tokens);
    if (loaded) await this.#touch(paths, found.record);
    return loaded;
  }

  /** Load a recorded state through a checked private copy; a bad one is deleted (it is this cache's). */
  async #load(sequence: LlamaContextSequence, paths: EntryPaths, record: EntryRecord, tokens: readonly Token[]) {
    const scratch = await mkdtemp(join(tmpdir(), "gemma-agent-state-")).catch(() => undefined);
    if (!scratch) return false;
    try {
      const copy = join(scratch, "state");
      copyCheckedState(paths.state, copy, record, tokens);
      await sequence.loadStateFromFile(copy, { acceptRisk: true });
      const held = sequence.contextTokens;
      if (held.length !== tokens.length || held.some((token, i) => token !== tokens[i]))
        throw new Error("state holds other tokens");
      return true;
    } catch {
      await sequence.clearHistory().catch(() => undefined);
      await this.#remove(paths);
      return false;
    } finally {
      await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /** Mark an entry used now (its record rewritten, signed as before). */
  async #touch(paths: EntryPaths, record: EntryRecord): Promise<void> {
    try {
      await this.#writeRecord(paths.record, { ...record, lastUsed: Date.now() });
    } catch (error) {
      this.#fail("marking an entry used", error);
    }
  }

  /** Save what `sequence` holds (exactly `tokens`), then keep the cache within its bounds. Never throws. */
  async save(sequence: LlamaContextSequence, tokens: readonly Token[]): Promise<void> {
    if (this.#off) return;
    let temp: string | undefined;
    try {
      const key = (await this.#signingKey(true))!;
      const paths = await this.#paths(tokens);
      // an entry's name held by something this cache did not write (a folder, a FIFO, a foreign file) stays as it is
      if (existsSync(paths.state) && !ownRecord(paths.record, `${paths.key}.json`, key))
        throw new Error(`${paths.state} is there and is not this cache's`);
      temp = tempName(tempFolder(this.dir), `${paths.key}.state`);
      await sequence.saveStateToFile(temp);
      const { sha256, bytes } = fileSha256(temp);
      // the record first: a crash between the two leaves a record whose state does not check (deleted on use), never
      // a state without its record (which nothing could tell from a foreign file)
      await this.#writeRecord(
        paths.record,
        signedRecord(key, `${paths.key}.json`, { tokens: tokens.length, bytes, sha256 }),
      );
      await rename(temp, paths.state);
      temp = undefined;
      await this.#evict(key);
    } catch (error) {
      this.#fail("saving an entry", error);
    } finally {
      if (temp) await rm(temp, { force: true }).catch(() => undefined);
    }
  }

  async #writeRecord(path: string, record: EntryRecord): Promise<void> {
    const temp = tempName(tempFolder(this.dir), basename(path));
    try {
      await writeFile(temp, JSON.stringify(record), { flag: "wx" });
      await rename(temp, path);
    } finally {
      await rm(temp, { force: true }).catch(() => undefined);
    }
  }

  /** Delete an entry of this cache: its record, then its state when that is a file. Failures turn the cache off. */
  async #remove(paths: EntryPaths): Promise<void> {
    try {
      await rm(paths.record, { force: true });
      if ((await lstat(paths.state).catch(() => undefined))?.isFile()) await rm(paths.state, { force: true });
    } catch (error) {
      this.#fail("deleting an entry", error);
    }
  }

  /** Delete this cache's least recently used entries past the bounds; nothing else in the folder is looked at twice. */
  async #evict(key: Buffer): Promise<void> {
    const entries: { paths: EntryPaths; record: EntryRecord }[] = [];
    for (const name of await readdir(this.dir)) {
      const match = ENTRY_NAME.exec(name);
      if (!match || match[2] !== "json") continue;
      const found = ownRecord(join(this.dir, name), name, key);
      if (found) entries.push({ paths: entryPaths(this.dir, match[1]), record: found.record });
    }
    entries.sort((a, b) => b.record.lastUsed - a.record.lastUsed);
    let bytes = 0;
    for (const [i, entry] of entries.entries()) {
      bytes += entry.record.bytes;
      if (i >= this.#maxEntries || bytes > this.#maxBytes) await this.#remove(entry.paths);
    }
  }
}
