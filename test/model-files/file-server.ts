/**
 * Test helper: a real node:http server on 127.0.0.1 that serves one payload in the ways downloads meet in the wild.
 * Routes (the last path segment is the file name and does not matter):
 *   /ok/…        honours `Range: bytes=N-` (206, or 416 when N is past the end)
 *   /norange/…   ignores Range: always 200 with the whole payload
 *   /cut/…       first request: 200, `cutAfter` bytes, then the socket is destroyed; later requests as /ok/
 *   /slow/…      200 announcing the whole payload, sends `cutAfter` bytes, then nothing (until closed)
 *   /chunked/…   200 without Content-Length (chunked encoding), the whole payload in two writes
 *   /short/…     200 without Content-Length, `cutAfter` bytes, then a clean end (a server that stops early)
 *   /longer/…    200, the payload followed by 1,000 bytes no tensor owns (two writers into one file)
 *   /changing/…  first request: the payload with ETag "v1", cut after `cutAfter` bytes; later requests: `changed`
 *                (another file) with ETag "v2", honouring Range only when If-Range is absent or names "v2"
 *   /trickle/…   as /ok/, in 64 KB pieces 20 ms apart (a pull that takes a while)
 *   /html/…      200 with an HTML page
 *   /silent/…    takes the request and never answers (until closed)
 *   /gated/…     401 without a Bearer token, else as /ok/ (a gated Hugging Face repository; also /gated/<repo>/resolve/…)
 *   /missing/…   404
 *   /redirect/…  302 to /ok/…
 *   /<owner>/<repo>/resolve/<revision>/<file…>   as /ok/ (the Hugging Face layout)
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  path: string;
  range?: string;
  ifRange?: string;
  authorization?: string;
}

export interface FileServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startFileServer(
  payload: Buffer,
  cutAfter: number,
  changed: Buffer = payload,
): Promise<FileServer> {
  const requests: RecordedRequest[] = [];
  const cutDone = new Set<string>();
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push({
      path,
      range: req.headers.range,
      ...(req.headers["if-range"] && { ifRange: String(req.headers["if-range"]) }),
      ...(req.headers.authorization && { authorization: req.headers.authorization }),
    });
    const route = path.split("/")[1];
    if (route === "gated") {
      if (/^Bearer .+/.test(req.headers.authorization ?? "")) return serveRange(req, res, payload);
      res.writeHead(401, { "content-type": "text/plain" });
      return void res.end(
        "Access to model is restricted. You must have access to it and be authenticated to access it.",
      );
    }
    if (route === "ok" || /^\/[^/]+\/[^/]+\/resolve\/[^/]+\/.+/.test(path)) return serveRange(req, res, payload);
    if (route === "norange") return serveWhole(res, payload);
    if (route === "cut") {
      if (cutDone.has(path)) return serveRange(req, res, payload);
      cutDone.add(path);
      res.writeHead(200, { "content-length": payload.length, "content-type": "application/octet-stream" });
      res.write(payload.subarray(0, cutAfter), () => setTimeout(() => res.socket?.destroy(), 50));
      return;
    }
    if (route === "slow") {
      res.writeHead(200, { "content-length": payload.length, "content-type": "application/octet-stream" });
      res.write(payload.subarray(0, cutAfter));
      return;
    }
    if (route === "chunked") {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.write(payload.subarray(0, cutAfter));
      return void setTimeout(() => res.end(payload.subarray(cutAfter)), 20);
    }
    if (route === "short") {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      return void res.end(payload.subarray(0, cutAfter));
    }
    if (route === "longer") return serveWhole(res, Buffer.concat([payload, Buffer.alloc(1000, 1)]));
    if (route === "changing") {
      if (!cutDone.has(path)) {
        cutDone.add(path);
        res.writeHead(200, {
          "content-length": payload.length,
          etag: '"v1"',
          "content-type": "application/octet-stream",
        });
        return void res.write(payload.subarray(0, cutAfter), () => setTimeout(() => res.socket?.destroy(), 50));
      }
      const ifRange = req.headers["if-range"];
      if (ifRange !== undefined && ifRange !== '"v2"') return serveWhole(res, changed, { etag: '"v2"' });
      return serveRange(req, res, changed, { etag: '"v2"' });
    }
    if (route === "trickle") {
      res.writeHead(200, { "content-length": payload.length, "content-type": "application/octet-stream" });
      let at = 0;
      const next = () => {
        if (res.destroyed) return;
        const piece = payload.subarray(at, at + 65_536);
        at += piece.length;
        if (at >= payload.length) return void res.end(piece);
        res.write(piece, () => setTimeout(next, 20));
      };
      return next();
    }
    if (route === "silent") return; // the connection stays open, and nothing comes back
    if (route === "html") {
      const page = Buffer.from("<!DOCTYPE html><html><body>Sign in to continue</body></html>");
      res.writeHead(200, { "content-length": page.length, "content-type": "text/html" });
      return res.end(page);
    }
    if (route === "redirect") {
      res.writeHead(302, { location: path.replace(/^\/redirect\//, "/ok/") });
      return res.end();
    }
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("Entry not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function serveWhole(res: ServerResponse, payload: Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(200, { "content-length": payload.length, "content-type": "application/octet-stream", ...headers });
  res.end(payload);
}

function serveRange(
  req: IncomingMessage,
  res: ServerResponse,
  payload: Buffer,
  headers: Record<string, string> = {},
): void {
  const match = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
  if (!match) return serveWhole(res, payload, headers);
  const start = Number(match[1]);
  if (start >= payload.length) {
    res.writeHead(416, { "content-range": `bytes */${payload.length}` });
    return void res.end();
  }
  res.writeHead(206, {
    ...headers,
    "content-length": payload.length - start,
    "content-range": `bytes ${start}-${payload.length - 1}/${payload.length}`,
    "content-type": "application/octet-stream",
  });
  res.end(payload.subarray(start));
}
