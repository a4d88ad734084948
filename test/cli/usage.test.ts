import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/program.js";
import { memoryIO } from "../helpers/memory-io.js";

const emptyModelsDir = () => ({ GEMMA_AGENT_MODELS: mkdtempSync(join(tmpdir(), "ga-models-")) });

async function cli(args: string[], env = emptyModelsDir()) {
  const io = memoryIO(env);
  const code = await runCli(args, io);
  return { code, stdout: io.out.text, stderr: io.err.text };
}

describe("CLI usage errors exit 2 with one clear line", () => {
  it.each([
    [["ask", "hi", "--bogus"], /unknown option '--bogus'/],
    [["ask", "hi", "--max-iterations", "abc"], /expected a whole number, got "abc"/],
    [["ask", "hi", "--max-iterations", "-1"], /expected a whole number >= 1, got -1/],
    [["ask", "hi", "--max-iterations", "0"], /expected a whole number >= 1/],
    [["ask", "hi", "--max-retries", "1.5"], /expected a whole number/],
    [["ask", "hi", "--temperature", "hot"], /expected a number/],
    [["ask", "hi", "--gpu", "maybe"], /Allowed choices are auto, off/],
    [
      ["ask", "hi", "--grounding-levers", "copy,teleport"],
      /--grounding-levers: give some of copy, numbers, strings, answers, comma-separated \(not teleport\)/,
    ],
    [["eval", "evals/basic.json", "--model", "oracle", "--grounding-levers", ","], /--grounding-levers: give some of/],
    [["ask"], /ask: no question on stdin \(it was empty\)/],
    [["frobnicate"], /unknown command 'frobnicate'/],
  ])("%j", async (args, message) => {
    const { code, stdout, stderr } = await cli(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stdout).toBe("");
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it("an unknown skill names the built-in ones", async () => {
    const { code, stderr } = await cli(["ask", "hi", "--skills", "calculator,teleport"]);
    expect(code).toBe(2);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/unknown skill "teleport".*calculator/);
  });

  it("file skills need --allow-dir", async () => {
    const { code, stderr } = await cli(["ask", "hi", "--skills", "read_file"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/read_file needs --allow-dir/);
  });

  it("a missing default model gives the exact pull command when not interactive", async () => {
    const { code, stderr } = await cli(["ask", "hi"]);
    expect(code).toBe(2);
    expect(stderr.trim()).toMatch(
      /^gemma-agent: model gemma-4-e2b:Q4_K_M is not downloaded; run: gemma-agent pull gemma-4-e2b:Q4_K_M$/,
    );
  });

  it("a partly downloaded model: the line says how much is there and that pull resumes it", async () => {
    const env = emptyModelsDir();
    writeFileSync(join(env.GEMMA_AGENT_MODELS, "gemma-4-E2B-it-Q4_K_M.gguf.part"), Buffer.alloc(5_000_000));
    const { code, stderr } = await cli(["ask", "hi"], env);
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(
      "gemma-agent: model gemma-4-e2b:Q4_K_M is partly downloaded (5.00 MB of 3.11 GB); run: gemma-agent pull gemma-4-e2b:Q4_K_M to resume",
    );
  });

  it("hints are written as the tool was started", async () => {
    const io = { ...memoryIO(emptyModelsDir()), command: "npx gemma-agent" };
    expect(await runCli(["ask", "hi"], io)).toBe(2);
    expect(io.err.text).toContain("run: npx gemma-agent pull gemma-4-e2b:Q4_K_M");
  });

  it("a missing model file is a setup error", async () => {
    const { code, stderr } = await cli(["ask", "hi", "--model", "/nonexistent/model.gguf"]);
    expect(code).toBe(2);
    expect(
      stderr
        .trim()
        .split("\n")
        .filter((l) => l.startsWith("gemma-agent:")),
    ).toHaveLength(1);
    expect(stderr).toMatch(/nonexistent\/model\.gguf/);
  });

  it("ask - reads the question from stdin, and so does ask with no question when stdin is piped", async () => {
    const script = join(mkdtempSync(join(tmpdir(), "ga-script-")), "replies.json");
    writeFileSync(script, JSON.stringify([{ final_answer: "four" }]));
    for (const args of [["ask", "-"], ["ask"]]) {
      const io = memoryIO(emptyModelsDir());
      const stdin = new PassThrough();
      stdin.end("What is 2+2?\n");
      const code = await runCli([...args, "--model", `script:${script}`, "--json"], { ...io, stdin });
      expect(code, io.err.text).toBe(0);
      const doc = JSON.parse(io.out.text);
      expect(doc.answer).toBe("four");
      expect(doc.events[0]).toMatchObject({ type: "final-answer" });
    }
  });

  it("ask with no question on a terminal says what to do instead of waiting", async () => {
    const io = memoryIO(emptyModelsDir());
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const code = await runCli(["ask"], { ...io, stdin });
    expect(code).toBe(2);
    expect(io.err.text.trim()).toBe(
      'gemma-agent: ask: give a question in quotes (gemma-agent ask "What is 17% of 2,340?"), or pipe it in',
    );
  });

  it("--help lists every command and exits 0", async () => {
    const { code, stdout } = await cli(["--help"]);
    expect(code).toBe(0);
    for (const name of ["ask", "models", "pull", "inspect"]) expect(stdout).toContain(name);
  });
});
