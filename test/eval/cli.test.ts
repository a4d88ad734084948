import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/program.js";
import { memoryIO } from "../helpers/memory-io.js";
import { entriesOf } from "../helpers/dir-entries.js";

const BASIC = join(import.meta.dirname, "../../evals/basic.json");
const BFCL = join(import.meta.dirname, "../../evals/bfcl");

async function run(...argv: string[]) {
  const io = memoryIO();
  const code = await runCli(["eval", ...argv], io);
  return { code, out: io.out.text, err: io.err.text };
}

describe("gemma-agent eval", () => {
  it("runs a suite, prints the summary, writes the three report files, and draws no progress bar off a terminal", async () => {
    const out = mkdtempSync(join(tmpdir(), "eval-cli-"));
    const result = await run(
      BASIC,
      "--model",
      "oracle,profile:e2b-like",
      "--budgets",
      "4,8",
      "--seeds",
      "2",
      "--out",
      out,
    );
    expect(result.code).toBe(0);
    expect(result.err).toBe("");
    expect(result.out).toMatch(/^model\s+budget\s+success/);
    expect(result.out).toMatch(/oracle\s+8\s+100\.0% \(72\/72\)/);
    expect(result.out).toContain(`Wrote ${join(out, "report.json")}`);
    expect(entriesOf(out)).toEqual(expect.arrayContaining(["report.json", "report.md", "convergence.svg"]));
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8"));
    expect(report).toMatchObject({ models: ["oracle", "profile:e2b-like"], budgets: [4, 8], seeds: [1, 2], tasks: 36 });
  });

  it("with --json prints the report as one JSON document", async () => {
    const result = await run(BASIC, "--model", "heuristic", "--budgets", "8", "--json");
    expect(result.code).toBe(0);
    const report = JSON.parse(result.out);
    expect(report.kind).toBe("suite");
    expect(report.aggregates).toHaveLength(1);
  });

  it("runs a BFCL category and lists its dataset inconsistencies", async () => {
    const result = await run("--bfcl", BFCL, "--category", "parallel_multiple", "--model", "oracle");
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/oracle\s+8\s+100\.0% \(196\/196\)/);
    expect(result.out).toContain(
      "4 dataset inconsistencies (parallel_multiple_12, parallel_multiple_21, parallel_multiple_26, parallel_multiple_94)",
    );
  });

  it("reads the BFCL copy the package carries when --bfcl names no folder", async () => {
    const result = await run("--bfcl", "--category", "simple_python", "--model", "oracle", "--limit", "5");
    expect(result.err).toBe("");
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/oracle\s+8\s+100\.0% \(5\/5\)/);
  });

  it.each([
    [["--model", "oracle"], "eval: give a SUITE file, or --bfcl [DIR] --category NAME"],
    [[BASIC, "--bfcl", BFCL, "--model", "oracle"], "eval: give a SUITE file or --bfcl DIR, not both"],
    [["--bfcl", BFCL, "--model", "oracle"], "eval --bfcl: --category NAME is needed"],
    [[BASIC, "--category", "simple", "--model", "oracle"], "eval: --category goes with --bfcl"],
    [[BASIC], "eval: --model is needed"],
    [
      [BASIC, "--model", "profile:nope"],
      'unknown failure profile "nope" (known: perfect, e4b-like, e2b-like, chaotic)',
    ],
    [[BASIC, "--model", "replay:/no/such/trace.jsonl"], "no trace file or directory /no/such/trace.jsonl"],
    [[join(tmpdir(), "no-such-suite.json"), "--model", "oracle"], "cannot read suite"],
    [["--bfcl", BFCL, "--category", "nope", "--model", "oracle"], "categories in"],
    [
      ["--bfcl", BFCL, "--category", "simple_python", "--model", "heuristic"],
      "the heuristic planner knows the built-in skills only",
    ],
    [[BASIC, "--model", "oracle,oracle"], "a model is named twice"],
  ])("refuses %j with one line and exit 2", async (argv, message) => {
    const result = await run(...argv);
    expect(result.code).toBe(2);
    expect(result.out).toBe("");
    expect(result.err).toContain(message);
    expect(result.err.trimEnd().split("\n")).toHaveLength(1);
  });

  it.each([
    [["--budgets", "0"], "expected a whole number >= 1"],
    [["--budgets", "4,x"], 'expected a whole number, got "x"'],
    [["--seeds", "0"], "expected a whole number >= 1"],
    [["--gpu", "cuda"], "Allowed choices are auto, off"],
  ])("refuses a bad flag value %j with exit 2", async (flags, message) => {
    const result = await run(BASIC, "--model", "oracle", ...flags);
    expect(result.code).toBe(2);
    expect(result.err).toContain(message);
  });

  it("reports an invalid suite file on one line, naming the bad fields", async () => {
    const dir = mkdtempSync(join(tmpdir(), "eval-cli-"));
    const file = join(dir, "broken.json");
    writeFileSync(
      file,
      JSON.stringify({ name: "b", tasks: [{ id: "x", query: "q", skills: ["nope"], expected: { matches: "(" } }] }),
    );
    const result = await run(file, "--model", "oracle");
    expect(result.code).toBe(2);
    expect(result.err.trimEnd().split("\n")).toHaveLength(1);
    expect(result.err).toMatch(
      /broken\.json is not a valid suite: tasks\[0\]\.expected\.matches: not a valid regular expression/,
    );
  });

  it("--task runs one task of a suite: one run's trace replays against its own task, and a single trace against many is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "eval-cli-"));
    const replies = join(dir, "replies.json");
    writeFileSync(
      replies,
      JSON.stringify([
        { skill_name: "calculator", arguments: { expression: "15/100*80" } },
        { final_answer: "15% of 80 is 12." },
      ]),
    );
    const trace = join(dir, "percent.jsonl");
    const recorded = await runCli(
      [
        "ask",
        "What is 15% of 80?",
        "--model",
        `script:${replies}`,
        "--skills",
        "calculator",
        "--trace",
        trace,
        "--quiet",
      ],
      memoryIO(),
    );
    expect(recorded).toBe(0);
    const one = await run(BASIC, "--task", "arith-percent", "--model", `replay:${trace}`, "--budgets", "8", "--json");
    expect(one.code).toBe(0);
    const report = JSON.parse(one.out);
    expect(report.tasks).toBe(1);
    expect(report.runs).toHaveLength(1);
    expect(report.runs[0]).toMatchObject({ taskId: "arith-percent", success: true, failures: [] });
    const all = await run(BASIC, "--model", `replay:${trace}`);
    expect(all.code).toBe(2);
    expect(all.err).toMatch(/is the trace of one run, and this eval has 36 tasks: pick its task with --task ID/);
    const two = await run(BASIC, "--task", "arith-percent,arith-sqrt", "--model", "oracle", "--json");
    expect(JSON.parse(two.out).runs.map((r: { taskId: string }) => r.taskId)).toEqual(
      expect.arrayContaining(["arith-percent", "arith-sqrt"]),
    );
    const unknown = await run(BASIC, "--task", "nope", "--model", "oracle");
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/no task "nope" here \(the 36 tasks include arith-mul-add, arith-percent/);
  });

  it("returns 130 and writes what it has when interrupted", async () => {
    const io = memoryIO();
    const out = mkdtempSync(join(tmpdir(), "eval-cli-"));
    queueMicrotask(() => io.controller.abort(new Error("Ctrl-C")));
    const code = await runCli(
      ["eval", BASIC, "--model", "profile:chaotic", "--budgets", "4,8,12,16", "--seeds", "20", "--out", out],
      io,
    );
    expect(code).toBe(130);
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8"));
    expect(report.interrupted).toBe(true);
    expect(report.runs.length).toBeLessThan(4 * 20 * 36);
  });
});
