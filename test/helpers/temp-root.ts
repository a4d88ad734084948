/**
 * Vitest global setup: every temporary file or folder the tests make (theirs, and those of the CLIs and model
 * processes they spawn, which inherit the environment) goes into one folder of this run, removed when the run ends.
 * Tests used to leave their `mkdtemp` folders behind, 34 after one full run.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Set for the run: the folder every test's `os.tmpdir()` now lies in. */
export const TEST_TEMP_ENV = "GEMMA_AGENT_TEST_TMP";

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "gemma-agent-tests-"));
  // os.tmpdir() reads these on every call: TMPDIR on POSIX, TMP/TEMP on Windows
  for (const name of ["TMPDIR", "TMP", "TEMP", TEST_TEMP_ENV]) process.env[name] = root;
  // the CLI keeps system prompts' states in a prompt cache: the tests' go to this run's folder, not ~/.cache
  process.env.GEMMA_AGENT_PROMPT_CACHE = join(root, "prompt-cache");
  return () => rmSync(root, { recursive: true, force: true });
}
