/**
 * The bounds of src/model/http/bounded-body.ts on bodies built in memory: lines cut from bytes (split anywhere, a
 * UTF-8 character across chunks, `\r\n`), the line and event bounds at their exact edge, the byte bound, an error
 * body read within its bytes and time.
 */
import { describe, expect, it } from "vitest";
import {
  bodyChunks,
  bodyLimits,
  boundedLines,
  DEFAULT_BODY_LIMITS,
  readErrorText,
  sseData,
} from "../../src/model/http/bounded-body.js";
import { HttpModelError } from "../../src/model/http/http-model-error.js";
import { openAIPiece, readReply } from "../../src/model/http/reply-stream.js";
import { RequestWatch } from "../../src/model/http/request-watch.js";

const bytes = (text: string) => new TextEncoder().encode(text);

async function* chunksOf(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === "string" ? bytes(part) : part;
}

async function* linesOf(...lines: string[]): AsyncGenerator<string> {
  yield* lines;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The error `promise` rejects with. */
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const bound = (maxBytes: number) => ({ maxBytes, url: "http://x" });

describe("bounded bodies", () => {
  it("lines are cut from bytes wherever the chunks split them, a UTF-8 character across two chunks included", async () => {
    const euro = bytes("€"); // 3 bytes
    const lines = await collect(
      boundedLines(chunksOf("da", "ta: a\r\nb", euro.subarray(0, 1), euro.subarray(1), "\n\n", "last"), bound(100)),
    );
    expect(lines).toEqual(["data: a", "b€", "", "last"]);
  });

  it("a line of exactly the bound passes; one byte more is too_large, in one chunk or many", async () => {
    expect(await collect(boundedLines(chunksOf("abcd\n"), bound(4)))).toEqual(["abcd"]);
    for (const parts of [["abcde\n"], ["ab", "cde"], ["abc", "de\n"]]) {
      const error = await rejection(collect(boundedLines(chunksOf(...parts), bound(4))));
      expect(error).toBeInstanceOf(HttpModelError);
      expect(error).toMatchObject({ code: "too_large" });
      expect((error as Error).message).toContain("sent a line over 4 bytes");
    }
  });

  it("an SSE event joins its data lines; one whose data passes the bound is too_large", async () => {
    const events = await collect(sseData(linesOf("data: a", "data:b", "", ": comment", "data: c", ""), bound(10)));
    expect(events).toEqual(["a\nb", "c"]);
    const endless = sseData(linesOf(...Array.from({ length: 20 }, () => "data: x")), bound(10));
    expect(await rejection(collect(endless))).toMatchObject({ code: "too_large" });
  });

  it("a body past its byte bound is too_large, and one announced past it is refused before it is read", async () => {
    const watch = new RequestWatch(5_000, undefined, undefined);
    const big = new Response("x".repeat(2_000));
    const what = { maxBytes: 1_000, url: "http://x", what: "a JSON answer" };
    expect(await rejection(collect(bodyChunks(big, watch, what)))).toMatchObject({ code: "too_large" });
    const stream = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new Uint8Array(600)), // never ends
    });
    const endless = new Response(stream);
    expect(await rejection(collect(bodyChunks(endless, watch, what)))).toMatchObject({ code: "too_large" });
    watch.stop();
  });

  it("an error body is read for at most its bytes and its time, and never throws", async () => {
    const limits = bodyLimits({ errorBytes: 10, errorWaitMs: 200 });
    expect(await readErrorText(new Response("0123456789abcdef"), limits)).toBe("0123456789");
    const trickle = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        controller.enqueue(bytes("a"));
      },
    });
    const start = performance.now();
    const text = await readErrorText(new Response(trickle), limits);
    expect(performance.now() - start).toBeLessThan(1_000);
    expect(text).toMatch(/^a{1,6}$/);
    expect(bodyLimits(undefined)).toEqual(DEFAULT_BODY_LIMITS);
  });

  it("maxTokens is ours: an honest reply of exactly maxTokens pieces keeps its finish and usage; one more piece is cut", async () => {
    const piece = (text: string) => JSON.stringify({ choices: [{ delta: { content: text } }] });
    const finish = JSON.stringify({ choices: [{ delta: {}, finish_reason: "stop" }], usage: { completion_tokens: 3 } });
    const honest = await readReply(
      linesOf(piece("a"), piece("b"), piece("c"), finish, "[DONE]"),
      openAIPiece,
      "u",
      () => {},
      {
        maxTokens: 3,
        maxChars: 100,
      },
    );
    expect(honest).toEqual({ text: "abc", usage: { generatedTokens: 3 }, finishReason: "stop" });
    const shown: string[] = [];
    const onward = await readReply(
      linesOf(piece("a"), piece("b"), piece("c"), piece("d")),
      openAIPiece,
      "u",
      (t) => shown.push(t),
      {
        maxTokens: 3,
        maxChars: 100,
      },
    );
    expect(onward).toMatchObject({ text: "abc", finishReason: "length" });
    expect(shown).toEqual(["a", "b", "c"]);
    const long = await readReply(linesOf(piece("x".repeat(50)), finish, "[DONE]"), openAIPiece, "u", () => {}, {
      maxTokens: 3,
      maxChars: 20,
    });
    expect(long).toMatchObject({ text: "x".repeat(20), finishReason: "length" });
  });
});
