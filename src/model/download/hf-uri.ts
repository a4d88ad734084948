import { DEFAULT_HF_ENDPOINT, DEFAULT_HF_REVISION, HF_ENDPOINT_ENV } from "../defaults.js";

/** The parts of an `hf:<owner>/<repo>/<path/to/file.gguf>` URI. */
export interface HfUri {
  owner: string;
  repo: string;
  /** Path of the file inside the repository, `/`-separated, e.g. `gemma-4-E2B-it-Q4_K_M.gguf`. */
  file: string;
  /** Last segment of {@link HfUri.file}: the name the file gets in the models directory. */
  fileName: string;
}

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Parses `hf:owner/repo/file.gguf` (the file may sit in a folder: `hf:owner/repo/dir/file.gguf`).
 * Returns `undefined` for anything else, including `..` segments and names that are not `.gguf` files.
 */
export function parseHfUri(uri: string): HfUri | undefined {
  if (!uri.startsWith("hf:")) return undefined;
  const parts = uri.slice(3).split("/");
  if (parts.length < 3) return undefined;
  if (!parts.every((part) => SEGMENT.test(part) && part !== "." && part !== "..")) return undefined;
  const [owner, repo, ...rest] = parts;
  const fileName = rest[rest.length - 1];
  if (!fileName.toLowerCase().endsWith(".gguf")) return undefined;
  return { owner, repo, file: rest.join("/"), fileName };
}

/**
 * The Hugging Face host to download from: env `GEMMA_AGENT_HF_ENDPOINT` (a mirror, or a local test server) when set,
 * else `https://huggingface.co`. Throws a `TypeError` when the variable is set to something that is not an http(s) URL.
 */
export function hfEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  const raw = env[HF_ENDPOINT_ENV]?.trim();
  if (!raw) return DEFAULT_HF_ENDPOINT;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError(`${HF_ENDPOINT_ENV}="${raw}" is not a URL; expected e.g. https://huggingface.co`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TypeError(`${HF_ENDPOINT_ENV}="${raw}" must be an http(s) URL`);
  }
  return raw.replace(/\/+$/, "");
}

/**
 * The download URL of an `hf:` URI: `<endpoint>/<owner>/<repo>/resolve/<revision>/<file>`, the address Hugging Face
 * serves raw files from (it redirects to its CDN; `fetch` follows). `revision` defaults to `main`.
 */
export function hfUriToUrl(uri: HfUri, options: { revision?: string; endpoint?: string } = {}): string {
  const endpoint = options.endpoint ?? hfEndpoint();
  const revision = encodeURIComponent(options.revision ?? DEFAULT_HF_REVISION);
  const file = uri.file.split("/").map(encodeURIComponent).join("/");
  return `${endpoint}/${encodeURIComponent(uri.owner)}/${encodeURIComponent(uri.repo)}/resolve/${revision}/${file}`;
}
