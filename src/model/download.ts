import { createHash, type Hash } from "node:crypto";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Catalog } from "./catalog.js";
import { CATALOG_SIZE_TOLERANCE, DOWNLOAD_STALL_TIMEOUT_MS, PART_SUFFIX } from "./constants.js";
import { ProgressMeter, type PullProgressListener } from "./download-progress.js";
import { DownloadError } from "./errors.js";
import { isGgufMagic } from "./gguf-header.js";
import { modelsDir } from "./models-dir.js";
import { disk, hashFile, startsWithGguf, write } from "./part-file.js";
import { resolvePullSource, type PullSource } from "./pull-source.js";

export type { PullProgress, PullProgressListener } from "./download-progress.js";

/** Options of {@link pullModel}. */
export interface PullOptions {
  /** Where the file goes. Default: {@link modelsDir} (env `GEMMA_AGENT_MODELS`, else `~/.cache/gemma-agent/models`). */
  modelsDir?: string;
  /** Aborting stops the transfer and keeps the `.part`, so the next pull resumes; rejects with code `aborted`. */
  signal?: AbortSignal;
  /** Called at most every 200 ms while bytes arrive, and once when the transfer ends. */
  onProgress?: PullProgressListener;
  /** Default: the global `fetch` (Node's). Tests and proxies may pass another. */
  fetchImpl?: typeof fetch;
  /** Default: the catalog that ships. */
  catalog?: Catalog;
  /** Name for the file in the models directory. Default: the source's own file name. */
  fileName?: string;
  /** Exact size the file must have (refused otherwise). Default: none beyond the server's and the catalog's. */
  expectedBytes?: number;
  /** Lower-case hex sha256 the file must have. Default: the catalog file's `sha256`, when it has one. */
  sha256?: string;
  /** Download again even when the file is already there. Default: false (a present file is returned as is). */
  force?: boolean;
  /** Abandon a transfer that receives nothing for this long. Default: 60 s. */
  stallTimeoutMs?: number;
  /** Environment read for `GEMMA_AGENT_HF_ENDPOINT` and `GEMMA_AGENT_MODELS`. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** What a pull did. */
export interface PullResult {
  /** Final path of the model file. */
  path: string;
  /** Its size. */
  bytes: number;
  /** True when this pull continued an interrupted one (HTTP Range) instead of starting over. */
  resumed: boolean;
  /** True when the file was already there and nothing was downloaded. */
  alreadyPresent: boolean;
  /** sha256 of the file, when this pull downloaded it. */
  sha256?: string;
  /** Where the bytes came from. */
  url: string;
}

/**
 * Downloads a model into the models directory: `source` is a catalog alias (`gemma-4-e2b`, `gemma-4-e2b:Q8_0`), an
 * `hf:owner/repo/file.gguf` URI, or an http(s) URL.
 *
 * Bytes go to `<file>.gguf.part`; a `.part` left by an interrupted pull is resumed with an HTTP Range request (a server
 * that ignores Range gets a fresh start). The file gets its final name (an atomic rename) only after its size matches
 * what the server announced, the exact `expectedBytes` and, roughly, the catalog's size; its sha256 matches when one is
 * known; and it starts with the GGUF magic. Nothing is ever downloaded except by calling this.
 *
 * Rejects with `DownloadError`: `bad_source` (unknown alias, bad URI, not a GGUF), `http_error`, `network` (the `.part`
 * is kept: pull again to resume), `size_mismatch`, `hash_mismatch`, `aborted` (`.part` kept), `disk`.
 */
export async function pullModel(source: string, options: PullOptions = {}): Promise<PullResult> {
  throwIfAborted(options.signal);
  const pull = resolvePullSource(source, { catalog: options.catalog, fileName: options.fileName, env: options.env });
  const dir = options.modelsDir ?? modelsDir(options.env);
  const path = join(dir, pull.fileName);
  await disk(`create the models directory ${dir}`, () => mkdir(dir, { recursive: true }));

  const existing = await stat(path).catch(() => undefined);
  if (existing?.isFile() && !options.force) {
    return { path, bytes: existing.size, resumed: false, alreadyPresent: true, url: pull.url };
  }
  return new Transfer(pull, path, options).run();
}

/** One pull of one file: the request, the `.part` it writes, and the checks before the rename. */
class Transfer {
  private readonly partPath: string;
  private readonly fetchImpl: typeof fetch;
  private readonly expectedSha256: string | undefined;
  private readonly stall = new AbortController();
  private stallTimer: NodeJS.Timeout | undefined;
  private hash: Hash = createHash("sha256");
  private offset = 0;
  private received = 0;
  private total: number | undefined;
  private resumed = false;

  constructor(
    private readonly pull: PullSource,
    private readonly path: string,
    private readonly options: PullOptions,
  ) {
    this.partPath = path + PART_SUFFIX;
    this.fetchImpl = options.fetchImpl ?? fetch;
    this.expectedSha256 = (options.sha256 ?? pull.file?.sha256)?.toLowerCase();
  }

  async run(): Promise<PullResult> {
    await this.preparePart();
    let response = await this.request(this.offset);
    if (this.offset > 0) response = await this.reconcileResume(response);
    if (response.status !== 416 || this.offset === 0) {
      this.acceptResponse(response);
      await this.receive(response);
    }
    await this.verify();
    await disk(`rename ${this.partPath} to ${this.path}`, () => rename(this.partPath, this.path));
    return {
      path: this.path,
      bytes: this.received,
      resumed: this.resumed,
      alreadyPresent: false,
      sha256: this.hash.digest("hex"),
      url: this.pull.url,
    };
  }

  /** Keeps a usable `.part` (starts like a GGUF, not larger than expected) and hashes what it holds. */
  private async preparePart(): Promise<void> {
    const size = (await stat(this.partPath).catch(() => undefined))?.size ?? 0;
    if (size === 0) return;
    const tooLarge = this.options.expectedBytes !== undefined && size > this.options.expectedBytes;
    if (size < 4 || tooLarge || !(await startsWithGguf(this.partPath))) {
      await rm(this.partPath, { force: true });
      return;
    }
    await hashFile(this.hash, this.partPath);
    this.offset = this.received = size;
  }

  private async request(offset: number): Promise<Response> {
    throwIfAborted(this.options.signal);
    const headers: Record<string, string> = { "accept-encoding": "identity" };
    if (offset > 0) headers.range = `bytes=${offset}-`;
    const signal = this.options.signal ? AbortSignal.any([this.options.signal, this.stall.signal]) : this.stall.signal;
    this.armStallTimer();
    try {
      return await this.fetchImpl(this.pull.url, { headers, signal, redirect: "follow" });
    } catch (error) {
      throw this.failure(error, "connect");
    } finally {
      this.clearStallTimer();
    }
  }

  /** Interprets the answer to a Range request: 206 resumes; 200 (Range ignored) starts over; 416 may mean complete. */
  private async reconcileResume(response: Response): Promise<Response> {
    if (response.status === 206) {
      const range = parseContentRange(response.headers.get("content-range"));
      if (range?.start === this.offset) {
        this.resumed = true;
        this.total = range.total;
        return response;
      }
    } else if (response.status === 416) {
      const range = parseContentRange(response.headers.get("content-range"));
      await discard(response);
      if (range?.total === this.offset) {
        this.total = range.total;
        this.resumed = true;
        return response;
      }
    } else if (!response.ok) {
      return response;
    } else if (response.status === 200) {
      this.restart();
      return response;
    }
    await discard(response);
    this.restart();
    return this.request(0);
  }

  private restart(): void {
    this.offset = this.received = 0;
    this.hash = createHash("sha256");
  }

  /** Refuses an error status, or an announced size that cannot be the file. */
  private acceptResponse(response: Response): void {
    if (!response.ok) {
      void discard(response);
      const hint =
        response.status === 404 ? " (no such file: check the alias, URI or URL)"
        : response.status === 401 || response.status === 403 ? " (the repository may be gated or private)"
        : "";
      throw new DownloadError("http_error", `HTTP ${response.status} ${response.statusText} from ${this.pull.url}${hint}`);
    }
    if (response.status === 200) {
      const length = Number(response.headers.get("content-length") ?? NaN);
      const encoded = (response.headers.get("content-encoding") ?? "identity") !== "identity";
      this.total = Number.isSafeInteger(length) && !encoded ? length : undefined;
    }
    const problem = this.total === undefined ? undefined : this.sizeProblem(this.total, "The server announces");
    if (problem !== undefined) {
      void discard(response);
      throw new DownloadError("size_mismatch", problem);
    }
  }

  /** Streams the body into the `.part`, hashing, checking the magic, reporting progress, watching for stalls. */
  private async receive(response: Response): Promise<void> {
    const handle = await disk(`open ${this.partPath}`, () => open(this.partPath, this.offset > 0 ? "a" : "w"));
    const progress = new ProgressMeter(this.options.onProgress, this.received, () => this.total);
    let head = Buffer.alloc(0);
    try {
      this.armStallTimer();
      for await (const chunk of response.body ?? []) {
        this.armStallTimer();
        const bytes = chunk as Uint8Array;
        if (this.received < 4) {
          head = Buffer.concat([head, bytes.subarray(0, 4 - this.received)]);
          if (head.length >= 4 && !isGgufMagic(head)) throw this.notGguf(head);
        }
        await disk(`write ${this.partPath}`, () => write(handle, bytes));
        this.hash.update(bytes);
        this.received += bytes.length;
        if (this.total !== undefined && this.received > this.total) {
          throw new DownloadError("size_mismatch", `${this.pull.url} sent more than the ${this.total} bytes it announced.`);
        }
        progress.report(this.received);
      }
      await disk(`flush ${this.partPath}`, () => handle.datasync());
    } catch (error) {
      await discard(response);
      if (error instanceof DownloadError && (error.code === "bad_source" || error.code === "size_mismatch")) {
        await handle.close().catch(() => undefined);
        await rm(this.partPath, { force: true });
        throw error;
      }
      throw this.failure(error, "transfer");
    } finally {
      this.clearStallTimer();
      progress.stop();
      await handle.close().catch(() => undefined);
    }
    progress.report(this.received, true);
  }

  /** The checks before the rename; a file that fails them is deleted (a short one is kept, to resume). */
  private async verify(): Promise<void> {
    if (this.total !== undefined && this.received < this.total) {
      throw new DownloadError(
        "network",
        `The connection closed after ${this.received} of ${this.total} bytes; run the pull again to resume.`,
      );
    }
    const reject = async (code: "size_mismatch" | "hash_mismatch" | "bad_source", message: string): Promise<never> => {
      await rm(this.partPath, { force: true });
      throw new DownloadError(code, message);
    };
    if (this.received < 4) await reject("bad_source", `${this.pull.url} sent ${this.received} bytes: not a GGUF file.`);
    const problem = this.sizeProblem(this.received, "The download has");
    if (problem !== undefined) await reject("size_mismatch", problem);
    if (this.expectedSha256 !== undefined) {
      const actual = this.hash.copy().digest("hex");
      if (actual !== this.expectedSha256) {
        await reject("hash_mismatch", `${this.pull.fileName} has sha256 ${actual}, expected ${this.expectedSha256}; the file was deleted.`);
      }
    }
  }

  /**
   * What is wrong with a whole-file size (announced by the server, or downloaded) given the exact `expectedBytes`
   * and the catalog's approximate size; `undefined` when nothing is.
   */
  private sizeProblem(bytes: number, what: string): string | undefined {
    const { expectedBytes } = this.options;
    const approx = this.pull.file?.sizeBytes;
    if (expectedBytes !== undefined && bytes !== expectedBytes) {
      return `${what} ${bytes} bytes, expected exactly ${expectedBytes} (${this.pull.url}).`;
    }
    if (approx !== undefined && Math.abs(bytes - approx) > approx * CATALOG_SIZE_TOLERANCE) {
      return `${what} ${bytes} bytes, but the catalog expects about ${approx} for ${this.pull.fileName} (${this.pull.url}).`;
    }
    return undefined;
  }

  private notGguf(head: Buffer): DownloadError {
    const shown = head.toString("latin1").replace(/[^\x20-\x7e]/g, "?");
    return new DownloadError("bad_source", `${this.pull.url} does not serve a GGUF file (it starts with "${shown}").`);
  }

  /** Maps what went wrong during a request or a transfer to an aborted, network or disk error. */
  private failure(error: unknown, stage: "connect" | "transfer"): DownloadError {
    if (error instanceof DownloadError) return error;
    const kept = this.received > 0 ? ` ${this.received} bytes are kept in ${this.partPath}; pull again to resume.` : "";
    if (this.options.signal?.aborted) return new DownloadError("aborted", `Download of ${this.pull.fileName} aborted.${kept}`, { cause: error });
    if (this.stall.signal.aborted) {
      const seconds = (this.options.stallTimeoutMs ?? DOWNLOAD_STALL_TIMEOUT_MS) / 1000;
      return new DownloadError("network", `No data from ${this.pull.url} for ${seconds} s.${kept}`, { cause: error });
    }
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? (error as Error).message;
    const verb = stage === "connect" ? "Could not reach" : "Connection lost while downloading";
    return new DownloadError("network", `${verb} ${this.pull.url} (${detail}).${kept}`, { cause: error });
  }

  private armStallTimer(): void {
    this.clearStallTimer();
    const ms = this.options.stallTimeoutMs ?? DOWNLOAD_STALL_TIMEOUT_MS;
    this.stallTimer = setTimeout(() => this.stall.abort(new Error("stalled")), ms);
  }

  private clearStallTimer(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
  }
}

/** A Content-Range header (`bytes 100-199/1000`, or `bytes` star `/1000` in a 416 answer) → its start and total. */
function parseContentRange(header: string | null): { start?: number; total?: number } | undefined {
  const match = header?.trim().match(/^bytes\s+(?:(\d+)-(\d+)|\*)\/(\d+|\*)$/i);
  if (!match) return undefined;
  return {
    start: match[1] === undefined ? undefined : Number(match[1]),
    total: match[3] === "*" ? undefined : Number(match[3]),
  };
}

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new DownloadError("aborted", "Download aborted before it started.");
}
