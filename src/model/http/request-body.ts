import type { JsonSchema } from "../../json-schema.js";
import { DIALECTS, type ServerDialect } from "./dialects.js";
import type { ServerMessage } from "./messages-format.js";

/** How a reply is constrained on the wire: the JSON Schema in the dialect's field, or our compiled GBNF. */
export type WireConstraint = { kind: "json-schema"; schema: JsonSchema } | { kind: "gbnf"; grammar: string };

/** Everything one generate request says. */
export interface ReplyRequest {
  dialect: ServerDialect;
  model: string;
  /** Chat messages (the server applies its template), or our own rendered prompt (raw completion). */
  input: { messages: ServerMessage[] } | { prompt: string };
  constraint?: WireConstraint;
  maxTokens: number;
  temperature: number;
  seed?: number;
  /** Raw completion: where a turn ends (the chat format's end-of-turn text). */
  stop?: string[];
}

/** The request to send: path under the server root, JSON body, and how the answer streams. */
export interface WireRequest {
  path: string;
  body: Record<string, unknown>;
  stream: "sse" | "ndjson";
}

/** The body of Ollama's `/api/chat`: `format` carries the schema, sampling goes in `options`. */
function ollamaRequest(request: ReplyRequest, messages: ServerMessage[]): WireRequest {
  return {
    path: DIALECTS.ollama.chatPath,
    stream: "ndjson",
    body: {
      model: request.model,
      messages,
      stream: true,
      ...(request.constraint?.kind === "json-schema" && { format: request.constraint.schema }),
      options: {
        temperature: request.temperature,
        num_predict: request.maxTokens,
        seed: request.seed,
      },
    },
  };
}

/** The constraint's fields in an OpenAI-style body (chat: `response_format`; raw completion: `json_schema`). */
function constraintFields(request: ReplyRequest, raw: boolean): Record<string, unknown> {
  const constraint = request.constraint;
  if (!constraint) return {};
  if (constraint.kind === "gbnf") return { grammar: constraint.grammar };
  if (raw) return { json_schema: constraint.schema };
  return {
    response_format: { type: "json_schema", json_schema: { name: "action", schema: constraint.schema, strict: true } },
  };
}

/**
 * The request for one reply in `request.dialect`: `/v1/chat/completions` with messages (Ollama: `/api/chat`), or,
 * for our own rendered prompt, llama-server's `/v1/completions` with `cache_prompt` on, so that the server keeps the
 * run's prompt in its KV cache and evaluates only each step's new tokens. Always streamed, with usage asked for.
 */
export function wireRequest(request: ReplyRequest): WireRequest {
  const raw = !("messages" in request.input);
  if (request.dialect === "ollama" && "messages" in request.input)
    return ollamaRequest(request, request.input.messages);
  const llama = request.dialect === "llama-server";
  const body: Record<string, unknown> = {
    model: request.model,
    ...("messages" in request.input ? { messages: request.input.messages } : { prompt: request.input.prompt }),
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: request.maxTokens,
    temperature: request.temperature,
    seed: request.seed,

    ...(request.stop && request.stop.length > 0 && { stop: request.stop }),
    ...(llama && { cache_prompt: true }),
    ...constraintFields(request, raw),
  };
  return { path: raw ? "/v1/completions" : DIALECTS[request.dialect].chatPath, body, stream: "sse" };
}
