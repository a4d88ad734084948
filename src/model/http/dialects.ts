/**
 * The servers `openAICompatibleModel` speaks to, and what each one gets. Every one takes the OpenAI chat protocol
 * (Ollama: its own `/api/chat`, for the `format` schema); they differ in how a JSON Schema constrains the reply, and
 * in whether our own rendered prompt and GBNF grammar can be sent.
 */
export type ServerDialect = "llama-server" | "vllm" | "ollama" | "lmstudio" | "openai";

/** `auto`: ask the server once (see detect-dialect.ts). */
export type DialectOption = "auto" | ServerDialect;

/** What one dialect supports. */
export interface DialectTraits {
  /**
   * How a JSON Schema reaches the server: OpenAI's `response_format: {type: "json_schema", json_schema: {schema}}`,
   * or Ollama's `format: <schema>`.
   */
  schemaField: "response_format" | "format";
  /** Takes a GBNF grammar as `grammar` (llama.cpp's own sampler): our compiler's grammar, as the local loader uses. */
  gbnf: boolean;
  /**
   * Takes our own rendered prompt on `/v1/completions` with `cache_prompt` (its KV cache kept between the steps of a
   * run), and counts tokens (`/tokenize`) in its context (`/props`).
   */
  rawCompletion: boolean;
  /** Path of the chat endpoint, under the server root. */
  chatPath: string;
  /** Streams server-sent events (`data: {...}`) or newline-delimited JSON (Ollama). */
  stream: "sse" | "ndjson";
}

export const DIALECTS: Readonly<Record<ServerDialect, DialectTraits>> = {
  "llama-server": {
    schemaField: "response_format",
    gbnf: true,
    rawCompletion: true,
    chatPath: "/v1/chat/completions",
    stream: "sse",
  },
  vllm: {
    schemaField: "response_format",
    gbnf: false,
    rawCompletion: false,
    chatPath: "/v1/chat/completions",
    stream: "sse",
  },
  ollama: { schemaField: "format", gbnf: false, rawCompletion: false, chatPath: "/api/chat", stream: "ndjson" },
  lmstudio: {
    schemaField: "response_format",
    gbnf: false,
    rawCompletion: false,
    chatPath: "/v1/chat/completions",
    stream: "sse",
  },
  openai: {
    schemaField: "response_format",
    gbnf: false,
    rawCompletion: false,
    chatPath: "/v1/chat/completions",
    stream: "sse",
  },
};

/** The dialect names, in the order `auto` tries to recognize them. */
export const DIALECT_NAMES = Object.keys(DIALECTS) as ServerDialect[];

/** True for a dialect name this package knows. */
export function isServerDialect(name: string): name is ServerDialect {
  return Object.hasOwn(DIALECTS, name);
}
