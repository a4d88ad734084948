import { HttpModelError } from "./http-model-error.js";

/** Token counts a server reported for one reply (absent: the server did not say). */
export interface ReplyUsage {
  promptTokens?: number;
  /** Prompt tokens the server's cache already held (llama-server's `cached_tokens` / `cache_n`). */
  cachedTokens?: number;
  /** Prompt tokens the server evaluated for this reply (`prompt_n`; else prompt minus cached). */
  evaluatedTokens?: number;
  generatedTokens?: number;
  /** Generation speed the server measured (`predicted_per_second`, Ollama's eval_count / eval_duration). */
  tokensPerSecond?: number;
}

/** A reply read to its end. */
export interface StreamedReply {
  text: string;
  usage: ReplyUsage;
  /** Why generation stopped, as the server says (`stop`, `length`); absent when it did not say. */
  finishReason?: string;
}

/** What a protocol's parser took from one streamed message. */
interface Piece {
  text?: string;
  usage?: ReplyUsage;
  finishReason?: string;
  /** The stream's last message. */
  done?: boolean;
}

const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
}

/** A message of the stream that is an error (`{"error": ...}`), as an HttpModelError; undefined otherwise. */
function streamedError(message: Record<string, unknown>, url: string): HttpModelError | undefined {
  if (message.error === undefined) return undefined;
  const error = record(message.error);
  const text = typeof message.error === "string" ? message.error : String(error.message ?? JSON.stringify(error));
  const status = num(error.code);
  return new HttpModelError("http_error", `the model server at ${url} failed mid-reply: ${text}`, {
    url,
    status,
  });
}

/** Usage of an OpenAI-style message: `usage` (with `prompt_tokens_details.cached_tokens`) and llama-server `timings`. */
function openAIUsage(message: Record<string, unknown>): ReplyUsage | undefined {
  const usage = record(message.usage);
  const timings = record(message.timings);
  if (message.usage === undefined && message.timings === undefined) return undefined;
  const out: ReplyUsage = {};
  const set = (key: keyof ReplyUsage, value: number | undefined) => value !== undefined && (out[key] = value);
  set("promptTokens", num(usage.prompt_tokens));
  set("generatedTokens", num(usage.completion_tokens) ?? num(timings.predicted_n));
  set("cachedTokens", num(record(usage.prompt_tokens_details).cached_tokens) ?? num(timings.cache_n));
  set("evaluatedTokens", num(timings.prompt_n));
  set("tokensPerSecond", num(timings.predicted_per_second));
  if (out.promptTokens === undefined && out.evaluatedTokens !== undefined)
    out.promptTokens = out.evaluatedTokens + (out.cachedTokens ?? 0);
  return out;
}

/** One SSE payload of `/v1/chat/completions` or `/v1/completions`. */
export function openAIPiece(data: string, url: string): Piece {
  if (data === "[DONE]") return { done: true };
  const message = record(JSON.parse(data));
  const failure = streamedError(message, url);
  if (failure) throw failure;
  const choice = record(Array.isArray(message.choices) ? message.choices[0] : undefined);
  const delta = record(choice.delta);
  const text = typeof delta.content === "string" ? delta.content : typeof choice.text === "string" ? choice.text : "";
  const usage = openAIUsage(message);
  return {
    ...(text !== "" && { text }),
    usage,
    ...(typeof choice.finish_reason === "string" && { finishReason: choice.finish_reason }),
  };
}

/** One NDJSON line of Ollama's `/api/chat`. */
export function ollamaPiece(line: string, url: string): Piece {
  const message = record(JSON.parse(line));
  const failure = streamedError(message, url);
  if (failure) throw failure;
  const content = record(message.message).content;
  const text = typeof content === "string" ? content : "";
  if (message.done !== true) return text === "" ? {} : { text };
  const generated = num(message.eval_count);
  const evalNs = num(message.eval_duration);
  const usage: ReplyUsage = {};
  const prompt = num(message.prompt_eval_count);
  if (prompt !== undefined) usage.promptTokens = usage.evaluatedTokens = prompt;
  if (generated !== undefined) usage.generatedTokens = generated;
  if (generated !== undefined && evalNs) usage.tokensPerSecond = generated / (evalNs / 1e9);
  return {
    ...(text !== "" && { text }),
    usage,
    done: true,
    ...(typeof message.done_reason === "string" && { finishReason: message.done_reason }),
  };
}

/** Our own bounds on a reply, whatever the server does with the `max_tokens` it was sent. */
export interface ReplyBounds {
  /** Text pieces taken (each at least one token on the servers we know); the stream is closed after this many. */
  maxTokens: number;
  /** Characters of text taken; the text is cut there. */
  maxChars: number;
}

/** One reply being put together: its text within {@link ReplyBounds}. */
class ReplyText {
  text = "";
  pieces = 0;
  cut = false;
  constructor(readonly bounds: ReplyBounds) {}

  /** Take `piece`, or what of it fits; false once the reply is cut (the stream must be closed). */
  take(piece: string, onText: (text: string) => void): boolean {
    if (this.pieces >= this.bounds.maxTokens || this.text.length >= this.bounds.maxChars) {
      this.cut = true;
      return false;
    }
    const fitting = piece.slice(0, this.bounds.maxChars - this.text.length);
    this.pieces++;
    this.text += fitting;
    if (fitting !== "") onText(fitting);
    if (fitting.length < piece.length) this.cut = true;
    return !this.cut;
  }
}

/**
 * Read a streamed reply to its end: text pieces go to `onText` as they come, usage and the finish reason are kept.
 * A stream that closes before its end (no `[DONE]`, no finish reason) is a dropped connection: `unreachable`. Past
 * `bounds` (a server that streams on beyond `maxTokens`), reading stops and the stream is closed: the reply is what
 * came within them, `finishReason` `length`, as a local model's at `maxTokens`.
 */
export async function readReply(
  messages: AsyncIterable<string>,
  parse: (message: string, url: string) => Piece,
  url: string,
  onText: (text: string) => void,
  bounds: ReplyBounds,
): Promise<StreamedReply> {
  const reply = new ReplyText(bounds);
  let usage: ReplyUsage = {};
  let finishReason: string | undefined;
  let ended = false;
  for await (const message of messages) {
    if (message.trim() === "") continue;
    const piece = parsePiece(parse, message, url);
    if (piece.text !== undefined && !reply.take(piece.text, onText)) break;
    if (piece.usage) usage = { ...usage, ...piece.usage };
    if (piece.finishReason !== undefined) finishReason = piece.finishReason;
    if (piece.done) ended = true;
  }
  if (reply.cut) return { text: reply.text, usage, finishReason: "length" };
  if (!ended && finishReason === undefined)
    throw new HttpModelError("unreachable", `the model server at ${url} closed the connection before the reply ended`, {
      url,
    });
  return { text: reply.text, usage, finishReason };
}

/** One message parsed; what is not JSON is `bad_response`. */
function parsePiece(parse: (message: string, url: string) => Piece, message: string, url: string): Piece {
  try {
    return parse(message, url);
  } catch (error) {
    if (error instanceof HttpModelError) throw error;
    throw new HttpModelError("bad_response", `${url} streamed something that is not JSON: ${message.slice(0, 120)}`, {
      url,
    });
  }
}
