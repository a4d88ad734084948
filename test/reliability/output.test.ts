import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { entriesOf } from "../helpers/dir-entries.js";

const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "ga-output-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What this file measured, printed as one line at its end. */
const counts = { jsonBytes: 0, fullExit: NaN, fullTraceEvents: 0, fifoExit: NaN, traceKeptBytes: 0, traceRefusals: 0 };
afterAll(() =>
  console.log(
    `output: ${counts.jsonBytes} bytes of --json read whole through a pipe whose reader slept 1.5 s; stdout on /dev/full: exit ${counts.fullExit}, the answer kept as the last of the trace's events (${counts.fullTraceEvents}); --trace to a FIFO: exit ${counts.fifoExit}; an existing trace (${counts.traceKeptBytes} bytes) kept byte for byte after ${counts.traceRefusals} refused overwrite`,
  ),
);

/** A scripted model whose one reply is a 150,000-character answer: the --json document is over 300 KB. */
const bigScript = () => {
  const path = join(dir, "big.json");
  writeFileSync(path, JSON.stringify([{ final_answer: "word ".repeat(30_000) }]));
  return `script:${path}`;
};

describe("output that must not go missing (issue 18 §4)", () => {
  it("--json through a pipe whose reader sleeps first arrives whole", async () => {
    const child = spawn(process.execPath, [CLI, "ask", "hi", "--model", bigScript(), "--json", "--quiet"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // the reader sleeps; the run is over long before
    let stdout = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    counts.jsonBytes = Buffer.byteLength(stdout);
    expect(stdout.length).toBeGreaterThan(300_000);
    expect(JSON.parse(stdout).answer).toBe("word ".repeat(30_000).trim());
  }, 60_000);

  it("stdout on a full device: exit 1, a line that says what failed, and the trace holds the answer", () => {
    const trace = join(dir, "full.jsonl");
    const run = spawnSync(
      "sh",
      ["-c", `"${process.execPath}" "${CLI}" ask hi --model ${bigScript()} --quiet --trace "${trace}" > /dev/full`],
      { encoding: "utf8" },
    );
    counts.fullExit = run.status ?? NaN;
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/cannot write the output to stdout \(ENOSPC\)/);
    const events = readFileSync(trace, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    counts.fullTraceEvents = events.length;
    expect(events.at(-1)).toMatchObject({ type: "final-answer", answer: "word ".repeat(30_000).trim() });
  });

  it("--trace refuses a FIFO at once and never replaces an earlier trace unless told to", () => {
    const fifo = join(dir, "fifo.jsonl");
    execFileSync("mkfifo", [fifo]);
    const script = join(dir, "ok.json");
    writeFileSync(script, JSON.stringify([{ final_answer: "ok" }]));
    const ask = (trace: string, ...more: string[]) =>
      spawnSync(
        process.execPath,
        [CLI, "ask", "hi", "--model", `script:${script}`, "--quiet", "--trace", trace, ...more],
        { encoding: "utf8", timeout: 15_000 },
      );
    const toFifo = ask(fifo);
    counts.fifoExit = toFifo.status ?? NaN;
    expect(toFifo.status).toBe(2);
    expect(toFifo.stderr).toMatch(/--trace: .*fifo\.jsonl is not a regular file/);

    const trace = join(dir, "kept.jsonl");
    expect(ask(trace).status).toBe(0);
    const first = readFileSync(trace, "utf8");
    expect(first).toContain('"final-answer"');
    const again = ask(trace);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/kept\.jsonl already exists; give a new path, or add --overwrite-trace/);
    expect(readFileSync(trace, "utf8")).toBe(first);
    counts.traceRefusals++;
    counts.traceKeptBytes = Buffer.byteLength(first);
    expect(ask(trace, "--overwrite-trace").status).toBe(0);

    // a run that never started leaves no empty trace behind to refuse the next one
    const unused = join(dir, "unused.jsonl");
    expect(ask(unused, "--model", join(dir, "missing.gguf")).status).toBe(2);
    expect(entriesOf(dir)).not.toContain("unused.jsonl");
  });
});
