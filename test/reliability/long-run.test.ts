import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A run of `steps` calculator calls and an answer, with a model that keeps nothing, in a child process of the built code. */
const CHILD = `
const { Agent } = await import(process.env.GA_ROOT + "dist/agent/index.js");
const { Registry } = await import(process.env.GA_ROOT + "dist/skills/registry.js");
const { builtinSkills } = await import(process.env.GA_ROOT + "dist/skills/builtin/index.js");
const steps = Number(process.env.GA_STEPS);
let calls = 0;
const model = {
  info: { architecture: "scripted", name: "counter", contextLength: null, vocabularySize: 0, quantization: "none" },
  async generate() {
    calls++;
    return calls < steps ? JSON.stringify({ skill_name: "calculator", arguments: { expression: calls + "+1" } }) : JSON.stringify({ final_answer: "done" });
  },
  async dispose() {},
};
const start = performance.now();
const state = await new Agent({ model, registry: new Registry(builtinSkills()), finalRoundWithoutTools: false }).run("count", { maxIterations: steps + 1, maxRetries: 1 });
console.log(JSON.stringify({ stopReason: state.stopReason, iterations: state.iterations, events: state.stream.length, seconds: (performance.now() - start) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
`;

describe("a long run (issue 18 §5)", () => {
  it("10,000 steps finish, in memory far under 1 GB (before: out of heap at 5,000)", () => {
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", CHILD], {
      env: { ...process.env, GA_ROOT: ROOT, GA_STEPS: "10000" },
      encoding: "utf8",
      timeout: 300_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout.trim().split("\n").at(-1)!);
    console.log(`long run: ${JSON.stringify(result)}`);
    expect(result).toMatchObject({ stopReason: "answer", iterations: 10_000 });
    expect(result.maxRssMb).toBeLessThan(1024);
  }, 320_000);
});
