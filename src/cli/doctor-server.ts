import { parseStructured, resolveOutputSchema } from "../actions/parse-structured.js";
import { DOCTOR_TOTAL_TIMEOUT_MS } from "../model/http/defaults.js";
import { HttpModelError, openAICompatibleModel, type OpenAICompatibleModel } from "../model/http/index.js";
import { oneLine } from "../one-line.js";
import type { CliIO } from "./cli-io.js";
import { serverModelOptions, type ServerCommandOptions } from "./server-model.js";

/** One line of the doctor's report (the shape doctor.ts prints). */
export interface ServerDoctorCheck {
  name: string;
  status: "ok" | "warn" | "fail";
  detail: string;
  fix?: string;
}

/** Tokens the structured-output probe may write: `{"greeting": "<up to 40 characters>"}` fits in far fewer. */
const PROBE_TOKENS = 64;

/** What the probe asks for: a shape no model writes unasked, with a bound a constrained decoder must keep. */
const PROBE_SCHEMA = {
  type: "object",
  properties: { greeting: { type: "string", maxLength: 40 } },
  required: ["greeting"],
  additionalProperties: false,
};

/** What crosses a server only as the request's schema: its doctor line's name, and what it says either way. */
interface SchemaBorne {
  name: string;
  /** Where the server honours a schema: what crosses, after "crosses as <the request's schema>: ". */
  crosses: string;
  /** Where it does not. */
  blocked: string;
}

/**
 * Grounding over a server (grounded-schema.ts): a per-token bias cannot cross its API, but the request's schema can,
 * so each step's schema limits argument values to the question's spans and numerals (strict grounding's limits; soft's
 * steering has no form there and falls back to them).
 */
const GROUNDING: SchemaBorne = {
  name: "grounding",
  crosses:
    "argument values limited to the question's spans and numerals (strict); soft's per-token steering cannot cross and falls back to it",
  blocked:
    "grounding cannot reach this server: it does not honour a schema, the one way grounded values cross a server's API",
};

/**
 * The decision at a reply's branch points (issue 39: answer or call, which skill, how many calls; decided-schema.ts):
 * in process, offsets on the model's own log-probabilities token by token; over a server, the same offsets' ranking
 * as the request's schema (the branches it ranks low left out, a `calls` list held to the question's items). The
 * model's own log-probability, which decides the near-ties in process, is not read over a server.
 */
const DECISION: SchemaBorne = {
  name: "decision",
  crosses:
    "the answer, skills and call lists the decision ranks low are left out; the model's own log-probabilities are not read",
  blocked:
    "the decision cannot reach this server: it does not honour a schema, so whether to call, which skill and how many calls are the model's alone",
};

/** A schema-borne part's line: it reaches the server only if the server honours a schema (the structured-output check). */
function schemaBorneCheck(
  part: SchemaBorne,
  structured: ServerDoctorCheck,
  handle: OpenAICompatibleModel,
): ServerDoctorCheck {
  if (structured.status !== "ok" || handle.info.structuredOutput === "none")
    return {
      name: part.name,
      status: "warn",
      detail: part.blocked,
      fix: "use a server that takes a JSON Schema (llama-server, vLLM, Ollama >= 0.5, LM Studio), or run the GGUF in-process (--model)",
    };
  const via = handle.info.structuredOutput === "gbnf" ? "the request's GBNF grammar" : "the request's JSON Schema";
  return { name: part.name, status: "ok", detail: `crosses as ${via}: ${part.crosses}` };
}

/** What the server says it is: reachable, which dialect (and what said so), its models and the one used. */
async function connectChecks(io: CliIO, handle: OpenAICompatibleModel): Promise<ServerDoctorCheck[] | undefined> {
  try {
    const info = await handle.connect(io.signal);
    return [
      { name: "server", status: "ok", detail: `reachable at ${info.baseURL}` },
      { name: "dialect", status: "ok", detail: `${info.dialect} (${info.detectedBy})` },
      {
        name: "models",
        status: "ok",
        detail: `${info.models?.join(", ") || "(the server lists none)"}; using ${info.name}${info.slots ? `; ${info.slots} slot(s), ${info.contextLength} tokens each` : ""}`,
      },
    ];
  } catch (error) {
    if (!(error instanceof HttpModelError)) throw error;
    const name = error.code === "unknown_model" ? "models" : "server";
    return [{ name, status: "fail", detail: oneLine(error.message, 400), fix: fixFor(error) }];
  }
}

function fixFor(error: HttpModelError): string {
  if (error.code === "unknown_model") return `name one of the listed models after # (or with --server-model)`;
  if (error.code === "redirected") return "name the server it redirects to, if that is the right one";
  if (error.code === "too_large") return "check that the URL is a model server's /v1 (it sent more than one would)";
  if (error.code === "timeout")
    return "check that the server is up and not overloaded; for a slow one raise --http-timeout (silence) or --http-total-timeout (the whole answer)";
  if (error.code === "unreachable")
    return "start the server (e.g. llama-server -m MODEL.gguf --host 127.0.0.1 --port 8080), or check the URL and port";
  return "check that the URL is an OpenAI-compatible server's /v1";
}

/**
 * Ask for a small JSON object under a schema with a prompt that does not ask for JSON: a server that honours the
 * schema answers an object that parses as it is; one that ignores it writes prose. (The parse path would then refuse
 * every action; runs over it work only as well as the model writes JSON on its own: a warning, not a failure.)
 */
async function structuredOutputCheck(io: CliIO, handle: OpenAICompatibleModel): Promise<ServerDoctorCheck> {
  const prompt = handle.chatFormat.render([{ role: "user", content: "Say hello to the user." }]);
  let reply: string;
  try {
    reply = await handle.generate(prompt, { jsonSchema: PROBE_SCHEMA, maxTokens: PROBE_TOKENS, signal: io.signal });
  } catch (error) {
    if (!(error instanceof HttpModelError)) throw error;
    return {
      name: "structured out",
      status: "fail",
      detail: `a constrained request failed: ${oneLine(error.message, 300)}`,
      fix: "the server must accept a JSON Schema (response_format json_schema, or Ollama's format)",
    };
  }
  const parsed = parseStructured(reply, resolveOutputSchema(PROBE_SCHEMA));
  if (parsed.ok && !parsed.repaired)
    return {
      name: "structured out",
      status: "ok",
      detail: `replies follow a JSON Schema (${handle.info.structuredOutput})`,
    };
  return {
    name: "structured out",
    status: "warn",
    detail: `the server ${parsed.ok ? "did not keep the schema's bounds" : "ignored the JSON Schema"}: it wrote ${JSON.stringify(oneLine(reply, 80))}`,
    fix: "update the server (llama-server, vLLM, Ollama >= 0.5 and LM Studio take a JSON Schema), or try --structured-output gbnf on llama-server",
  };
}

/**
 * `doctor --server URL`: reachability, dialect, models, and whether the server honours the action schema. Every
 * request is bounded as a run's are; the structured-output check in all by DOCTOR_TOTAL_TIMEOUT_MS unless the
 * flags give a timeout.
 */
export async function serverDoctorChecks(
  io: CliIO,
  spec: string,
  options: ServerCommandOptions,
): Promise<ServerDoctorCheck[]> {
  const flags = serverModelOptions(spec, options, io.env);
  const handle = openAICompatibleModel({
    ...flags,
    totalTimeoutMs: flags.totalTimeoutMs ?? (flags.timeoutMs === undefined ? DOCTOR_TOTAL_TIMEOUT_MS : undefined),
    retries: options.httpRetries ?? 1,
  });
  const connected = await connectChecks(io, handle);
  if (!connected || connected.some((c) => c.status === "fail")) return connected ?? [];
  const structured = await structuredOutputCheck(io, handle);
  return [
    ...connected,
    structured,
    schemaBorneCheck(GROUNDING, structured, handle),
    schemaBorneCheck(DECISION, structured, handle),
  ];
}
