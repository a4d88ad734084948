import { createHash, type Hash } from "node:crypto";
import { open, rename, rm, stat, type FileHandle } from "node:fs/promises";
import { CATALOG_SIZE_TOLERANCE, hfToken, PART_SUFFIX } from "../defaults.js";
import { ProgressMeter, type PullPhase } from "./download-progress.js";
import { DownloadError } from "../errors.js";
import { GgufHeaderError, isGgufMagic, readGgufHeader, startsWithGguf } from "../gguf/gguf-header.js";
import { announcedLength, discardBody, httpErrorHint, parseContentRange } from "./http-response.js";
import { transferFailureText } from "../network-failure.js";
import {
  hashFile,
  lockPart,
  readPartValidator,
  withDiskError,
  writeFully,
  writePartValidator,
  type PartValidator,
} from "./part-file.js";
import type { PullOptions, PullResult } from "./pull-options.js";
import type { PullSource } from "./pull-source.js";
import { TransferWatch } from "./transfer-watch.js";

/**
 * One pull of one file (for {@link pullModel}, which resolves the source and options first): the request, the `.part`
 * it writes, progress while it waits or receives, and the checks before the rename.
 */
export class Transfer {
  private readonly partPath: string;
  private readonly fetchImpl: typeof fetch;
  private readonly expectedSha256: string | undefined;
  private readonly stallTimeoutMs: number;
  private readonly watch: TransferWatch;
  private readonly host: string;
  private readonly token: string | undefined;
  private meter: ProgressMeter | undefined;
  private phase: PullPhase = "connecting";
  private hash: Hash = createHash("sha256");
  private offset = 0;
  private received = 0;
  private total: number | undefined;
  private resumed = false;
  /** The ETag / Last-Modified of the response the `.part` was started from: sent as If-Range when resuming. */
  private validator: PartValidator | undefined;

  constructor(
    private readonly pull: PullSource,
    private readonly path: string,
    private readonly options: PullOptions & { stallTimeoutMs: number },
  ) {
    this.partPath = path + PART_SUFFIX;
    this.fetchImpl = options.fetchImpl ?? fetch;
    this.expectedSha256 = (options.sha256 ?? pull.file?.sha256)?.toLowerCase();
    this.stallTimeoutMs = options.stallTimeoutMs;
    this.watch = new TransferWatch(options.stallTimeoutMs, () => this.meter?.waiting());
    this.host = new URL(pull.url).host;
    // a token goes to Hugging Face only (an alias or hf: source), never to a URL the user typed
    this.token = pull.huggingFace ? hfToken(options.env ?? process.env) : undefined;
  }

  async run(): Promise<PullResult> {
    const release = await lockPart(this.partPath, this.pull.fileName);
    try {
      await this.preparePart();
      this.newMeter();
      return await this.transfer();
    } finally {
      this.watch.stopWaitTicker();
      this.meter?.stop();
      await release();
    }
  }

  private newMeter(): void {
    this.meter?.stop();
    this.meter = new ProgressMeter(this.options.onProgress, this.received, () => ({
      phase: this.phase,
      lastActivity: this.watch.lastActivity,
      total: this.total,
      stallTimeoutMs: this.stallTimeoutMs,
      host: this.host,
    }));
  }

  private async transfer(): Promise<PullResult> {
    let response = await this.request(this.offset);
    if (this.offset > 0) response = await this.reconcileResume(response);
    if (response.status !== 416 || this.offset === 0) {
      this.acceptResponse(response);
      if (!this.resumed) await this.keepValidator(response);
      await this.receive(response);
    }
    await this.verify();
    await withDiskError(`rename ${this.partPath} to ${this.path}`, () => rename(this.partPath, this.path));
    await writePartValidator(this.partPath, undefined);
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
      await this.removePart();
      return;
    }
    await hashFile(this.hash, this.partPath);
    this.offset = this.received = size;
    this.validator = await readPartValidator(this.partPath);
  }

  /** Deletes the `.part` and its validator. */
  private async removePart(): Promise<void> {
    await rm(this.partPath, { force: true });
    await writePartValidator(this.partPath, undefined);
  }

  /**
   * Remembers what identifies this version of the file (a strong ETag, else Last-Modified), so that a resume asks for
   * the rest of the same version (If-Range): a file changed upstream then comes whole, never spliced onto the old
   * prefix.
   */
  private async keepValidator(response: Response): Promise<void> {
    const etag = response.headers.get("etag") ?? undefined;
    const lastModified = response.headers.get("last-modified") ?? undefined;
    this.validator = { ...(etag && !etag.startsWith("W/") && { etag }), ...(lastModified && { lastModified }) };
    await withDiskError(`write the validator of ${this.partPath}`, () =>
      writePartValidator(this.partPath, this.validator),
    );
  }

  private async request(offset: number): Promise<Response> {
    throwIfAborted(this.options.signal);
    const headers: Record<string, string> = { "accept-encoding": "identity" };
    if (offset > 0) headers.range = `bytes=${offset}-`;
    const ifRange = this.validator?.etag ?? this.validator?.lastModified;
    if (offset > 0 && ifRange) headers["if-range"] = ifRange;
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    const stall = this.watch.signal;
    const signal = this.options.signal ? AbortSignal.any([this.options.signal, stall]) : stall;
    this.phase = "connecting";
    this.watch.lastActivity = Date.now();
    this.watch.startWaitTicker();
    this.watch.armStallTimer();
    try {
      return await this.fetchImpl(this.pull.url, { headers, signal, redirect: "follow" });
    } catch (error) {
      throw this.failure(error, "connect");
    } finally {
      this.watch.clearStallTimer();
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
      await discardBody(response);
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
    await discardBody(response);
    this.restart();
    return this.request(0);
  }

  private restart(): void {
    this.offset = this.received = 0;
    this.hash = createHash("sha256");
    this.newMeter();
  }

  /** Refuses an error status, or an announced size that cannot be the file. */
  private acceptResponse(response: Response): void {
    if (!response.ok) {
      void discardBody(response);
      const hint = httpErrorHint(response.status, this.token !== undefined);
      throw new DownloadError(
        "http_error",
        `HTTP ${response.status} ${response.statusText} from ${this.pull.url}${hint}`,
      );
    }
    if (response.status === 200) this.total = announcedLength(response);
    const problem = this.total === undefined ? undefined : this.sizeProblem(this.total, "The server announces");
    if (problem !== undefined) {
      void discardBody(response);
      throw new DownloadError("size_mismatch", problem);
    }
  }

  /** Streams the body into the `.part`, hashing, checking the magic, reporting progress, watching for stalls. */
  private async receive(response: Response): Promise<void> {
    const handle = await withDiskError(`open ${this.partPath}`, () => open(this.partPath, this.offset > 0 ? "a" : "w"));
    const progress = this.meter!;
    const head = { bytes: Buffer.alloc(0) };
    this.phase = "receiving";
    this.watch.lastActivity = Date.now();
    try {
      this.watch.armStallTimer();
      for await (const chunk of response.body ?? []) {
        this.watch.touch();
        await this.writeChunk(handle, chunk as Uint8Array, head);
        progress.report(this.received);
      }
      await withDiskError(`flush ${this.partPath}`, () => handle.datasync());
    } catch (error) {
      await discardBody(response);
      if (error instanceof DownloadError && (error.code === "bad_source" || error.code === "size_mismatch")) {
        await handle.close().catch(() => undefined);
        await this.removePart();
        throw error;
      }
      throw this.failure(error, "transfer");
    } finally {
      this.watch.clearStallTimer();
      this.watch.stopWaitTicker();
      progress.stop();
      await handle.close().catch(() => undefined);
    }
    progress.report(this.received, true);
  }

  /**
   * One chunk of the body into the `.part`: its first four bytes (gathered in `head`) must be the GGUF magic, and
   * the file may not grow past the size the server announced.
   */
  private async writeChunk(handle: FileHandle, bytes: Uint8Array, head: { bytes: Buffer }): Promise<void> {
    if (this.received < 4) {
      head.bytes = Buffer.concat([head.bytes, bytes.subarray(0, 4 - this.received)]);
      if (head.bytes.length >= 4 && !isGgufMagic(head.bytes)) throw this.notGguf(head.bytes);
    }
    await withDiskError(`write ${this.partPath}`, () => writeFully(handle, bytes));
    this.hash.update(bytes);
    this.received += bytes.length;
    if (this.total !== undefined && this.received > this.total) {
      throw new DownloadError("size_mismatch", `${this.pull.url} sent more than the ${this.total} bytes it announced.`);
    }
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
      await this.removePart();
      throw new DownloadError(code, message);
    };
    if (this.received < 4) await reject("bad_source", `${this.pull.url} sent ${this.received} bytes: not a GGUF file.`);
    const problem = this.sizeProblem(this.received, "The download has");
    if (problem !== undefined) await reject("size_mismatch", problem);
    if (this.expectedSha256 !== undefined) {
      const actual = this.hash.copy().digest("hex");
      if (actual !== this.expectedSha256) {
        await reject(
          "hash_mismatch",
          `${this.pull.fileName} has sha256 ${actual}, expected ${this.expectedSha256}; the file was deleted.`,
        );
      }
    }
    await this.verifyHeader(reject);
  }

  /**
   * The finished file through the same bounded GGUF reader as every model file: a header whose tensors run past the
   * end of a body of unknown length is an incomplete download (kept, to resume); a header that is not valid GGUF
   * (past the end of a body as long as announced included), or tensor data followed by bytes no tensor owns (two
   * writers into one file), is a bad file (deleted).
   */
  private async verifyHeader(
    reject: (code: "size_mismatch" | "bad_source", message: string) => Promise<never>,
  ): Promise<void> {
    try {
      const header = await readGgufHeader(this.partPath);
      const end = header.tensorDataOffset + Math.ceil(header.tensorDataBytes / header.alignment) * header.alignment;
      if (header.tensorCount > 0 && this.received > end) {
        await reject(
          "size_mismatch",
          `The download has ${this.received} bytes, but its GGUF header accounts for ${end}: the file is damaged (was it written twice?) and was deleted; pull again.`,
        );
      }
    } catch (error) {
      if (!(error instanceof GgufHeaderError)) throw error;
      // A header that runs past the end is a cut transfer only when the server gave no length: a body as long as it
      // announced is the whole file, and a resume would get nothing more (416), so that header lies and is deleted.
      if (error.code === "truncated" && this.total === undefined)
        throw new DownloadError(
          "network",
          `The download is incomplete (${error.message}); run the pull again to resume.`,
        );
      await reject("bad_source", `${this.pull.url} served a damaged GGUF file (${error.message}); it was deleted.`);
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
    if (this.options.signal?.aborted)
      return new DownloadError("aborted", `Download of ${this.pull.fileName} aborted.${kept}`, { cause: error });
    const message = transferFailureText({
      error,
      stage,
      host: this.host,
      received: this.received,
      kept,
      stalled: this.watch.stalled,
      stallTimeoutMs: this.stallTimeoutMs,
    });
    return new DownloadError("network", message, { cause: error });
  }
}

/** Rejects a pull whose signal has already aborted, before anything starts. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new DownloadError("aborted", "Download aborted before it started.");
}
