#!/usr/bin/env node
import { processIO } from "./cli-io.js";
import { runCli } from "./program.js";

/**
 * The `gemma-agent` executable. The first Ctrl-C aborts the running command cleanly (exit 130, traces flushed);
 * a second one exits at once.
 */
const controller = new AbortController();
let interrupts = 0;
process.on("SIGINT", () => {
  interrupts++;
  if (interrupts > 1) process.exit(130);
  process.stderr.write("\ngemma-agent: interrupted, stopping (Ctrl-C again to quit now)\n");
  controller.abort(new Error("interrupted by Ctrl-C"));
});

const code = await runCli(process.argv.slice(2), processIO(controller.signal));
process.exitCode = code;
// node-llama-cpp keeps native handles alive; once the command is done, nothing else should hold the process.
setTimeout(() => process.exit(code), 200).unref();
