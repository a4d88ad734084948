import { defineConfig } from "vitest/config";

/**
 * Tests that run llama.cpp (the fixture model, the real test models), a model server or time a CLI process on a
 * terminal live in these folders, whole, and nowhere else: they run one file at a time, after the standalone tests, so
 * that native inference never competes with itself or with a timed prompt on this 2-core machine. Everything else is
 * standalone: pure logic, run in parallel (node-llama-cpp keeps its `test/standalone/` and `test/modelDependent/`
 * apart the same way).
 */
const LLAMA_FOLDERS = [
  "test/integration", // the fixture model through llama.cpp, in process and in the eval's model process
  "test/model", // the real test models
  "test/cli", // the built CLI, in a pipe and in a real pty
  "test/scripts", // the scripts, run as a user runs them
  "test/http/llama", // the built CLI against model servers, and the real llama-server
];
const LLAMA = LLAMA_FOLDERS.map((folder) => `${folder}/**/*.test.ts`);

export default defineConfig({
  test: {
    // one temporary folder per run, removed at its end: tests and the processes they spawn leave nothing in /tmp
    globalSetup: ["test/helpers/temp-root.ts"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // this machine has 2 cores, and vitest leaves one idle by default: the standalone files spend much of their time
    // waiting on child processes and I/O, so two workers share the cores well
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: "standalone", include: ["test/**/*.test.ts"], exclude: LLAMA, sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: "llama", include: LLAMA, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
