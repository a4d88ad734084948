/**
 * Agent definitions, SOUL.md files and output schemas as a hostile file would be (issue 29), through the built CLI
 * (`agent inspect` and `run`): FIFOs, devices and huge files, a fan-out of nested files, catastrophic and invalid
 * regular expressions, `$ref` loops, a file with several mistakes. Each probe must be refused in one line with exit 2
 * (or, for a pattern that only bites on the answer, end the run in bounded time), never hang, never pass 300 MB.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generalFailures, refusalFailures, runHostile, Tally } from "../helpers/hostile-cli.js";

const dir = mkdtempSync(join(tmpdir(), "ga-hostile-defs-"));
const tally = new Tally();
afterAll(() => {
  console.log(tally.line("hostile definitions"));
  rmSync(dir, { recursive: true, force: true });
});

/** Write `files` (relative path → text) under a fresh folder; returns it. */
function folder(name: string, files: Record<string, string>): string {
  const base = join(dir, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(base, file, ".."), { recursive: true });
    writeFileSync(join(base, file), text);
  }
  return base;
}

const fifo = (path: string) => execFileSync("mkfifo", [path]);

/** A scripted model answering `answer` (a string or a typed reply) at once. */
function script(base: string, answer: unknown): string {
  const path = join(base, "replies.json");
  writeFileSync(path, JSON.stringify([{ final_answer: answer }]));
  return `script:${path}`;
}

/** Refused by both `agent inspect` and `run`, one line each, exit 2, matching `message`. */
async function refusedBoth(name: string, file: string, message: RegExp): Promise<void> {
  for (const args of [
    ["agent", "inspect", file],
    ["run", file, "hi", "--model", script(dir, "ok")],
  ]) {
    const run = await runHostile(args, { timeoutMs: 15_000 });
    const failures = refusalFailures(run);
    if (!message.test(run.stderr)) failures.push(`stderr does not say ${message}: ${run.stderr.slice(0, 200)}`);
    tally.record(`${name} (${args[0]})`, failures);
  }
}

describe("hostile agent definitions (issue 29)", () => {
  it("FIFOs and devices as the definition, the soul or the schema file are refused at once", async () => {
    const start = tally.failed.length;
    const base = folder("fifo", {
      "soul.yaml": "name: s\nsoul: ./SOUL.md\n",
      "schema.yaml": "name: s\noutput_schema: { file: ./schema.json }\n",
      "zero-schema.yaml": "name: s\noutput_schema: { file: /dev/zero }\n",
      "zero-soul.yaml": "name: s\nsoul: /dev/zero\n",
    });
    fifo(join(base, "agent.yaml"));
    fifo(join(base, "SOUL.md"));
    fifo(join(base, "schema.json"));
    await refusedBoth("FIFO definition", join(base, "agent.yaml"), /not a regular file/);
    await refusedBoth("FIFO soul", join(base, "soul.yaml"), /soul: .*not a regular file/);
    await refusedBoth("FIFO schema", join(base, "schema.yaml"), /output_schema\.file: .*not a regular file/);
    await refusedBoth("/dev/zero definition", "/dev/zero", /not a regular file/);
    await refusedBoth("/dev/zero schema", join(base, "zero-schema.yaml"), /not a regular file/);
    await refusedBoth("/dev/zero soul", join(base, "zero-soul.yaml"), /not a regular file/);
    expect(tally.failed.slice(start)).toEqual([]);
  }, 120_000);

  it("huge files are refused by their size before they are read", async () => {
    const start = tally.failed.length;
    const base = folder("huge", {
      "agent.yaml": "name: s\noutput_schema: { file: ./schema.json }\n",
      "soul.yaml": "name: s\nsoul: ./SOUL.md\n",
    });
    for (const [file, size] of [
      ["schema.json", 300 << 20],
      ["SOUL.md", 2 << 20],
      ["big.yaml", 4 * 2 ** 30],
    ] as const) {
      writeFileSync(join(base, file), "");
      truncateSync(join(base, file), size); // sparse: costs no disk
    }
    await refusedBoth("300 MB schema", join(base, "agent.yaml"), /over the 1048576-byte limit/);
    await refusedBoth("2 MB soul", join(base, "soul.yaml"), /over the 1048576-byte limit/);
    await refusedBoth("4 GB definition", join(base, "big.yaml"), /over the 1048576-byte limit/);
    expect(tally.failed.slice(start)).toEqual([]);
  }, 120_000);

  it("a fan-out of nested files is loaded and built once per file; past the bound it is refused", async () => {
    const start = tally.failed.length;
    const files: Record<string, string> = {};
    const depth = 24;
    for (let i = 0; i < depth; i++) {
      const next = `./a${i + 1}.yaml`;
      files[`a${i}.yaml`] =
        i === depth - 1
          ? `name: a${i}\ndescription: leaf\ntools: [calculator]\n`
          : `name: a${i}\ndescription: level ${i}\ntools:\n  - { name: left, type: agent, agent: ${next} }\n  - { name: right, type: agent, agent: ${next} }\n`;
    }
    for (let i = 0; i < 70; i++)
      files[`c${i}.yaml`] =
        i === 69
          ? "name: last\ndescription: end\n"
          : `name: c${i}\ndescription: c\ntools: [{ name: next, type: agent, agent: ./c${i + 1}.yaml }]\n`;
    const base = folder("fanout", files);
    for (const args of [
      ["agent", "inspect", join(base, "a0.yaml")],
      ["run", join(base, "a0.yaml"), "hi", "--model", script(base, "done")],
    ]) {
      const run = await runHostile(args, { timeoutMs: 20_000 });
      const failures = generalFailures(run);
      if (run.status !== 0) failures.push(`exit ${run.status}: ${run.stderr.slice(0, 200)}`);
      if (run.ms > 10_000) failures.push(`took ${Math.round(run.ms)} ms`);
      tally.record(`fan-out of 24 files (${args[0]}, ${Math.round(run.ms)} ms, ${run.peakMb.toFixed(0)} MB)`, failures);
    }
    await refusedBoth("a chain of 70 files", join(base, "c0.yaml"), /more than 64 files/);
    expect(tally.failed.slice(start)).toEqual([]);
  }, 120_000);

  it("bad regular expressions and $ref loops are refused at load", async () => {
    const start = tally.failed.length;
    const schema = (s: unknown) => `name: s\noutput_schema: ${JSON.stringify(s)}\n`;
    const deep = '{"type":"object","properties":{"a":'.repeat(5_000) + "{}" + "}}".repeat(5_000);
    const base = folder("regex", {
      "bad-forbidden.yaml": "name: s\nconstraints: { forbidden_patterns: ['/(a/'] }\n",
      "defs-loop.yaml": schema({ $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" }),
      "ref-root.yaml": schema({ $ref: "#" }),
      "required-self.yaml": schema({ type: "object", properties: { x: { $ref: "#" } }, required: ["x"] }),
      "bad-pattern.yaml": schema({ type: "object", properties: { x: { type: "string", pattern: "(a" } } }),
      "deep.yaml": "name: s\noutput_schema: { file: ./deep.json }\n",
      "deep.json": deep,
    });
    await refusedBoth(
      "invalid forbidden pattern",
      join(base, "bad-forbidden.yaml"),
      /forbidden_patterns\[0\]: not a valid/,
    );
    await refusedBoth("$defs a → b → a", join(base, "defs-loop.yaml"), /a loop no finite value can match/);
    await refusedBoth('{"$ref":"#"}', join(base, "ref-root.yaml"), /a loop no finite value can match: # → #/);
    await refusedBoth("a required property that is the schema", join(base, "required-self.yaml"), /a loop/);
    await refusedBoth("invalid schema pattern", join(base, "bad-pattern.yaml"), /pattern: not a valid regular/);
    await refusedBoth("schema nested 5,000 deep", join(base, "deep.yaml"), /nested deeper than 64/);
    expect(tally.failed.slice(start)).toEqual([]);
  }, 120_000);

  it("a catastrophic pattern on the answer ends the run in bounded time (forbidden_patterns, schema pattern)", async () => {
    const start = tally.failed.length;
    const evil = "a".repeat(40) + "!";
    const base = folder("catastrophic", {
      "forbidden.yaml": "name: s\nconstraints: { forbidden_patterns: ['/^(a+)+$/'] }\n",
      "schema.yaml": `name: s\nloop_policy: { max_retries: 0, max_iterations: 1 }\noutput_schema: ${JSON.stringify({
        type: "object",
        properties: { v: { type: "string", pattern: "^(a+)+$" } },
        required: ["v"],
      })}\n`,
    });
    const forbidden = await runHostile(["run", join(base, "forbidden.yaml"), "hi", "--model", script(base, evil)], {
      timeoutMs: 20_000,
    });
    const f1 = generalFailures(forbidden);
    if (forbidden.status !== 1 || !/took over 1000 ms/.test(forbidden.stderr + forbidden.stdout))
      f1.push(`exit ${forbidden.status}: ${forbidden.stderr.slice(0, 300)}`);
    tally.record(`catastrophic forbidden pattern (${Math.round(forbidden.ms)} ms)`, f1);
    const typed = await runHostile(["run", join(base, "schema.yaml"), "hi", "--model", script(base, { v: evil })], {
      timeoutMs: 20_000,
    });
    const f2 = generalFailures(typed);
    if (typed.status === 0) f2.push("the answer was accepted");
    tally.record(`catastrophic schema pattern (${Math.round(typed.ms)} ms)`, f2);
    expect(tally.failed.slice(start)).toEqual([]);
  }, 60_000);

  it("a file with several mistakes reports them all at once, as one refusal (issue 28 item 6)", async () => {
    const start = tally.failed.length;
    const base = folder("mistakes", {
      "agent.yaml": "name: my helper\ntool: [calculator]\nloop_polcy: { max_iterations: 3 }\n",
    });
    const run = await runHostile(["agent", "inspect", join(base, "agent.yaml")]);
    const failures = refusalFailures(run);
    for (const field of [/name: expected a name/, /tool: unknown key; did you mean tools\?/, /loop_polcy: unknown key/])
      if (!field.test(run.stderr)) failures.push(`not said: ${field}`);
    if (!/3 problems/.test(run.stderr)) failures.push(`stderr: ${run.stderr}`);
    tally.record("three mistakes in one file", failures);
    expect(tally.failed.slice(start)).toEqual([]);
  });
});
