import { HttpModelError } from "./http-model-error.js";

/** A model on a server, as `--model http://host:port/v1#model-name` names it. */
export interface ServerModelRef {
  /** The OpenAI-style base URL, e.g. `http://127.0.0.1:8080/v1` (no trailing slash). */
  baseURL: string;
  /** The model name sent in requests; empty when the URL named none (the server's only model is used). */
  model: string;
}

/** True when `text` names a model server (`http://` or `https://`), not a file, alias or scripted model. */
export function isServerUrl(text: string): boolean {
  return /^https?:\/\//i.test(text.trim());
}

/**
 * Read `http(s)://host:port/v1#model-name`: the part before `#` is the base URL, the fragment the model name
 * (percent-decoded). A URL without `/v1` gets it: servers answer the OpenAI protocol under `/v1`. Throws
 * `HttpModelError("bad_url")` for anything that is not an http(s) URL.
 */
export function parseServerModelUrl(text: string): ServerModelRef {
  const trimmed = text.trim();
  const hash = trimmed.indexOf("#");
  const base = hash >= 0 ? trimmed.slice(0, hash) : trimmed;
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new HttpModelError("bad_url", `${text} is not a server URL (expected http://host:port/v1#model-name)`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new HttpModelError("bad_url", `${text}: only http:// and https:// servers are supported`);
  if (url.search !== "")
    throw new HttpModelError("bad_url", `${text}: a server URL takes no query (?...); name the model after #`);
  let model = "";
  try {
    model = hash >= 0 ? decodeURIComponent(trimmed.slice(hash + 1)) : "";
  } catch {
    throw new HttpModelError("bad_url", `${text}: the model name after # is not valid percent-encoding`);
  }
  return { baseURL: normalizeBaseURL(url.href), model };
}

/** `http://h:1/` → `http://h:1/v1`, `http://h:1/v1/` → `http://h:1/v1`; a path other than `/` is kept as given. */
export function normalizeBaseURL(baseURL: string): string {
  const trimmed = baseURL.replace(/\/+$/, "");
  const url = new URL(trimmed);
  return url.pathname === "/" || url.pathname === "" ? `${trimmed}/v1` : trimmed;
}

/** The server's root (the base URL without a final `/v1`): where `/props`, `/health` and Ollama's `/api/*` live. */
export function serverRoot(baseURL: string): string {
  return baseURL.replace(/\/v1$/, "");
}

/** `http://127.0.0.1:8080/v1#gemma` for messages and reports (the model part only when there is one). */
export function formatServerModel(ref: ServerModelRef): string {
  return ref.model === "" ? ref.baseURL : `${ref.baseURL}#${ref.model}`;
}
