/**
 * Crash trials of a download (`pull URL`): a server on 127.0.0.1 serves a 1.5 MB GGUF slowly (32 KB pieces 10 ms
 * apart, with an ETag, honouring `Range` and `If-Range`), and `pull` is killed at a random point, up to three times in
 * a row into the same models folder; then a pull to the end. After each kill no file other than the whole GGUF sits
 * under the model's name, a `.part` holds a prefix of it, and a path printed by the killed pull (its "done") is the
 * whole file; the last pull resumes or restarts and ends with the whole file, nothing else left.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gemmaLikeGguf } from "../../helpers/gemma-like-gguf.js";
import {
  calibrate,
  described,
  drawKill,
  runCli,
  startCli,
  windowText,
  type CrashWriter,
  type KillWindow,
  type PreparedWriter,
  type TrialContext,
} from "./harness.js";

/** The file served: a GGUF of 1.5 MB. */
export const PAYLOAD = gemmaLikeGguf({ name: "Crash Test Model", payloadBytes: 1536 * 1024 + 77 });
const PIECE = 32 * 1024;
const PIECE_MS = 10;
const ETAG = '"crash-v1"';
/** The file's name, in the URL and in the models folder. */
export const FILE = "crash-model.gguf";

/** The slow server on 127.0.0.1: the payload from the requested offset (`Range`, `If-Range`), a piece at a time. */
export async function startSlowServer(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? "");
    const ifRange = req.headers["if-range"];
    const start = range && (ifRange === undefined || ifRange === ETAG) ? Number(range[1]) : 0;
    if (start >= PAYLOAD.length) {
      res.writeHead(416, { "content-range": `bytes */${PAYLOAD.length}` });
      return void res.end();
    }
    const headers = {
      etag: ETAG,
      "content-type": "application/octet-stream",
      "content-length": PAYLOAD.length - start,
    };
    if (start > 0)
      res.writeHead(206, { ...headers, "content-range": `bytes ${start}-${PAYLOAD.length - 1}/${PAYLOAD.length}` });
    else res.writeHead(200, headers);
    let at = start;
    const next = () => {
      if (res.destroyed) return;
      const piece = PAYLOAD.subarray(at, at + PIECE);
      at += piece.length;
      if (at >= PAYLOAD.length) return void res.end(piece);
      res.write(piece, () => setTimeout(next, PIECE_MS));
    };
    next();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/models/${FILE}` };
}

const pull = (url: string) => ["pull", url];

export const downloadWriter: CrashWriter = {
  name: "download",
  async prepare(work, cli, log) {
    const { server, url } = await startSlowServer();
    const models = join(work, "models");
    const { run, window } = await calibrate(cli, pull(url), models, { env: { GEMMA_AGENT_MODELS: models } });
    if (run.status !== 0 || !readFileSync(join(models, FILE)).equals(PAYLOAD))
      throw new Error(`reference pull: ${described(run)}`);
    log(`download: a pull writes from ${windowText(window)}`);
    return {
      trial: (context: TrialContext) => downloadTrial(context, cli, url, window),
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    } satisfies PreparedWriter;
  },
};

async function downloadTrial(context: TrialContext, cli: string, url: string, window: KillWindow): Promise<void> {
  const { random, dir, tally } = context;
  const models = join(dir, "models");
  mkdirSync(models, { recursive: true });
  const env = { GEMMA_AGENT_MODELS: models };
  const kills = 1 + Math.floor(random() * Math.min(3, context.killsLeft));
  for (let k = 0; k < kills; k++) {
    const run = startCli(cli, pull(url), { env, watch: models });
    run.killAt(drawKill(random, window));
    const ended = await run.result;
    if (!ended.killed) {
      if (ended.status !== 0) tally.failures.push(`a pull after a kill: ${described(ended)}`);
      break;
    }
    tally.kills++;
    checkFolder(context, models, ended.stdout.includes(FILE));
  }
  const final = await runCli(cli, pull(url), { env });
  if (final.status !== 0 || !final.stdout.includes(FILE)) {
    tally.failures.push(`the pull after the kills: ${described(final)}`);
    return;
  }
  const path = join(models, FILE);
  if (!existsSync(path) || !readFileSync(path).equals(PAYLOAD)) tally.partialAccepted++;
  const left = readdirSync(models).filter((name) => name !== FILE);
  if (left.length) tally.failures.push(`left after the pull: ${left.join(", ")}`);
}

/** The models folder after a kill: the model's name holds the whole file or nothing; a `.part` holds a prefix. */
function checkFolder(context: TrialContext, models: string, reportedDone: boolean): void {
  const { tally } = context;
  const path = join(models, FILE);
  const whole = existsSync(path) && readFileSync(path).equals(PAYLOAD);
  if (existsSync(path) && !whole) tally.partialAccepted++;
  if (reportedDone && !whole) tally.partialAccepted++;
  for (const name of readdirSync(models)) {
    if (name === FILE || /\.part(\.lock|\.validator)?$/.test(name)) continue;
    tally.failures.push(`after a kill, ${name} is in the models folder`);
  }
  const part = `${path}.part`;
  if (!existsSync(part)) return;
  const size = statSync(part).size;
  if (size > 0 && size < PAYLOAD.length) tally.midWrite++;
  if (!readFileSync(part).equals(PAYLOAD.subarray(0, size)))
    tally.failures.push(`a .part of ${size} bytes is not a prefix of the file`);
}
