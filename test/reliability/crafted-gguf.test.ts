import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { baseGguf, craftedGgufFiles } from "./crafted-gguf.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "ga-crafted-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Checks every file in one child process (the product's built code), one JSON line each, then its peak RSS. */
const CHILD = `
import { readdirSync } from "node:fs";
import { join } from "node:path";
const { checkGgufFile } = await import(process.env.GA_ROOT + "dist/model/gguf/gguf-check.js");
const dir = process.env.GA_DIR;
for (const file of readdirSync(dir).sort()) {
  const start = performance.now();
  let outcome;
  try { await checkGgufFile(join(dir, file)); outcome = { ok: true }; }
  catch (error) { outcome = { ok: false, name: error?.name, code: error?.code, message: String(error?.message).slice(0, 600) }; }
  console.log(JSON.stringify({ file, ms: performance.now() - start, ...outcome }));
}
console.log(JSON.stringify({ maxRssMb: process.resourceUsage().maxRSS / 1024 }));
`;

/** The fields of a GGUF header, as the reader's errors name them (the field where it found the problem). */
const HEADER_FIELD = new RegExp(
  [
    "\\b(magic|version|tensor count|metadata entry count|metadata key|value type|value of|length of|items of",
    "string length in|a string in|general\\.alignment|arrays nested|(name|type|data offset|dimension count) of tensor",
    "dimension \\d of tensor|tensor \\S+ (has|rows|data offset|\\()|tensor \\d+ has no name|tensor name|tensor data",
    "metadata \\(bytes \\d+ to \\d+\\) has no string general\\.architecture)",
  ].join("|"),
);

/**
 * True when `message` names a byte offset that fits the file: `at byte N` inside it, `runs to byte E of a S-byte file`
 * past its end (S its real size), or a range `bytes A to B` inside it.
 */
function namesAnOffset(message: string, fileSize: number): boolean {
  const at = /\bat byte (\d+)/.exec(message);
  if (at) return Number(at[1]) <= fileSize;
  const past = /\bruns to byte (\d+) of a (\d+)-byte file/.exec(message);
  if (past) return Number(past[2]) === fileSize && Number(past[1]) > fileSize;
  const range = /\bbytes (\d+) to (\d+)\b/.exec(message);
  return range !== null && Number(range[1]) < Number(range[2]) && Number(range[2]) <= fileSize;
}

interface Outcome {
  file: string;
  ms: number;
  ok: boolean;
  name?: string;
  code?: string;
  message?: string;
}

function checkAll(): Promise<{
  outcomes: Outcome[];
  maxRssMb: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD], {
      env: { ...process.env, GA_ROOT: ROOT, GA_DIR: dir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("close", (code, signal) => {
      const lines = stdout
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      const last = lines.at(-1) ?? {};
      resolve({ outcomes: lines.filter((l) => "file" in l), maxRssMb: last.maxRssMb ?? NaN, code, signal, stderr });
    });
  });
}

describe("crafted GGUF files (issue 18 §1)", () => {
  it("every length, count, type, dimension, offset and truncation gives a typed error in under 2 s, under 300 MB, the process alive", async () => {
    const files = craftedGgufFiles();
    const names = new Map<string, string>();
    const sizes = new Map<string, number>();
    files.forEach((file, index) => {
      const name = `${String(index).padStart(4, "0")}.gguf`;
      names.set(name, file.name);
      sizes.set(name, file.bytes.length);
      writeFileSync(join(dir, name), file.bytes);
    });
    writeFileSync(join(dir, "base.gguf"), baseGguf().bytes);
    const { outcomes, maxRssMb, code, signal, stderr } = await checkAll();
    expect({ code, signal }, stderr).toEqual({ code: 0, signal: null });
    expect(outcomes).toHaveLength(files.length + 1);
    const base = outcomes.find((o) => o.file === "base.gguf")!;
    expect(base.ok, base.message).toBe(true);
    const refused = outcomes.filter((o) => !o.ok);
    const accepted = outcomes.filter((o) => o.ok && o.file !== "base.gguf").map((o) => names.get(o.file));
    const located = refused.filter(
      (o) => HEADER_FIELD.test(o.message ?? "") && namesAnOffset(o.message ?? "", sizes.get(o.file)!),
    );
    console.log(
      `crafted GGUF files: ${files.length} variants, ${refused.length} refused (${located.length} naming the field and its byte offset), ${accepted.length} still valid (${accepted.join("; ")}); slowest ${Math.max(...outcomes.map((o) => o.ms)).toFixed(0)} ms; peak RSS ${maxRssMb.toFixed(0)} MB`,
    );
    for (const outcome of refused) {
      const what = `${names.get(outcome.file)}: ${outcome.message}`;
      expect(outcome.name, what).toBe("ModelLoadError");
      expect(["corrupt", "not_gguf"], what).toContain(outcome.code);
      expect(outcome.message, what).toMatch(HEADER_FIELD);
      expect(namesAnOffset(outcome.message!, sizes.get(outcome.file)!), what).toBe(true);
    }
    for (const outcome of outcomes) expect(outcome.ms, names.get(outcome.file)).toBeLessThan(2000);
    expect(maxRssMb).toBeLessThan(300);
    // Every cut is refused, and every length, count, dimension or offset set to a huge value. What stays valid is a
    // plain value (a context length, a token type), another type or dimension of the same padded size, or a tensor
    // count that leaves the later tensor infos as data (llama.cpp then reports the missing tensor).
    for (const name of accepted) {
      expect(name).not.toMatch(/^cut at/);
      if (/^(length|inner length|tensor count|metadata entry count|dimension|data offset)/.test(name!))
        expect(name).not.toMatch(/= 2\^/);
    }
    expect(refused.length).toBeGreaterThan(files.length * 0.8);
  }, 120_000);
});
