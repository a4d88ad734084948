import type { Catalog } from "../catalog.js";
import type { PullProgressListener } from "./download-progress.js";

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
  /**
   * Abandon a transfer that receives nothing (no answer, or no byte) for this long. Default: env
   * `GEMMA_AGENT_DOWNLOAD_TIMEOUT` (seconds) when set, else 60 s.
   */
  stallTimeoutMs?: number;
  /**
   * Environment read for `GEMMA_AGENT_HF_ENDPOINT`, `GEMMA_AGENT_MODELS`, `GEMMA_AGENT_DOWNLOAD_TIMEOUT` and `HF_TOKEN`
   * (sent to the Hugging Face endpoint only, for `hf:` sources and aliases). Default: `process.env`.
   */
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
