import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { buildActionJsonSchema, parseAction } from "../../src/actions/index.js";
import { MAX_CALLS_PER_ACTION, MAX_JSON_DEPTH } from "../../src/defaults.js";
import { mathRegistry } from "../helpers/skills.js";
import { parallelReply, type ReplyCall } from "../../src/testing/index.js";

const registry = mathRegistry();
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "ga-hostile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What this file tried and how it ended, printed as one line at its end. */
const counts = { deepRefused: 0, deepTried: 0, cliAnswered: 0, cliRuns: 0, overCapRefused: 0, overCapTried: 0 };
afterAll(() =>
  console.log(
    `hostile replies: ${counts.deepRefused} of ${counts.deepTried} replies nested 100 to 60,000 deep behind a stray quote refused before repair; ${counts.cliAnswered} of ${counts.cliRuns} CLI runs past 4,500-deep replies answered (every output mode, no stack overflow); ${counts.overCapRefused} of ${counts.overCapTried} actions over ${MAX_CALLS_PER_ACTION} calls refused`,
  ),
);

/** `{"x":"abc, "y": [[[…1]]]}`: a stray quote makes a string-aware scan see one long string where jsonrepair builds the nesting. */
const strayQuote = (depth: number) => `{"x":"abc, "y": ${"[".repeat(depth)}1${"]".repeat(depth)}}`;

describe("nesting (issue 18 §5)", () => {
  it("a reply nested past the bound behind a stray quote is refused before it is repaired, at any depth", () => {
    for (const depth of [100, 300, 4_500, 60_000]) {
      counts.deepTried++;
      const action = parseAction(strayQuote(depth), registry);
      expect(action, String(depth)).toMatchObject({ type: "validation-error", errorType: "json_syntax" });
      expect((action as { feedback: string }).feedback).toContain(`nested more than ${MAX_JSON_DEPTH} levels deep`);
      counts.deepRefused++;
    }
  });

  it("brackets a real answer holds in its text still pass", () => {
    const text = `see [1], [2] and ${"[".repeat(100)}`;
    expect(parseAction(JSON.stringify({ final_answer: text }), registry)).toMatchObject({
      type: "final-answer",
      answer: text,
    });
    const nested = JSON.stringify({ final_answer: "ok", thought: "x" }).replace(
      '"x"',
      JSON.stringify(JSON.parse(`${"[".repeat(MAX_JSON_DEPTH - 1)}${"]".repeat(MAX_JSON_DEPTH - 1)}`)),
    );
    expect(parseAction(nested, registry)).toMatchObject({ type: "final-answer", answer: "ok" });
  });

  it("the CLI takes a 4,500-deep reply as a validation error and goes on to the answer, in every output mode", () => {
    const replies = join(dir, "deep.json");
    writeFileSync(
      replies,
      JSON.stringify([
        strayQuote(4_500),
        `{"final_answer": ${"[".repeat(4_500)}${"]".repeat(4_500)}}`,
        { final_answer: "ok" },
      ]),
    );
    for (const mode of [["--json"], [], ["--trace", join(dir, "trace.jsonl")]]) {
      const run = spawnSync(
        process.execPath,
        [join(ROOT, "dist/cli/main.js"), "ask", "hi", "--model", `script:${replies}`, ...mode],
        { encoding: "utf8", timeout: 30_000 },
      );
      counts.cliRuns++;
      expect(run.status, run.stderr).toBe(0);
      expect(run.stderr).not.toMatch(/call stack/i);
      expect(run.stdout).toContain("ok");
      counts.cliAnswered++;
    }
    const events = readFileSync(join(dir, "trace.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events.filter((e) => e.type === "validation-error")).toHaveLength(2);
  });
});

describe("calls per action (issue 18 §5)", () => {
  const calls = (n: number) => parallelReply(Array.from({ length: n }, (_, i): ReplyCall => ["add", { a: i, b: 1 }]));

  it(`one action holds at most ${MAX_CALLS_PER_ACTION} calls: more is a validation error the model sees, however many`, () => {
    expect(parseAction(calls(MAX_CALLS_PER_ACTION), registry, { parallelCalls: true })).toMatchObject({
      type: "call-skills",
    });
    // 10,000 calls are past the reply size bound already; 1,000 are not
    counts.overCapTried++;
    expect(parseAction(calls(10_000), registry, { parallelCalls: true })).toMatchObject({
      type: "validation-error",
      errorType: "json_syntax",
    });
    counts.overCapRefused++;
    for (const n of [MAX_CALLS_PER_ACTION + 1, 1_000]) {
      counts.overCapTried++;
      const action = parseAction(calls(n), registry, { parallelCalls: true }) as { type: string; feedback: string };
      expect(action.type).toBe("validation-error");
      expect(action.feedback).toContain(`at most ${MAX_CALLS_PER_ACTION} calls`);
      expect(action.feedback.length).toBeLessThan(2_000);
      counts.overCapRefused++;
    }
  });

  it("the grammar allows no more", () => {
    const schema = buildActionJsonSchema(registry, { parallelCalls: true }) as {
      anyOf: Array<{ properties: Record<string, { maxItems?: number }> }>;
    };
    const branch = schema.anyOf.find((b) => b.properties.calls);
    expect(branch?.properties.calls.maxItems).toBe(MAX_CALLS_PER_ACTION);
  });
});
