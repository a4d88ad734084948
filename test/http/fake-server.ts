/**
 * Test helper: a small model server on 127.0.0.1 (real node:http, real sockets) that speaks one dialect's probes and
 * streaming protocol, records every request it gets, and injects faults on demand. Used only for what a real server
 * cannot be made to do on cue: dropped connections, 503 / 429 with Retry-After, a slow drip, a hang, a server that
 * ignores the schema. The replies themselves are scripted: `reply(body)` says what the "model" writes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gzipSync } from "node:zlib";

export type FakeDialect = "llama-server" | "vllm" | "ollama" | "lmstudio" | "openai";

/** A fault for the next generate request (they are used up in order; none left: a normal answer). */
export type Fault =
  | { kind: "status"; status: number; retryAfter?: string; body?: string }
  /** The socket is destroyed before any answer. */
  | { kind: "drop" }
  /** The answer starts streaming, then the socket is destroyed after `pieces` pieces. */
  | { kind: "drop-mid"; pieces: number }
  /** Headers, then nothing (until the client gives up). */
  | { kind: "hang" }
  /** Each piece `everyMs` apart. */
  | { kind: "drip"; everyMs: number }
  | HostileFault;

/**
 * Answers of a hostile server (issue 29), for a generate request (in `faults`) or any path (in `routeFaults`). Each
 * that never ends writes as fast as the client reads (backpressure kept), until the client closes the connection.
 */
export type HostileFault =
  /** `status`, then a body that never ends (`{"error": "xxxx...`). */
  | { kind: "endless-body"; status: number }
  /** `status` (default 200), then one byte every `everyMs`, for ever. */
  | { kind: "trickle"; everyMs: number; status?: number }
  /** A reply whose pieces never end: a token each, no finish reason, no `[DONE]` (NDJSON for Ollama). */
  | { kind: "endless-stream" }
  /** `data: ` then one line that never ends. */
  | { kind: "endless-line" }
  /** `data: x` lines for ever, never the blank line that ends an event. */
  | { kind: "endless-event" }
  /** `data: ` and one line of `bytes` bytes, then the blank line. */
  | { kind: "huge-line"; bytes: number }
  /** Gzip (`Content-Encoding: gzip`) of `prefix` and then `a` up to `inflatedBytes`: one line, in about 1/1000 of it. */
  | { kind: "gzip-bomb"; inflatedBytes: number; prefix: string }
  /** A redirect (`status`, default 302) to `location`. */
  | { kind: "redirect"; location: string; status?: number }
  /** A status line and then one header that never ends (written on the socket itself). */
  | { kind: "endless-headers" };

export interface RecordedRequest {
  method: string;
  path: string;
  body?: Record<string, unknown>;
  authorization?: string;
}

export interface FakeServerOptions {
  dialect: FakeDialect;
  /** Names `/v1/models` lists. Default ["fake-model"]. */
  models?: string[];
  /** What the model writes for a generate request. Default: a final answer. */
  reply?: (body: Record<string, unknown>) => string;
  /** Split each reply into pieces of this many characters. Default 4. */
  pieceChars?: number;
  /** Wait before answering each generate request (ms): a busy model. */
  latencyMs?: number;
}

export interface FakeServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseURL: string;
  port: number;
  requests: RecordedRequest[];
  /** Generate requests only (chat / completions). */
  generateRequests(): RecordedRequest[];
  faults: Fault[];
  /** Generate requests being answered right now, and the most at once so far. */
  inFlight: number;
  maxInFlight: number;
  /** Connections the server saw closed by the client before the answer ended. */
  clientClosed: number;
  /** Hostile answers served on every request to a path (`/props`, `/v1/models`, `/v1/chat/completions`), GET or POST. */
  routeFaults: Record<string, HostileFault>;
  /** Bytes written by hostile answers (before compression), over all of them. */
  hostileBytes: number;
  close(): Promise<void>;
}

const GENERATE_PATHS = new Set(["/v1/chat/completions", "/v1/completions", "/api/chat"]);

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

/** The probe answers of each dialect; undefined: 404. */
function probeAnswer(dialect: FakeDialect, path: string, models: string[]): unknown {
  const list = { object: "list", data: models.map((id) => ({ id, object: "model", owned_by: ownerOf(dialect) })) };
  if (path === "/v1/models") return list;
  if (dialect === "llama-server" && path === "/props")
    return {
      default_generation_settings: { n_ctx: 4096 },
      total_slots: 2,
      bos_token: "<bos>",
      chat_template: "{{ bos_token }}<start_of_turn>user ...",
      build_info: "b0-fake",
    };
  if (dialect === "llama-server" && path === "/tokenize") return { tokens: [1, 2, 3] };
  if (dialect === "llama-server" && path === "/apply-template") return { prompt: "<bos><start_of_turn>user\nhi" };
  if (dialect === "ollama" && path === "/api/version") return { version: "0.9.0" };
  if (dialect === "ollama" && path === "/api/tags") return { models: models.map((name) => ({ name })) };
  if (dialect === "lmstudio" && path === "/api/v0/models") return list;
  return undefined;
}

function ownerOf(dialect: FakeDialect): string {
  return dialect === "vllm" ? "vllm" : dialect === "llama-server" ? "llamacpp" : "organization_owner";
}

/** The streamed messages of one reply in the dialect's protocol. */
function replyMessages(dialect: FakeDialect, path: string, text: string, pieceChars: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += pieceChars) pieces.push(text.slice(i, i + pieceChars));
  if (dialect === "ollama") {
    return [
      ...pieces.map((p) => `${JSON.stringify({ message: { role: "assistant", content: p }, done: false })}\n`),
      `${JSON.stringify({ message: { role: "assistant", content: "" }, done: true, done_reason: "stop", prompt_eval_count: 20, eval_count: pieces.length, eval_duration: 1e8 })}\n`,
    ];
  }
  const chunk = (p: string) =>
    path === "/v1/completions"
      ? { choices: [{ index: 0, text: p }] }
      : { choices: [{ index: 0, delta: { content: p } }] };
  const sse = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  return [
    ...pieces.map((p) => sse(chunk(p))),
    sse({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
    sse({
      choices: [],
      usage: { prompt_tokens: 30, completion_tokens: pieces.length, prompt_tokens_details: { cached_tokens: 10 } },
    }),
    "data: [DONE]\n\n",
  ];
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return text === "" ? undefined : (JSON.parse(text) as Record<string, unknown>);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What {@link write} writes to: a response or its socket. */
interface Sink {
  readonly destroyed: boolean;
  write(chunk: Buffer | string): boolean;
  on(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
}

/** Write `chunk`; resolves once the client took it (drain) or the connection is gone. */
function write(sink: Sink, chunk: Buffer | string): Promise<void> {
  if (sink.destroyed) return Promise.resolve();
  if (sink.write(chunk)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      sink.off("drain", done);
      sink.off("close", done);
      resolve();
    };
    sink.on("drain", done);
    sink.on("close", done);
  });
}

/** Gzip members of 16 MiB of `a` each (a gzip stream may hold several; they inflate one after the other). */
const BOMB_MEMBER_BYTES = 16 * 1024 * 1024;
let bombMember: Buffer | undefined;

/** The chunks of a hostile answer's body, lazily (a generator that never ends for the endless kinds). */
function* hostileChunks(fault: HostileFault, dialect: FakeDialect): Generator<Buffer | string> {
  const block = (char: string, bytes = 64 * 1024) => char.repeat(bytes);
  switch (fault.kind) {
    case "endless-body":
      yield '{"error": "';
      for (;;) yield block("x");
    case "trickle":
      for (;;) yield " ";
    case "endless-stream":
      for (;;)
        yield dialect === "ollama"
          ? `${JSON.stringify({ message: { role: "assistant", content: "tok" }, done: false })}\n`
          : `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "tok" } }] })}\n\n`;
    case "endless-line":
      yield "data: ";
      for (;;) yield block("a");
    case "endless-event":
      for (;;) yield "data: x\n".repeat(8 * 1024);
    case "huge-line":
      yield "data: ";
      for (let left = fault.bytes; left > 0; left -= 64 * 1024) yield block("a", Math.min(left, 64 * 1024));
      return yield "\n\n";
    case "gzip-bomb":
      bombMember ??= gzipSync(Buffer.alloc(BOMB_MEMBER_BYTES, "a"));
      yield gzipSync(Buffer.from(fault.prefix));
      for (let left = fault.inflatedBytes; left > 0; left -= BOMB_MEMBER_BYTES) yield bombMember;
      return;
    case "endless-headers":
      yield "HTTP/1.1 200 OK\r\nX-Padding: ";
      for (;;) yield block("a");
    case "redirect":
      return;
  }
}

/** Serve a hostile answer until it ends or the client closes the connection (counted in `seen.clientClosed`). */
async function serveHostile(
  res: ServerResponse,
  fault: HostileFault,
  dialect: FakeDialect,
  seen: { hostileBytes: number; clientClosed: number },
) {
  if (fault.kind === "redirect") {
    res.writeHead(fault.status ?? 302, { location: fault.location, "content-type": "text/plain" });
    return void res.end("moved");
  }
  if (fault.kind === "endless-headers") {
    const socket = res.socket!;
    for (const chunk of hostileChunks(fault, dialect)) {
      if (socket.destroyed) return void seen.clientClosed++;
      seen.hostileBytes += chunk.length;
      await write(socket, chunk);
    }
  }
  const status = fault.kind === "endless-body" || fault.kind === "trickle" ? (fault.status ?? 200) : 200;
  const type = fault.kind === "endless-body" ? "application/json" : "text/event-stream";
  res.writeHead(status, {
    "content-type": dialect === "ollama" && fault.kind === "endless-stream" ? "application/x-ndjson" : type,
    ...(fault.kind === "gzip-bomb" && { "content-encoding": "gzip" }),
  });
  res.flushHeaders();
  for (const chunk of hostileChunks(fault, dialect)) {
    if (res.destroyed) return void seen.clientClosed++;
    seen.hostileBytes += chunk.length;
    await write(res, chunk);
    if (fault.kind === "trickle") await sleep(fault.everyMs);
  }
  res.end();
}

/** Start a fake server of `options.dialect` on 127.0.0.1 (a free port). */
export async function startFakeServer(options: FakeServerOptions): Promise<FakeServer> {
  const models = options.models ?? ["fake-model"];
  const reply = options.reply ?? (() => JSON.stringify({ final_answer: "done" }));
  const sockets = new Set<Socket>();
  const state = {
    requests: [] as RecordedRequest[],
    faults: [] as Fault[],
    inFlight: 0,
    maxInFlight: 0,
    clientClosed: 0,
    routeFaults: {} as Record<string, HostileFault>,
    hostileBytes: 0,
  };
  const isHostile = (fault: Fault | undefined): fault is HostileFault =>
    fault !== undefined && !["status", "drop", "drop-mid", "hang", "drip"].includes(fault.kind);

  async function answerGenerate(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) {
    const fault = state.faults.shift();
    if (isHostile(fault)) return serveHostile(res, fault, options.dialect, state);
    if (fault?.kind === "drop") return void req.socket.destroy();
    if (fault?.kind === "status") {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
      res.writeHead(fault.status, headers);
      return void res.end(fault.body ?? JSON.stringify({ error: { code: fault.status, message: "fake failure" } }));
    }
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    let finished = false;
    res.on("close", () => {
      state.inFlight--;
      if (!finished) state.clientClosed++;
    });
    if (options.latencyMs) await sleep(options.latencyMs);
    const ndjson = options.dialect === "ollama";
    res.writeHead(200, { "content-type": ndjson ? "application/x-ndjson" : "text/event-stream" });
    if (fault?.kind === "hang") {
      res.flushHeaders();
      return;
    }
    const messages = replyMessages(options.dialect, req.url ?? "", reply(body), options.pieceChars ?? 4);
    for (const [index, message] of messages.entries()) {
      if (res.destroyed) return;
      if (fault?.kind === "drop-mid" && index >= fault.pieces) {
        await sleep(50); // the pieces written reach the client before the connection goes
        return void req.socket.destroy();
      }
      if (fault?.kind === "drip") await sleep(fault.everyMs);
      res.write(message);
    }
    finished = true;
    res.end();
  }

  const server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const body = await readBody(req);
      state.requests.push({
        method: req.method ?? "GET",
        path,
        ...(body && { body }),
        ...(req.headers.authorization && { authorization: req.headers.authorization }),
      });
      const routeFault = Object.hasOwn(state.routeFaults, path) ? state.routeFaults[path] : undefined;
      if (routeFault) return serveHostile(res, routeFault, options.dialect, state);
      if (GENERATE_PATHS.has(path) && req.method === "POST") return answerGenerate(req, res, body ?? {});
      const answer = probeAnswer(options.dialect, path, models);
      if (answer === undefined) return json(res, 404, { error: { code: 404, message: `no route ${path}` } });
      json(res, 200, answer);
    })();
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(state, {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    generateRequests: () => state.requests.filter((r) => GENERATE_PATHS.has(r.path)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  });
}
