import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // one temporary folder per run, removed at its end: tests and the processes they spawn leave nothing in /tmp
    globalSetup: ["test/helpers/temp-root.ts"],
    // Integration tests share one llama.cpp model per file and this machine has 2 cores:
    // run files one after another so native inference never competes with itself.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
