/**
 * The soak's probe, preloaded into every process of a soaked command (`NODE_OPTIONS=--import <this file>`, which a
 * forked model process inherits): it listens on gemma-agent's model-call diagnostics channel (a loaded GGUF model's
 * sequence pool after each call, and the prompt tokens of its last few calls) and writes what it saw, with the process's heap, to
 * `$GEMMA_AGENT_SOAK_PROBE_DIR/<pid>.json` (replaced whole, after each call, every PROBE_INTERVAL_MS and at exit). Plain JavaScript: the built CLI
 * runs it as it is, with no TypeScript loader in the process it measures.
 */
import { subscribe } from "node:diagnostics_channel";
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.env.GEMMA_AGENT_SOAK_PROBE_DIR;
const PROBE_INTERVAL_MS = 100;
const RECENT_CALLS = 16;

if (dir) {
  const seen = { pid: process.pid, calls: 0, sequences: null, promptTokens: 0, maxPromptTokens: 0, recent: [] };
  subscribe("gemma-agent:model-call", (message) => {
    seen.calls++;
    seen.sequences = message.sequences;
    const tokens = message.stats?.promptTokens ?? 0;
    seen.promptTokens = tokens;
    seen.maxPromptTokens = Math.max(seen.maxPromptTokens, tokens);
    // the last RECENT_CALLS calls' prompt tokens, by call number (1-based)
    seen.recent = [...seen.recent.slice(1 - RECENT_CALLS), [seen.calls, tokens]];
    write();
  });
  const file = join(dir, `${process.pid}.json`);
  function write() {
    const { heapUsed, external, arrayBuffers } = process.memoryUsage();
    try {
      writeFileSync(`${file}.tmp`, JSON.stringify({ ...seen, heapUsed, external, arrayBuffers, at: Date.now() }));
      renameSync(`${file}.tmp`, file);
    } catch {
      // the soak removed its folder: nothing to report to
    }
  }
  setInterval(write, PROBE_INTERVAL_MS).unref();
  // the last word of a process that ends: the sequences after its very last call
  process.on("exit", write);
}
