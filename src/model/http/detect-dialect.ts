import type { HttpBodyLimits } from "./bounded-body.js";
import { PROBE_TIMEOUT_MS, PROBE_TOTAL_TIMEOUT_MS } from "./defaults.js";
import type { ServerDialect } from "./dialects.js";
import { HttpModelError } from "./http-model-error.js";
import { requestJson } from "./server-request.js";
import { serverRoot } from "./server-url.js";

/** How to reach a server for its probes. */
export interface ProbeTarget {
  baseURL: string;
  apiKey?: string;
  signal?: AbortSignal;
  /** Each probe's idle timeout. Default PROBE_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Each probe's total time. Default PROBE_TOTAL_TIMEOUT_MS. */
  totalTimeoutMs?: number;
  /** Bounds on the answers. Default DEFAULT_BODY_LIMITS. */
  limits?: HttpBodyLimits;
}

/** What `auto` found: the dialect, what said so, and llama-server's `/props` when it answered them. */
export interface DetectedDialect {
  dialect: ServerDialect;
  /** The answer that decided, e.g. `GET /props answered llama.cpp's properties`. */
  detectedBy: string;
  props?: Record<string, unknown>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * GET a probe path; the JSON answer, or undefined when the server answered an error status or something not JSON
 * (the probe does not apply to it). No connection at all is thrown: there is no server to detect.
 */
export async function probe(target: ProbeTarget, url: string): Promise<unknown> {
  try {
    return await requestJson({
      url,
      timeoutMs: target.timeoutMs ?? PROBE_TIMEOUT_MS,
      totalTimeoutMs: target.totalTimeoutMs ?? PROBE_TOTAL_TIMEOUT_MS,
      apiKey: target.apiKey,
      limits: target.limits,
      signal: target.signal,
    });
  } catch (error) {
    if (error instanceof HttpModelError && (error.code === "http_error" || error.code === "bad_response")) {
      // a busy or loading server (429, 503) is retried by the caller like any request
      if (error.retryable) throw error;
      return undefined;
    }
    throw error;
  }
}

/** The `owned_by` values of `/v1/models`. */
function owners(models: unknown): string[] {
  if (!isRecord(models) || !Array.isArray(models.data)) return [];
  return models.data.map((m) => (isRecord(m) && typeof m.owned_by === "string" ? m.owned_by : ""));
}

/**
 * Which server this is, from what it answers, in this order: llama-server's `GET /props` (its properties: slots,
 * chat template, build), Ollama's `GET /api/version`, vLLM's `owned_by: "vllm"` in `GET /v1/models`, LM Studio's
 * `GET /api/v0/models`; any other server that lists models is plain OpenAI-compatible.
 */
export async function detectDialect(target: ProbeTarget): Promise<DetectedDialect> {
  const root = serverRoot(target.baseURL);
  const props = await probe(target, `${root}/props`);
  if (isRecord(props) && (isRecord(props.default_generation_settings) || typeof props.build_info === "string"))
    return { dialect: "llama-server", detectedBy: "GET /props answered llama.cpp's server properties", props };
  const version = await probe(target, `${root}/api/version`);
  if (isRecord(version) && typeof version.version === "string")
    return { dialect: "ollama", detectedBy: `GET /api/version answered Ollama ${version.version}` };
  const models = await probe(target, `${target.baseURL}/models`);
  if (owners(models).includes("vllm"))
    return { dialect: "vllm", detectedBy: 'GET /v1/models lists models owned_by "vllm"' };
  const lmstudio = await probe(target, `${root}/api/v0/models`);
  if (isRecord(lmstudio) && Array.isArray(lmstudio.data))
    return { dialect: "lmstudio", detectedBy: "GET /api/v0/models answered LM Studio's model list" };
  if (models === undefined)
    throw new HttpModelError(
      "bad_response",
      `${target.baseURL} answers none of the OpenAI-compatible servers' probes (/props, /api/version, /v1/models): is it a model server, and is the URL's /v1 right?`,
      { url: target.baseURL },
    );
  return { dialect: "openai", detectedBy: "GET /v1/models answered; no server-specific probe did" };
}

/** The model names a server lists: `GET /v1/models` (`data[].id`), Ollama's `GET /api/tags` (`models[].name`). */
export async function listServerModels(target: ProbeTarget, dialect: ServerDialect): Promise<string[] | undefined> {
  if (dialect === "ollama") {
    const tags = await probe(target, `${serverRoot(target.baseURL)}/api/tags`);
    if (isRecord(tags) && Array.isArray(tags.models))
      return tags.models.flatMap((m) => (isRecord(m) && typeof m.name === "string" ? [m.name] : []));
  }
  const models = await probe(target, `${target.baseURL}/models`);
  if (!isRecord(models) || !Array.isArray(models.data)) return undefined;
  return models.data.flatMap((m) => (isRecord(m) && typeof m.id === "string" ? [m.id] : []));
}
