/**
 * The shell scripts take the test models from scripts/lib/test-models.sh, which asks scripts/test-model-path.ts: the
 * same list the tests use (TEST_MODELS). Run through bash as the lever scripts source it.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TEST_MODELS } from "../../scripts/lib/test-models.js";

const ROOT = join(import.meta.dirname, "../..");

function sh(script: string, env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync("bash", ["-c", `. scripts/lib/test-models.sh; ${script}`], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
  return { code: result.status, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
}

describe("scripts/lib/test-models.sh", () => {
  it("gives each key's path in the folder GEMMA_AGENT_TEST_MODELS names, and every key in the list's order", () => {
    const dir = "/tmp/some models";
    const keys = sh("test_model_keys");
    expect(keys).toMatchObject({ code: 0, stdout: TEST_MODELS.map((m) => m.key).join(" ") });
    for (const model of TEST_MODELS)
      expect(sh(`test_model_path ${model.key}`, { GEMMA_AGENT_TEST_MODELS: dir }).stdout).toBe(join(dir, model.file));
    expect(sh("test_models_dir", { GEMMA_AGENT_TEST_MODELS: dir }).stdout).toBe(dir);
  }, 30_000);

  it("an unknown key is exit 2 with one line naming the keys there are, and stops a script under set -e", () => {
    const result = sh('set -e; model="$(test_model_path gemma-9b)"; echo "went on with $model"');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(TEST_MODELS[0].key);
  }, 30_000);
});
