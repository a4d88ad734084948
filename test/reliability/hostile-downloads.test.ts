/**
 * Downloads that go wrong on purpose (issue 18 §3), against a real HTTP server on 127.0.0.1: cut, shortened, longer,
 * changed between attempts (new ETag), two pulls at once, the wrong size or hash, not a GGUF, a crafted GGUF header.
 * Every attempt is counted; one that resolves with bytes other than a whole file the server serves, or leaves such a
 * file under a model's name (where `models` or `ask` would use it), counts as a bad download reported as downloaded.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadCatalog, type Catalog } from "../../src/model/catalog.js";
import { DownloadError } from "../../src/model/errors.js";
import { pullModel, type PullOptions, type PullResult } from "../../src/model/download/pull-model.js";
import { gemmaLikeGguf } from "../helpers/gemma-like-gguf.js";
import { startFileServer, type FileServer } from "../model-files/file-server.js";
import { baseGguf } from "./crafted-gguf.js";
import { entriesOf } from "../helpers/dir-entries.js";

const PAYLOAD = gemmaLikeGguf({ name: "Served Model", payloadBytes: 3 * 1024 * 1024 + 123 });
/** The file served after it "changed upstream" (/changing/): another model of another size. */
const CHANGED = gemmaLikeGguf({ name: "Served Model, version 2", payloadBytes: 2 * 1024 * 1024 + 77 });
const CUT_AFTER = 1024 * 1024 + 7;
const sha256Of = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const PAYLOAD_SHA = sha256Of(PAYLOAD);

/** The crafted 1 KB file whose first key length is 2^31 (it aborted the process), and one whose tensor is 2^31 wide. */
function craftedGguf(field: "length of key general.architecture" | "dimension 0 of token_embd.weight"): Buffer {
  const { bytes, fields } = baseGguf();
  bytes.writeBigUInt64LE(2n ** 31n, fields.find((f) => f.name === field)!.offset);
  return bytes;
}

let server: FileServer;
let root: string;
let dirCount = 0;
const freshDir = () => join(root, `models-${++dirCount}`);

/** Neither the file nor its `.part` is left in `dir`. */
function expectNothingKept(dir: string, file: string): void {
  expect(entriesOf(dir)).not.toContain(file);
  expect(entriesOf(dir)).not.toContain(`${file}.part`);
}

beforeAll(async () => {
  server = await startFileServer(PAYLOAD, CUT_AFTER, CHANGED);
  root = mkdtempSync(join(tmpdir(), "ga-hostile-pull-"));
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});
afterEach(() => {
  server.requests.length = 0;
});

/** Every hostile attempt, and those that ended as a bad file reported or left as downloaded. */
const ledger = { attempted: 0, reported: [] as string[], left: [] as string[] };

/**
 * One hostile pull, counted. `whole`: the bytes a correct outcome may end with (a resume of a file changed upstream
 * ends with the new file), none when the pull must fail. A pull that resolves with other bytes is a bad download
 * reported as downloaded; a file other than `whole` under a model's name (not `.part` and its lock or validator) is
 * one left where `models` or `ask` would use it.
 */
async function hostilePull(
  label: string,
  source: string,
  options: PullOptions & { modelsDir: string },
  whole?: Buffer,
): Promise<{ result?: PullResult; error?: DownloadError }> {
  ledger.attempted++;
  const outcome: { result?: PullResult; error?: DownloadError } = await pullModel(source, options).then(
    (result) => ({ result }),
    (error: unknown) => ({ error: error as DownloadError }),
  );
  const good = (path: string) => whole !== undefined && sha256Of(readFileSync(path)) === sha256Of(whole);
  if (outcome.result && !good(outcome.result.path)) ledger.reported.push(label);
  const dir = options.modelsDir;
  const models = existsSync(dir) ? readdirSync(dir).filter((name) => !/\.part(\.lock|\.validator)?$/.test(name)) : [];
  for (const name of models) if (!good(join(dir, name))) ledger.left.push(`${label}: ${name}`);
  return outcome;
}

/** The error of a hostile pull that must fail, a {@link DownloadError}. */
async function refused(...args: Parameters<typeof hostilePull>): Promise<DownloadError> {
  const { error } = await hostilePull(...args);
  expect(error, args[0]).toBeInstanceOf(DownloadError);
  return error!;
}

describe("hostile downloads over HTTP on 127.0.0.1 (issue 18 §3)", () => {
  it("a body without Content-Length that ends early is incomplete, not downloaded: kept as .part, and the next pull resumes it", async () => {
    const dir = freshDir();
    const cut = await refused("truncated, no Content-Length", `${server.origin}/short/early.gguf`, { modelsDir: dir });
    expect(cut.code).toBe("network");
    expect(cut.message).toMatch(
      /incomplete \(tensor payload \(3145851 bytes of I8\) does not fit in the 1048583-byte file.*run the pull again to resume/,
    );
    expect(entriesOf(dir)).not.toContain("early.gguf");
    expect(statSync(join(dir, "early.gguf.part")).size).toBe(CUT_AFTER);
  });

  it("fewer bytes than Content-Length: says in words that the server closed the connection, how far it got, and that pulling again resumes", async () => {
    const dir = freshDir();
    const error = await refused("shortened, fewer bytes than Content-Length", `${server.origin}/cut/words.gguf`, {
      modelsDir: dir,
    });
    expect(error.code).toBe("network");
    expect(error.message).toMatch(
      /broke off after \d+ bytes: the server closed the connection|closed after \d+ of \d+ bytes/,
    );
    expect(error.message).toMatch(/resume/);
    expect(error.message).not.toMatch(/^[A-Z_]+$|\(UND_ERR_SOCKET\)\.?$/);
  });

  it("a resume after the file changed upstream gets the new file whole (If-Range), never the old prefix spliced onto it", async () => {
    const dir = freshDir();
    const url = `${server.origin}/changing/moving.gguf`;
    const options = { modelsDir: dir };
    expect((await refused("changed upstream, first attempt cut", url, options)).code).toBe("network");
    const { result } = await hostilePull("changed upstream (new ETag), resumed", url, options, CHANGED);
    // the resume asked for the rest of version "v1"; the server had "v2" and sent it whole
    expect(server.requests[1]).toMatchObject({ range: expect.stringMatching(/^bytes=\d+-$/), ifRange: '"v1"' });
    expect(result).toMatchObject({ resumed: false });
    expect(sha256Of(readFileSync(result!.path))).toBe(sha256Of(CHANGED));
    expect(readdirSync(dir)).toEqual(["moving.gguf"]);
  });

  it("two pulls of one file at once: the second refuses while the first runs, and the file is whole", async () => {
    const dir = freshDir();
    const url = `${server.origin}/trickle/twice.gguf`;
    const first = hostilePull("two at once, first", url, { modelsDir: dir }, PAYLOAD);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const second = await refused("two at once, second", url, { modelsDir: dir });
    expect(second.code).toBe("in_progress");
    expect(second.message).toMatch(new RegExp(`Another pull of twice.gguf is running \\(process ${process.pid}\\)`));
    const { result } = await first;
    expect(sha256Of(readFileSync(result!.path))).toBe(PAYLOAD_SHA);
    expect(readdirSync(dir)).toEqual(["twice.gguf"]);
    // a lock left by a pull that died is taken over
    writeFileSync(join(dir, "stale.gguf.part.lock"), "999999999");
    const after = await hostilePull("a stale lock", `${server.origin}/ok/stale.gguf`, { modelsDir: dir }, PAYLOAD);
    expect(sha256Of(readFileSync(after.result!.path))).toBe(PAYLOAD_SHA);
    expect(readdirSync(dir).sort()).toEqual(["stale.gguf", "twice.gguf"]);
  });

  it("a file with bytes after its last tensor is damaged: deleted, never reported as downloaded", async () => {
    const dir = freshDir();
    const bad = await refused("longer than its tensors", `${server.origin}/longer/twice.gguf`, { modelsDir: dir });
    expect(bad.code).toBe("size_mismatch");
    // the header accounts for the payload tensor and the padding after it, to the next 32 bytes
    expect(bad.message).toMatch(
      new RegExp(
        `has ${PAYLOAD.length + 1000} bytes, but its GGUF header accounts for ${Math.ceil(PAYLOAD.length / 32) * 32}`,
      ),
    );
    expectNothingKept(dir, "twice.gguf");
  });

  it("rejects a payload that is not a GGUF (an HTML page) and deletes it", async () => {
    const dir = freshDir();
    const error = await refused("an HTML page", `${server.origin}/html/page.gguf`, { modelsDir: dir });
    expect(error.code).toBe("bad_source");
    expect(error.message).toContain('starts with "<!DO"');
    expectNothingKept(dir, "page.gguf");
  });

  it("refuses a size other than the exact one expected, keeping nothing", async () => {
    const dir = freshDir();
    const error = await refused("not the expected size", `${server.origin}/ok/sized.gguf`, {
      modelsDir: dir,
      expectedBytes: PAYLOAD.length + 1,
    });
    expect(error.code).toBe("size_mismatch");
    expect(error.message).toContain(String(PAYLOAD.length + 1));
    expectNothingKept(dir, "sized.gguf");
  });

  it("checks the size of a response of unknown length once it is complete", async () => {
    const dir = freshDir();
    const error = await refused("unknown length, not the expected size", `${server.origin}/chunked/unsized.gguf`, {
      modelsDir: dir,
      expectedBytes: PAYLOAD.length - 1,
    });
    expect(error.code).toBe("size_mismatch");
    expect(error.message).toContain(`has ${PAYLOAD.length} bytes`);
    expectNothingKept(dir, "unsized.gguf");
  });

  it("refuses a file far from the catalog's approximate size", async () => {
    const dir = freshDir();
    const error = await refused("far from the catalog's size", "test-model", {
      modelsDir: dir,
      catalog: testCatalog(PAYLOAD.length * 10),
      env: { GEMMA_AGENT_HF_ENDPOINT: server.origin },
    });
    expect(error.code).toBe("size_mismatch");
    expect(error.message).toMatch(/catalog expects about/);
    expect(entriesOf(dir)).not.toContain("test-model-Q4_K_M.gguf");
  });

  it("accepts a file near the catalog's approximate size and checks its sha256", async () => {
    const catalog = testCatalog(Math.round(PAYLOAD.length * 1.05), "0".repeat(64));
    const env = { GEMMA_AGENT_HF_ENDPOINT: server.origin };
    const dir = freshDir();
    const error = await refused("not the catalog's sha256", "test-model", { modelsDir: dir, catalog, env });
    expect(error.code).toBe("hash_mismatch");
    expect(error.message).toContain(PAYLOAD_SHA);
    expectNothingKept(dir, "test-model-Q4_K_M.gguf");

    const ok = await pullModel("test-model", {
      modelsDir: freshDir(),
      catalog,
      env,
      sha256: PAYLOAD_SHA.toUpperCase(),
    });
    expect(ok.sha256).toBe(PAYLOAD_SHA);
  });

  it("a crafted GGUF header (no size or hash given) is refused by the final check and deleted, never reported as downloaded", async () => {
    for (const [label, field, expected] of [
      ["crafted: key length 2^31", "length of key general.architecture", /metadata key is 2147483648, more than/],
      ["crafted: a tensor 2^31 wide", "dimension 0 of token_embd.weight", /tensor token_embd\.weight .* does not fit/],
    ] as const) {
      const crafted = await startFileServer(craftedGguf(field), 0);
      try {
        for (const route of ["ok", "chunked"]) {
          const dir = freshDir();
          const error = await refused(`${label}, /${route}/`, `${crafted.origin}/${route}/crafted.gguf`, {
            modelsDir: dir,
          });
          expect(error.message, label).toMatch(expected);
          expect(error.message, label).toMatch(/at byte \d+/);
          expect(entriesOf(dir), label).not.toContain("crafted.gguf");
          // a tensor past the end of a body of unknown length may be a cut transfer: kept to resume, under .part only;
          // anything else is a bad file, deleted
          const resumable = route === "chunked" && field === "dimension 0 of token_embd.weight";
          expect(error.code, label).toBe(resumable ? "network" : "bad_source");
          expect(existsSync(join(dir, "crafted.gguf.part")), label).toBe(resumable);
        }
      } finally {
        await crafted.close();
      }
    }
  });

  it("counts: every bad download attempted above, 0 reported as downloaded, 0 left where models or ask would use it", () => {
    console.log(
      `hostile downloads: ${ledger.attempted} bad downloads attempted, ${ledger.reported.length} reported as downloaded, ${ledger.left.length} left under a model's name`,
    );
    // 17 attempts: the cases above, each counted as it ran (a missing one means a case did not run)
    expect(ledger.attempted).toBe(17);
    expect(ledger.reported).toEqual([]);
    expect(ledger.left).toEqual([]);
  });
});

/** The shipped catalog plus one model served by the test server, with the given approximate size and hash. */
function testCatalog(sizeBytes: number, sha256?: string): Catalog {
  const base = loadCatalog();
  const file = {
    quantization: "Q4_K_M",
    uri: "hf:test/test-model-GGUF/test-model-Q4_K_M.gguf",
    sizeBytes,
    fileName: "test-model-Q4_K_M.gguf",
    sha256,
  };
  const entry = {
    ...base.models[0],
    alias: "test-model",
    aliases: [],
    name: "Test Model",
    defaultQuantization: "Q4_K_M",
    files: [file],
  };
  return { ...base, models: [...base.models, entry] };
}
