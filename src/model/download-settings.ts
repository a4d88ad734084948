import { DOWNLOAD_STALL_TIMEOUT_MS, DOWNLOAD_TIMEOUT_ENV, HF_TOKEN_ENVS } from "./constants.js";
import { DownloadError } from "./errors.js";

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
