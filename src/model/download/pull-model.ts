import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { PART_SUFFIX, stallTimeoutFromEnv } from "../defaults.js";
import { modelsDir } from "../models-dir.js";
import { removePartLeftovers, withDiskError } from "./part-file.js";
import type { PullOptions, PullResult } from "./pull-options.js";
import { resolvePullSource } from "./pull-source.js";
import { throwIfAborted, Transfer } from "./transfer.js";

export type { PullPhase, PullProgress, PullProgressListener } from "./download-progress.js";
export type { PullOptions, PullResult } from "./pull-options.js";

/**
 * Downloads a model into the models directory: `source` is a catalog alias (`gemma-4-e2b`, `gemma-4-e2b:Q8_0`), an
 * `hf:owner/repo/file.gguf` URI, or an http(s) URL.
 *
 * Bytes go to `<file>.gguf.part`; a `.part` left by an interrupted pull is resumed with an HTTP Range request (a server
 * that ignores Range gets a fresh start). The file gets its final name (an atomic rename) only after its size matches
 * what the server announced, the exact `expectedBytes` and, roughly, the catalog's size; its sha256 matches when one is
 * known; and it starts with the GGUF magic. Nothing is ever downloaded except by calling this.
 *
 * While it waits (for the server's answer, or for the next byte) it reports progress every second with the phase and
 * how long it has waited, and gives up after `stallTimeoutMs` of silence. Failures say in words what happened and
 * what to do.
 *
 * Rejects with `DownloadError`: `bad_source` (unknown alias, bad URI, not a GGUF, a bad timeout setting),
 * `http_error`, `network` (the `.part` is kept: pull again to resume), `size_mismatch`, `hash_mismatch`, `aborted`
 * (`.part` kept), `disk`.
 */
export async function pullModel(source: string, options: PullOptions = {}): Promise<PullResult> {
  throwIfAborted(options.signal);
  const pull = resolvePullSource(source, { catalog: options.catalog, fileName: options.fileName, env: options.env });
  const stallTimeoutMs = options.stallTimeoutMs ?? stallTimeoutFromEnv(options.env ?? process.env);
  const dir = options.modelsDir ?? modelsDir(options.env);
  const path = join(dir, pull.fileName);
  await withDiskError(`create the models directory ${dir}`, () => mkdir(dir, { recursive: true }));

  const existing = await stat(path).catch(() => undefined);
  if (existing?.isFile() && !options.force) {
    // best effort: a folder that cannot be written still holds its model
    await removePartLeftovers(path + PART_SUFFIX).catch(() => undefined);
    return { path, bytes: existing.size, resumed: false, alreadyPresent: true, url: pull.url };
  }
  return new Transfer(pull, path, { ...options, stallTimeoutMs }).run();
}
