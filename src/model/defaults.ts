import { DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_RETRIES } from "../defaults.js";
import { DownloadError } from "./errors.js";

/**
 * Every default that changes how models are found, catalogued and downloaded, in one place, each with its reason, and
 * at the end the two environment variables a pull reads over them (its stall timeout, the Hugging Face token). (The
 * node-llama-cpp loader keeps its own runtime defaults beside it in `model/llama/`, decoding and grounding theirs in
 * `model/decoding/` and `model/grounding/`, the server client in `model/http/`.)
 */

/**
 * Environment variable that names the models folders: one, or several separated by the platform's path delimiter
 * (`:`, `;` on Windows), so that the GGUFs already in LM Studio's, node-llama-cpp's or llama.cpp's folders are found.
 * Pulls go to the first.
 */
export const MODELS_DIR_ENV = "GEMMA_AGENT_MODELS";

/**
 * How many folders down the models folders are searched for `.gguf` files: LM Studio keeps `publisher/repo/file.gguf`
 * (2), Hugging Face's cache `models--owner--repo/snapshots/<revision>/file.gguf` (3); one more for good measure. The
 * bound also ends a symbolic-link loop.
 */
export const MODELS_SCAN_DEPTH = 4;

/**
 * Default models directory, relative to the home directory: a cache, because every file in it can be downloaded
 * again (`gemma-agent pull`), and outside the project so that several checkouts share one copy of a 3 GB file.
 */
export const DEFAULT_MODELS_SUBDIR = [".cache", "gemma-agent", "models"] as const;

/** Environment variable that overrides the Hugging Face host used for `hf:` URIs (a mirror, or 127.0.0.1 in tests). */
export const HF_ENDPOINT_ENV = "GEMMA_AGENT_HF_ENDPOINT";

/** Host that `hf:owner/repo/file.gguf` resolves against when {@link HF_ENDPOINT_ENV} is not set. */
export const DEFAULT_HF_ENDPOINT = "https://huggingface.co";

/** Git revision of a Hugging Face repository when the catalog pins none. */
export const DEFAULT_HF_REVISION = "main";

/**
 * Agent budgets for a model the catalog gives none for: the agent loop's own defaults (src/defaults.ts), so that an
 * unknown model behaves exactly like `Agent.run` without options.
 */
export const DEFAULT_BUDGETS = Object.freeze({
  maxIterations: DEFAULT_MAX_ITERATIONS,
  maxRetries: DEFAULT_MAX_RETRIES,
});

/** Suffix of a download in progress; the final name appears only after every check passed (atomic rename). */
export const PART_SUFFIX = ".part";

/** Minimum milliseconds between two progress events: often enough for a live bar, rare enough to cost nothing. */
export const PROGRESS_INTERVAL_MS = 200;

/**
 * How far the size a server announces may stray from the catalog's approximate size before a pull refuses it.
 * Upstream repositories re-upload files (a fixed chat template changes a few KB) so sizes are not exact; a wrong
 * file (another quantization, an HTML page) is off by far more than 25 %.
 */
export const CATALOG_SIZE_TOLERANCE = 0.25;

/**
 * A transfer that receives no byte for this long is abandoned as a network error (the `.part` stays, to resume).
 * Long enough for a slow CDN to start a multi-GB response, short enough not to hang forever.
 */
const DOWNLOAD_STALL_TIMEOUT_MS = 60_000;

/**
 * Environment variable: seconds a download may receive nothing (no answer, or no byte) before it is abandoned;
 * overrides {@link DOWNLOAD_STALL_TIMEOUT_MS}.
 */
export const DOWNLOAD_TIMEOUT_ENV = "GEMMA_AGENT_DOWNLOAD_TIMEOUT";

/**
 * While a download waits (for the server's answer, or for the next byte), a progress report goes out this often, so
 * the user sees what is happening and for how long instead of a bare spinner.
 */
export const DOWNLOAD_WAIT_REPORT_MS = 1_000;

/**
 * Environment variables holding a Hugging Face access token, in the order read (`HF_TOKEN` is the one Hugging Face's
 * own tools use now). Sent only with requests to the Hugging Face endpoint for `hf:` sources and catalog aliases: a
 * gated model (one whose licence must be accepted on its page first) needs it; public ones do not.
 */
const HF_TOKEN_ENVS = ["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"] as const;

/** Bytes read from disk at a time by the GGUF header reader. */
export const GGUF_READ_CHUNK_BYTES = 1 << 20;

/**
 * Most bytes of metadata the GGUF header reader walks before giving up. A Gemma header (262,144-token vocabulary,
 * scores, token types, chat template) is about 10 MB; anything past this bound is treated as corrupt.
 */
export const GGUF_MAX_HEADER_BYTES = 256 * 1024 * 1024;

/** Most metadata key/value pairs a GGUF header may declare (real files have a few dozen). */
export const GGUF_MAX_METADATA_ENTRIES = 65_536;

/** Longest single metadata string the reader keeps in memory (chat templates are tens of KB). */
export const GGUF_MAX_STRING_BYTES = 16 * 1024 * 1024;

// The download settings as the environment overrides them.

/**
 * How long a pull waits without data: `GEMMA_AGENT_DOWNLOAD_TIMEOUT` (seconds) in milliseconds, else
 * {@link DOWNLOAD_STALL_TIMEOUT_MS}. A value that is not a positive number is refused (`bad_source`), not ignored.
 */
export function stallTimeoutFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = env[DOWNLOAD_TIMEOUT_ENV]?.trim();
  if (!raw) return DOWNLOAD_STALL_TIMEOUT_MS;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new DownloadError("bad_source", `${DOWNLOAD_TIMEOUT_ENV}="${raw}" is not a number of seconds (e.g. 120).`);
  return Math.round(seconds * 1000);
}

/** The Hugging Face token from the environment (`HF_TOKEN`, else `HUGGING_FACE_HUB_TOKEN`), when one is set. */
export function hfToken(env: NodeJS.ProcessEnv): string | undefined {
  for (const name of HF_TOKEN_ENVS) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}
