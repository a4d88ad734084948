import type { RequestWatch } from "./server-request.js";

/**
 * The lines of a streamed response body as they arrive (UTF-8 decoded across chunk boundaries, `\r\n` or `\n`), each
 * piece of the body restarting the request's idle timer. A body that fails mid-way throws what the read threw.
 */
export async function* streamLines(response: Response, watch: RequestWatch): AsyncGenerator<string> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      watch.touch();
      pending += decoder.decode(value, { stream: true });
      let newline = pending.indexOf("\n");
      while (newline >= 0) {
        yield pending.slice(0, newline).replace(/\r$/, "");
        pending = pending.slice(newline + 1);
        newline = pending.indexOf("\n");
      }
    }
    pending += decoder.decode();
    if (pending !== "") yield pending.replace(/\r$/, "");
  } finally {
    reader.releaseLock();
  }
}

/**
 * The `data:` payloads of a server-sent-events stream, one per event (several `data:` lines of one event joined by
 * `\n`); comments and other fields are skipped. Ends at the stream's end or at `[DONE]`, which is yielded.
 */
export async function* sseData(lines: AsyncIterable<string>): AsyncGenerator<string> {
  let data: string[] = [];
  for await (const line of lines) {
    if (line === "") {
      if (data.length > 0) yield data.join("\n");
      data = [];
    } else if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
  }
  if (data.length > 0) yield data.join("\n");
}
