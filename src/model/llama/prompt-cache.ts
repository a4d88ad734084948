import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, readdir, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { LlamaContextSequence, Token } from "node-llama-cpp";
import {
  DEFAULT_PROMPT_CACHE_MAX_BYTES,
  DEFAULT_PROMPT_CACHE_MAX_ENTRIES,
  PROMPT_CACHE_ORPHAN_AGE_MS,
} from "./defaults.js";

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
}

/** What a state file is: written beside it last, so a state without its record (a crash mid-write) is never used. */
interface EntryRecord {
  version: 1;
  tokens: number;
  bytes: number;
  sha256: string;
  lastUsed: number;
}

/** What makes two saved states interchangeable: the model file, the context's settings, the runtime. */
export interface PromptCacheIdentity {
  modelPath: string;
  contextSize: number;
  /** Anything else the state depends on (backend, node-llama-cpp version, batch size, ...). */
  settings: Record<string, unknown>;
}

/** The default folder: env `GEMMA_AGENT_PROMPT_CACHE`, else `~/.cache/gemma-agent/prompt-cache`. */
export function defaultPromptCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.GEMMA_AGENT_PROMPT_CACHE || join(homedir(), ".cache", "gemma-agent", "prompt-cache");
}

async function fileSha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
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
 * - A state is written to a temporary file, renamed into place, and then its record (tokens, size, sha256) is written
 *   the same way; a state loads only when its record is there and its bytes hash to the record's sha256, so a crash
 *   mid-write or a damaged file is never handed to llama.cpp (which trusts state files). A state that fails to load is
 *   deleted, and the prompt is prefilled.
 * - Bounded: past `maxBytes` or `maxEntries`, the least recently used entries are deleted.
 * - Entries are keyed by a hash of the model file's identity, the settings and the exact tokens, so a different
 *   prompt, model file or context never matches.
 */
export class PromptCache {
  readonly dir: string;
  readonly #maxBytes: number;
  readonly #maxEntries: number;
  readonly #identity: Promise<string>;

  constructor(identity: PromptCacheIdentity, options: PromptCacheOptions = {}) {
    this.dir = options.dir ?? defaultPromptCacheDir();
    this.#maxBytes = options.maxBytes ?? DEFAULT_PROMPT_CACHE_MAX_BYTES;
    this.#maxEntries = options.maxEntries ?? DEFAULT_PROMPT_CACHE_MAX_ENTRIES;
    this.#identity = modelFingerprint(identity.modelPath).then((model) =>
      createHash("sha256")
        .update(JSON.stringify({ model, contextSize: identity.contextSize, settings: identity.settings }))
        .digest("hex"),
    );
    this.#identity.catch(() => undefined); // a missing file shows up as a miss, not as an unhandled rejection
  }

  async #paths(tokens: readonly Token[]): Promise<{ state: string; record: string }> {
    const key = createHash("sha256")
      .update(await this.#identity)
      .update(Buffer.from(Uint32Array.from(tokens).buffer))
      .digest("hex")
      .slice(0, 40);
    return { state: join(this.dir, `${key}.state`), record: join(this.dir, `${key}.json`) };
  }

  /**
   * Make `sequence` hold exactly `tokens` from a saved state. Returns false (the sequence then holds nothing) when
   * there is none, or it is damaged (then it is deleted).
   */
  async restore(sequence: LlamaContextSequence, tokens: readonly Token[]): Promise<boolean> {
    let paths: { state: string; record: string };
    let record: EntryRecord;
    try {
      paths = await this.#paths(tokens);
      record = JSON.parse(await readFile(paths.record, "utf8")) as EntryRecord;
    } catch {
      return false;
    }
    try {
      if (record.version !== 1 || record.tokens !== tokens.length) throw new Error("record mismatch");
      if ((await stat(paths.state)).size !== record.bytes || (await fileSha256(paths.state)) !== record.sha256)
        throw new Error("state file damaged");
      await sequence.loadStateFromFile(paths.state, { acceptRisk: true });
      const held = sequence.contextTokens;
      if (held.length !== tokens.length || held.some((token, i) => token !== tokens[i]))
        throw new Error("state holds other tokens");
      await this.#writeRecord(paths.record, { ...record, lastUsed: Date.now() });
      return true;
    } catch {
      await sequence.clearHistory();
      await this.#remove(paths);
      return false;
    }
  }

  /** Save what `sequence` holds (exactly `tokens`), then keep the cache within its bounds. Failures are ignored. */
  async save(sequence: LlamaContextSequence, tokens: readonly Token[]): Promise<void> {
    try {
      await mkdir(this.dir, { recursive: true });
      const paths = await this.#paths(tokens);
      const temp = `${paths.state}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
      try {
        const { fileSize } = await sequence.saveStateToFile(temp);
        const sha256 = await fileSha256(temp);
        await rename(temp, paths.state);
        await this.#writeRecord(paths.record, {
          version: 1,
          tokens: tokens.length,
          bytes: fileSize,
          sha256,
          lastUsed: Date.now(),
        });
      } finally {
        await rm(temp, { force: true });
      }
      await this.#evict();
    } catch {
      // a full disk or a read-only cache folder costs the next run a prefill, nothing more
    }
  }

  async #writeRecord(path: string, record: EntryRecord): Promise<void> {
    const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    await writeFile(temp, JSON.stringify(record));
    await rename(temp, path);
  }

  async #remove(paths: { state: string; record: string }): Promise<void> {
    await rm(paths.record, { force: true });
    await rm(paths.state, { force: true });
  }

  /** Delete least recently used entries past the bounds, and leftovers of writes that never finished. */
  async #evict(): Promise<void> {
    const names = await readdir(this.dir);
    for (const name of names) {
      const orphan =
        name.endsWith(".tmp") || (name.endsWith(".state") && !names.includes(name.replace(/\.state$/, ".json")));
      if (!orphan) continue;
      const path = join(this.dir, name);
      // another process may be between its two renames: leave young files alone
      const age = Date.now() - (await stat(path).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
      if (age > PROMPT_CACHE_ORPHAN_AGE_MS) await rm(path, { force: true });
    }
    const entries: { paths: { state: string; record: string }; record: EntryRecord }[] = [];
    for (const name of names.filter((n) => n.endsWith(".json"))) {
      const record = join(this.dir, name);
      const paths = { record, state: record.replace(/\.json$/, ".state") };
      try {
        entries.push({ paths, record: JSON.parse(await readFile(record, "utf8")) as EntryRecord });
      } catch {
        await this.#remove(paths);
      }
    }
    entries.sort((a, b) => b.record.lastUsed - a.record.lastUsed);
    let bytes = 0;
    for (const [i, entry] of entries.entries()) {
      bytes += entry.record.bytes;
      if (i >= this.#maxEntries || bytes > this.#maxBytes) await this.#remove(entry.paths);
    }
  }
}
