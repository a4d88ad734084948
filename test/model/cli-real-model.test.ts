/**
 * `gemma-agent ask` end to end on the real test models: the built CLI spawned as a user runs it. Whether the tiny
 * models answer right is measured by the evaluations; here every action must parse and the document must be whole.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { realTestModels } from "../helpers/test-models.js";

const CLI = resolve("dist/cli/main.js");

function ask(model: string, question: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const threads = process.env.GEMMA_AGENT_TEST_THREADS ? ["--threads", process.env.GEMMA_AGENT_TEST_THREADS] : [];
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [CLI, "ask", "--model", model, "--skills", "calculator", "--json", ...threads, question],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 280_000);
    child.on("error", fail);
    child.on("close", (code) => (clearTimeout(timer), done({ code, stdout, stderr })));
  });
}

describe.each(realTestModels())("gemma-agent ask on $name", ({ variable, path }) => {
  it.skipIf(!path)(
    "exits 0 or 1 with one well-formed JSON document in which every action parsed",
    async () => {
      const { code, stdout, stderr } = await ask(path!, "What is 17% of 2,340?");
      expect([0, 1], stderr).toContain(code);
      const doc = JSON.parse(stdout) as {
        answer?: string;
        stopReason: string;
        iterations: number;
        events: { type: string; validatorName?: string; skillName?: string }[];
        stats: Record<string, number>;
        model: { architecture: string };
      };
      expect(doc.stopReason).toBe(code === 0 ? "answer" : doc.stopReason);
      if (code === 0) expect(doc.answer?.trim()).toBeTruthy();
      else expect(["max_iterations", "retries_exhausted"]).toContain(doc.stopReason);
      expect(doc.iterations).toBeGreaterThan(0);
      expect(doc.events.filter((e) => e.type === "validation-error" && e.validatorName === "action_parse")).toEqual([]);
      expect(doc.events.filter((e) => e.type === "model-error")).toEqual([]);
      for (const call of doc.events.filter((e) => e.type === "call-skill")) expect(call.skillName).toBe("calculator");
      expect(doc.model.architecture).toBe(variable === "GEMMA_AGENT_TEST_MODEL" ? "gemma3" : "llama");
    },
    300_000,
  );
});
