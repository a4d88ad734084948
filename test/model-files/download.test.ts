import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { pullModel, type PullProgress } from "../../src/model/download/pull-model.js";
import { DownloadError } from "../../src/model/errors.js";
import { hfUriToUrl, parseHfUri } from "../../src/model/download/hf-uri.js";
import { startFileServer, type FileServer } from "./file-server.js";
import { gemmaLikeGguf } from "../helpers/gemma-like-gguf.js";
import { entriesOf } from "../helpers/dir-entries.js";

const PAYLOAD = gemmaLikeGguf({ name: "Served Model", payloadBytes: 3 * 1024 * 1024 + 123 });
const PAYLOAD_SHA = createHash("sha256").update(PAYLOAD).digest("hex");
const CUT_AFTER = 1024 * 1024 + 7;

let server: FileServer;
let root: string;
let dirCount = 0;
const freshDir = () => join(root, `models-${++dirCount}`);
const sha256Of = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

beforeAll(async () => {
  server = await startFileServer(PAYLOAD, CUT_AFTER);
  root = mkdtempSync(join(tmpdir(), "gemma-pull-"));
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});
afterEach(() => {
  server.requests.length = 0;
});

async function pullError(promise: Promise<unknown>): Promise<DownloadError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DownloadError);
  return error as DownloadError;
}

describe("pullModel over HTTP on 127.0.0.1", () => {
  it("downloads a GGUF with progress events and leaves no .part", async () => {
    const dir = freshDir();
    const events: PullProgress[] = [];
    const result = await pullModel(`${server.origin}/ok/tiny-Q4_K_M.gguf`, {
      modelsDir: dir,
      onProgress: (p) => events.push(p),
    });

    expect(result).toMatchObject({
      path: join(dir, "tiny-Q4_K_M.gguf"),
      bytes: PAYLOAD.length,
      resumed: false,
      alreadyPresent: false,
    });
    expect(sha256Of(result.path)).toBe(PAYLOAD_SHA);
    expect(result.sha256).toBe(PAYLOAD_SHA);
    expect(entriesOf(dirname(result.path))).not.toContain(`${basename(result.path)}.part`);

    expect(events.length).toBeGreaterThanOrEqual(2);
    const last = events[events.length - 1];
    expect(last).toMatchObject({ receivedBytes: PAYLOAD.length, totalBytes: PAYLOAD.length, etaSeconds: 0 });
    expect(last.bytesPerSecond).toBeGreaterThan(0);
    for (let i = 1; i < events.length; i++)
      expect(events[i].receivedBytes).toBeGreaterThanOrEqual(events[i - 1].receivedBytes);
    expect(events[0].receivedBytes).toBeLessThan(PAYLOAD.length);
  });

  it("resumes a transfer cut in the middle with a Range request, ending with identical bytes", async () => {
    const dir = freshDir();
    const url = `${server.origin}/cut/resumable.gguf`;
    const cut = await pullError(pullModel(url, { modelsDir: dir }));
    expect(cut.code).toBe("network");
    expect(cut.message).toMatch(/pull again to resume/);
    const partPath = join(dir, "resumable.gguf.part");
    const kept = statSync(partPath).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(CUT_AFTER);
    expect(entriesOf(dir)).not.toContain("resumable.gguf");

    const events: PullProgress[] = [];
    const result = await pullModel(url, { modelsDir: dir, onProgress: (p) => events.push(p) });
    expect(server.requests.map((r) => r.range)).toEqual([undefined, `bytes=${kept}-`]);
    expect(result).toMatchObject({ resumed: true });
    expect(result.bytes).toBe(PAYLOAD.length);
    expect(sha256Of(result.path)).toBe(PAYLOAD_SHA);
    expect(result.sha256).toBe(PAYLOAD_SHA);
    expect(entriesOf(dir)).not.toContain("resumable.gguf.part");
    expect(events[0].receivedBytes).toBeGreaterThanOrEqual(kept);
  });

  it("starts over when the server ignores Range (200 instead of 206)", async () => {
    const dir = freshDir();
    await pullError(pullModel(`${server.origin}/cut/whole.gguf`, { modelsDir: dir }));
    expect(entriesOf(dir)).toContain("whole.gguf.part");

    const result = await pullModel(`${server.origin}/norange/whole.gguf`, { modelsDir: dir });
    expect(server.requests[server.requests.length - 1].range).toMatch(/^bytes=\d+-$/);
    expect(result).toMatchObject({ resumed: false });
    expect(sha256Of(result.path)).toBe(PAYLOAD_SHA);
  });

  it("finishes a .part that already holds every byte (416 answer)", async () => {
    const dir = freshDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "done.gguf.part"), PAYLOAD);
    const result = await pullModel(`${server.origin}/ok/done.gguf`, { modelsDir: dir });
    expect(server.requests).toEqual([{ path: "/ok/done.gguf", range: `bytes=${PAYLOAD.length}-` }]);
    expect(result).toMatchObject({ resumed: true, bytes: PAYLOAD.length, sha256: PAYLOAD_SHA });
    expect(sha256Of(result.path)).toBe(PAYLOAD_SHA);
  });

  it("returns a file that is already there without any request, unless forced", async () => {
    const dir = freshDir();
    await pullModel(`${server.origin}/ok/present.gguf`, { modelsDir: dir });
    server.requests.length = 0;
    const again = await pullModel(`${server.origin}/ok/present.gguf`, { modelsDir: dir });
    expect(again).toMatchObject({ alreadyPresent: true, bytes: PAYLOAD.length });
    expect(server.requests).toHaveLength(0);
    const forced = await pullModel(`${server.origin}/ok/present.gguf`, { modelsDir: dir, force: true });
    expect(forced).toMatchObject({ alreadyPresent: false });
    expect(server.requests).toHaveLength(1);
  });

  it("downloads a response of unknown length (chunked), reporting no total", async () => {
    const events: PullProgress[] = [];
    const result = await pullModel(`${server.origin}/chunked/streamed.gguf`, {
      modelsDir: freshDir(),
      onProgress: (p) => events.push(p),
    });
    expect(result.bytes).toBe(PAYLOAD.length);
    expect(sha256Of(result.path)).toBe(PAYLOAD_SHA);
    expect(events.filter((event) => event.totalBytes !== undefined || event.etaSeconds !== undefined)).toEqual([]);
  });

  it("follows redirects, keeping the Range header (Hugging Face redirects to its CDN)", async () => {
    const dir = freshDir();
    await pullError(pullModel(`${server.origin}/cut/moved.gguf`, { modelsDir: dir }));
    const kept = statSync(join(dir, "moved.gguf.part")).size;
    server.requests.length = 0;
    const result = await pullModel(`${server.origin}/redirect/moved.gguf`, { modelsDir: dir });
    expect(server.requests).toEqual([
      { path: "/redirect/moved.gguf", range: `bytes=${kept}-` },
      { path: "/ok/moved.gguf", range: `bytes=${kept}-` },
    ]);
    expect(result).toMatchObject({ resumed: true });
    expect(sha256Of(result.path)).toBe(PAYLOAD_SHA);
  });
});

// The hostile servers (cut, shortened, longer, changed upstream, two pulls at once, wrong size or hash, HTML, a crafted
// header) are in test/reliability/hostile-downloads.test.ts, which counts them.
describe("pullModel refusals", () => {
  it("reports 404 as http_error, creating no file", async () => {
    const dir = freshDir();
    const error = await pullError(pullModel(`${server.origin}/missing/nothing.gguf`, { modelsDir: dir }));
    expect(error.code).toBe("http_error");
    expect(error.message).toMatch(/HTTP 404.*no such file/);
    expect(entriesOf(dir)).not.toContain("nothing.gguf");
    expect(entriesOf(dir)).not.toContain("nothing.gguf.part");
  });

  it("aborts on the signal, keeping the .part, which a later pull resumes", async () => {
    const dir = freshDir();
    const controller = new AbortController();
    const started = Date.now();
    const error = await pullError(
      pullModel(`${server.origin}/slow/stoppable.gguf`, {
        modelsDir: dir,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.receivedBytes >= CUT_AFTER) controller.abort();
        },
      }),
    );
    expect(error.code).toBe("aborted");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(entriesOf(dir)).not.toContain("stoppable.gguf");
    expect(statSync(join(dir, "stoppable.gguf.part")).size).toBe(CUT_AFTER);

    const resumed = await pullModel(`${server.origin}/ok/stoppable.gguf`, { modelsDir: dir });
    expect(resumed).toMatchObject({ resumed: true });
    expect(sha256Of(resumed.path)).toBe(PAYLOAD_SHA);
  });

  it("refuses to start with an already aborted signal", async () => {
    const error = await pullError(
      pullModel(`${server.origin}/ok/x.gguf`, { modelsDir: freshDir(), signal: AbortSignal.abort() }),
    );
    expect(error.code).toBe("aborted");
    expect(server.requests).toHaveLength(0);
  });

  it("gives up on a stalled transfer as a network error, keeping the .part", async () => {
    const dir = freshDir();
    const error = await pullError(
      pullModel(`${server.origin}/slow/stalled.gguf`, { modelsDir: dir, stallTimeoutMs: 300 }),
    );
    expect(error.code).toBe("network");
    expect(error.message).toMatch(/No data .* for 0.3 s/);
    expect(statSync(join(dir, "stalled.gguf.part")).size).toBe(CUT_AFTER);
  });

  it("reports a models directory it cannot create as a disk error", async () => {
    const blocker = join(root, "a-file");
    writeFileSync(blocker, "");
    const error = await pullError(pullModel(`${server.origin}/ok/x.gguf`, { modelsDir: join(blocker, "models") }));
    expect(error.code).toBe("disk");
    expect(error.message).toMatch(/ENOTDIR|EEXIST/);
    expect(server.requests).toHaveLength(0);
  });

  it("reports a refused connection as a network error", async () => {
    const closed = await startFileServer(PAYLOAD, CUT_AFTER);
    await closed.close();
    const error = await pullError(pullModel(`${closed.origin}/ok/refused.gguf`, { modelsDir: freshDir() }));
    expect(error.code).toBe("network");
    // in words first, what to do next, and the code last (for searching), never the bare code alone
    expect(error.message).toMatch(
      /^Could not download from 127\.0\.0\.1:\d+: the connection was refused: no server is listening at that address and port \(ECONNREFUSED\)\. Check the address and port/,
    );
  });

  it("a port fetch blocks (9, as browsers do) is named as such, not as a network failure to check", async () => {
    const error = await pullError(pullModel("http://127.0.0.1:9/x.gguf", { modelsDir: freshDir() }));
    expect(error.code).toBe("network");
    expect(error.message).toBe(
      "Could not download from 127.0.0.1:9: fetch never connects to that port (the Fetch standard blocks it, as browsers do: it belongs to another protocol). Serve the file on another port, 8080 for one.",
    );
  });

  it("a server that takes the request and answers nothing: progress says it waits, for how long, and the pull gives up with a clear line", async () => {
    const seen: PullProgress[] = [];
    const started = Date.now();
    const error = await pullError(
      pullModel(`${server.origin}/silent/quiet.gguf`, {
        modelsDir: freshDir(),
        stallTimeoutMs: 2_500,
        onProgress: (p) => seen.push(p),
      }),
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(error.code).toBe("network");
    expect(error.message).toMatch(
      /^No answer from 127\.0\.0\.1:\d+ in 2\.5 s: the request went out but nothing came back\. Check your network or proxy/,
    );
    expect(error.message).toContain("GEMMA_AGENT_DOWNLOAD_TIMEOUT");
    const waits = seen.filter((p) => p.phase === "connecting");
    expect(waits.length).toBeGreaterThanOrEqual(1);
    expect(waits.at(-1)).toMatchObject({ receivedBytes: 0, stallTimeoutMs: 2_500, host: new URL(server.origin).host });
    expect(waits.at(-1)!.idleMs).toBeGreaterThanOrEqual(1_000);
    // the reports count up while it waits
    expect(waits.map((p) => p.idleMs)).toEqual(waits.map((p) => p.idleMs).sort((a, b) => a - b));
  });

  it("GEMMA_AGENT_DOWNLOAD_TIMEOUT sets how long a pull waits; a value that is not seconds is refused", async () => {
    const error = await pullError(
      pullModel(`${server.origin}/silent/env.gguf`, {
        modelsDir: freshDir(),
        env: { GEMMA_AGENT_DOWNLOAD_TIMEOUT: "1" },
      }),
    );
    expect(error.message).toMatch(/No answer from .* in 1 s/);
    const bad = await pullError(
      pullModel(`${server.origin}/ok/x.gguf`, { modelsDir: freshDir(), env: { GEMMA_AGENT_DOWNLOAD_TIMEOUT: "soon" } }),
    );
    expect(bad.code).toBe("bad_source");
    expect(bad.message).toContain('GEMMA_AGENT_DOWNLOAD_TIMEOUT="soon"');
  });

  it("refuses sources it cannot use before any request", async () => {
    const cases = [
      "no-such-alias",
      "hf:only/two",
      "hf:owner/repo/../etc/passwd.gguf",
      "hf:owner/repo/model.bin",
      `${server.origin}/ok/model.bin`,
      "ftp://host/x.gguf",
      "gemma-4-e2b:Q3_K_XL",
    ];
    for (const source of cases) {
      const error = await pullError(pullModel(source, { modelsDir: freshDir() }));
      expect(error.code, source).toBe("bad_source");
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe("hf: URIs", () => {
  it("map to <endpoint>/<owner>/<repo>/resolve/main/<file>", () => {
    const uri = parseHfUri("hf:unsloth/gemma-4-E2B-it-GGUF/gemma-4-E2B-it-Q4_K_M.gguf")!;
    expect(hfUriToUrl(uri, { endpoint: "https://huggingface.co" })).toBe(
      "https://huggingface.co/unsloth/gemma-4-E2B-it-GGUF/resolve/main/gemma-4-E2B-it-Q4_K_M.gguf",
    );
    expect(hfUriToUrl(parseHfUri("hf:o/r/sub/f.gguf")!, { endpoint: "http://mirror", revision: "abc123" })).toBe(
      "http://mirror/o/r/resolve/abc123/sub/f.gguf",
    );
  });

  it("download through GEMMA_AGENT_HF_ENDPOINT", async () => {
    const previous = process.env.GEMMA_AGENT_HF_ENDPOINT;
    process.env.GEMMA_AGENT_HF_ENDPOINT = `${server.origin}/`;
    try {
      const dir = freshDir();
      const result = await pullModel("hf:someone/some-model-GGUF/quants/some-model-Q8_0.gguf", { modelsDir: dir });
      expect(server.requests.map((r) => r.path)).toEqual([
        "/someone/some-model-GGUF/resolve/main/quants/some-model-Q8_0.gguf",
      ]);
      expect(result.path).toBe(join(dir, "some-model-Q8_0.gguf"));
      expect(result.url).toBe(`${server.origin}/someone/some-model-GGUF/resolve/main/quants/some-model-Q8_0.gguf`);
      expect(sha256Of(result.path)).toBe(PAYLOAD_SHA);
    } finally {
      restoreEnv("GEMMA_AGENT_HF_ENDPOINT", previous);
    }
  });

  it("send HF_TOKEN to the Hugging Face endpoint only: a gated repository opens with it, a plain URL never gets it", async () => {
    const env = { GEMMA_AGENT_HF_ENDPOINT: server.origin, HF_TOKEN: "hf_secret" };
    const refused = await pullError(
      pullModel("hf:gated/model-GGUF/gated.gguf", {
        modelsDir: freshDir(),
        env: { GEMMA_AGENT_HF_ENDPOINT: server.origin },
      }),
    );
    expect(refused.code).toBe("http_error");
    expect(refused.message).toMatch(/HTTP 401 .*gated or private .*set HF_TOKEN/);
    server.requests.length = 0;
    const result = await pullModel("hf:gated/model-GGUF/gated.gguf", { modelsDir: freshDir(), env });
    expect(result.bytes).toBe(PAYLOAD.length);
    expect(server.requests[0].authorization).toBe("Bearer hf_secret");
    server.requests.length = 0;
    const gated = await pullError(pullModel(`${server.origin}/gated/plain.gguf`, { modelsDir: freshDir(), env }));
    expect(server.requests[0].authorization).toBeUndefined();
    expect(gated.message).toMatch(/HTTP 401/);
  });

  it("take the endpoint from the env option when given", async () => {
    const dir = freshDir();
    const result = await pullModel("hf:o/r/env-option.gguf", {
      modelsDir: dir,
      env: { GEMMA_AGENT_HF_ENDPOINT: server.origin },
    });
    expect(server.requests.map((r) => r.path)).toEqual(["/o/r/resolve/main/env-option.gguf"]);
    expect(sha256Of(result.path)).toBe(PAYLOAD_SHA);
  });

  it("refuse an endpoint that is not an http(s) URL", async () => {
    const previous = process.env.GEMMA_AGENT_HF_ENDPOINT;
    process.env.GEMMA_AGENT_HF_ENDPOINT = "file:///etc";
    try {
      expect((await pullError(pullModel("hf:o/r/f.gguf", { modelsDir: freshDir() }))).code).toBe("bad_source");
    } finally {
      restoreEnv("GEMMA_AGENT_HF_ENDPOINT", previous);
    }
  });
});

function restoreEnv(name: string, previous: string | undefined): void {
  if (previous === undefined) delete process.env[name];
  else process.env[name] = previous;
}
