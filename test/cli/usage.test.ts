import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
    [["ask"], /missing required argument 'question'/],
    [["frobnicate"], /unknown command 'frobnicate'/],
  ])("%j", async (args, message) => {
    const { code, stdout, stderr } = await cli(args as string[]);
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
    expect(stderr.trim()).toMatch(/^gemma-agent: model gemma-4-e2b:Q4_K_M is not downloaded; run: gemma-agent pull gemma-4-e2b:Q4_K_M$/);
  });

  it("a missing model file is a setup error", async () => {
    const { code, stderr } = await cli(["ask", "hi", "--model", "/nonexistent/model.gguf"]);
    expect(code).toBe(2);
    expect(stderr.trim().split("\n").filter((l) => l.startsWith("gemma-agent:"))).toHaveLength(1);
    expect(stderr).toMatch(/nonexistent\/model\.gguf/);
  });

  it("--help lists every command and exits 0", async () => {
    const { code, stdout } = await cli(["--help"]);
    expect(code).toBe(0);
    for (const name of ["ask", "models", "pull", "inspect"]) expect(stdout).toContain(name);
  });
});
