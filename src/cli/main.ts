#!/usr/bin/env node
import { processIO } from "./cli-io.js";
import { invocation } from "./invocation.js";
import { runCli } from "./program.js";

/**
 * The `gemma-agent` executable. The first Ctrl-C aborts the running command cleanly (exit 130, traces flushed);
 * a second one exits at once.
 */
// node-llama-cpp refuses to load when CI is set to anything but a boolean; an empty CI means "not CI"
if (process.env.CI === "") delete process.env.CI;

// `gemma-agent models | head`: the reader went away; stop quietly, as Unix tools do
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const controller = new AbortController();
let interrupts = 0;
/** Ctrl-C, as a signal or as a key typed at a question: the first stops cleanly, the second quits at once. */
function interrupt(): void {
  interrupts++;
  if (interrupts > 1) process.exit(130);
  process.stderr.write("\ngemma-agent: interrupted, stopping (Ctrl-C again to quit now)\n");
  controller.abort(new Error("interrupted by Ctrl-C"));
}
process.on("SIGINT", interrupt);

const io = processIO(controller.signal, { command: invocation(process.env, process.argv[1], process.cwd()), interrupt });
const code = await runCli(process.argv.slice(2), io);
process.exitCode = code;
// node-llama-cpp keeps native handles alive; once the command is done, nothing else should hold the process.
setTimeout(() => process.exit(code), 200).unref();
