/** scripts/lib/bench-options.ts: the benchmark's lever flags as a user passes them, and a wrong one refused. */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseBenchArgs } from "../../scripts/lib/bench-options.js";

const ROOT = join(import.meta.dirname, "../..");

describe("parseBenchArgs", () => {
  it("compares candidate sampling by default; --action-lever and --actions-without-jump-forward are read", () => {
    expect(parseBenchArgs([]).options).toMatchObject({
      actionLever: "candidates",
      actionsOnly: false,
      actionsWithoutJumpForward: false,
    });
    expect(
      parseBenchArgs(["--action-lever", "jump-forward", "--actions-only", "--actions-without-jump-forward"]).options,
    ).toMatchObject({ actionLever: "jump-forward", actionsOnly: true, actionsWithoutJumpForward: true });
    expect(parseBenchArgs(["--action-lever", "speculation"]).options).toMatchObject({ actionLever: "speculation" });
  });

  it("refuses another lever with exit code 2, naming the three it takes", () => {
    const run = spawnSync("npx", ["tsx", "scripts/bench-model.ts", "--action-lever", "grammar"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--action-lever must be candidates, jump-forward or speculation \(got grammar\)/);
  });
});
