/**
 * `--help` reads in sections: the built CLI's help of the agent commands and of `eval` lists each flag under its
 * section (model, server, run or tasks, output), the levers kept for measurements last, and `eval`'s three
 * concurrency knobs together under what runs at once.
 */
import { describe, expect, it } from "vitest";
import { runCli } from "../http/run-cli.js";

const LEVERS = "Levers, for measurements (the defaults are the measured best):";

/** The help's sections in order (up to the examples), each with the flags it lists (`--name` of each item line). */
function sections(help: string): Map<string, string[]> {
  const result = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of help.split("\nExamples:\n")[0].split("\n")) {
    if (/^\S.*:$/.test(line)) result.set(line, (current = []));
    else if (/^\S/.test(line)) current = undefined;
    const flag = /^ {2}(?:-\w, )?(--[\w-]+)/.exec(line)?.[1];
    if (flag && current) current.push(flag);
  }
  return result;
}

async function helpSections(command: string): Promise<Map<string, string[]>> {
  const { code, stdout } = await runCli([command, "--help"]);
  expect(code).toBe(0);
  return sections(stdout);
}

describe("--help in sections", () => {
  it.each([
    ["ask", ["Model:", "Model server:", "Run:", "Output:", LEVERS]],
    ["run", ["Model:", "Model server:", "Run:", "Output:", LEVERS]],
    ["chat", ["Model:", "Model server:", "Run:", "Output:", LEVERS]],
    ["eval", ["Model:", "Model server:", "Tasks:", "BFCL:", "What runs at once:", "Output:", LEVERS]],
  ])("%s --help: its sections in order, the levers last, every flag in one", async (command, expected) => {
    const found = await helpSections(command);
    expect([...found.keys()]).toEqual(["Arguments:", ...expected, "Options:"]);
    // commander's own -h, --help is the only flag outside a section
    expect(found.get("Options:")).toEqual(["--help"]);
  });

  it("ask: the model and server flags, the run's, the output's and the levers each in their section", async () => {
    const found = await helpSections("ask");
    expect(found.get("Model:")).toEqual(expect.arrayContaining(["--model", "--gpu", "--threads", "--context-size"]));
    expect(found.get("Model server:")).toEqual(
      expect.arrayContaining(["--server", "--server-model", "--http-retries"]),
    );
    expect(found.get("Run:")).toEqual(expect.arrayContaining(["--max-iterations", "--skills", "--allow-dir"]));
    expect(found.get("Output:")).toEqual(expect.arrayContaining(["--json", "--trace", "--quiet"]));
    expect(found.get(LEVERS)).toEqual(
      expect.arrayContaining([
        "--no-jump-forward",
        "--no-candidate-sampling",
        "--no-speculation",
        "--no-grammar",
        "--no-final-round",
        "--thought",
        "--grounding",
        "--grounding-levers",
      ]),
    );
  });

  it("eval: the three concurrency knobs together, each saying what runs at once", async () => {
    const { stdout } = await runCli(["eval", "--help"]);
    expect(sections(stdout).get("What runs at once:")).toEqual([
      "--parallel",
      "--concurrency",
      "--parallel-calls",
      "--no-parallel-calls",
    ]);
    const text = stdout.replace(/\s+/g, " ");
    expect(text).toContain("--parallel <n> GGUF models: runs at once on the one loaded model");
    expect(text).toContain("--concurrency <n> model servers: runs at once on each server");
    expect(text).toContain("--parallel-calls BFCL: let one model reply make several skill calls at once");
  });
});
