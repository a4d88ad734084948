#!/usr/bin/env node
import { processIO } from "./cli-io.js";
import { invocation } from "./invocation.js";
import { runCli } from "./program.js";

/**
 * The `gemma-agent` executable. The first Ctrl-C (or SIGTERM, or SIGHUP) aborts the running command cleanly (exit
 * 130, 143 or 129; the trace ends with the run's last event); a second one exits at once. The process exits only once
 * stdout and stderr have taken everything written to them.
 */
// node-llama-cpp refuses to load when CI is set to anything but a boolean; an empty CI means "not CI"
if (process.env.CI === "") delete process.env.CI;

/** Exit codes for the signals that stop a run: 128 + the signal's number, as shells report them. */
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/** Where output could not be written (not EPIPE): said once on stderr, if stderr still works, and the exit is 1. */
let outputError: string | undefined;

// `gemma-agent models | head`: the reader went away; stop quietly, as Unix tools do. Other write errors (a full disk,
// /dev/full) are said, not thrown: the run's events are still in its trace.
for (const [name, stream] of [
  ["stdout", process.stdout],
  ["stderr", process.stderr],
] as const) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    if (outputError === undefined && name === "stdout") {
      outputError = `gemma-agent: cannot write the output to ${name} (${error.code ?? error.message}); with --trace FILE the run's events, the answer included, are in that file\n`;
      process.stderr.write(outputError);
    }
  });
}

const controller = new AbortController();
let interrupts = 0;
let stoppedBy: keyof typeof SIGNAL_EXIT | undefined;
/** The command's own Ctrl-C handler, while it has taken Ctrl-C (see CliIO.takeInterrupts). */
let commandInterrupt: (() => void) | undefined;
/**
 * Ctrl-C (as a signal or a key typed at a question), SIGTERM or SIGHUP: the first stops cleanly, the second quits at
 * once. A command that took Ctrl-C (chat) gets it instead.
 */
function interrupt(signal: keyof typeof SIGNAL_EXIT = "SIGINT"): void {
  if (signal === "SIGINT" && commandInterrupt) return commandInterrupt();
  interrupts++;
  if (interrupts > 1) process.exit(SIGNAL_EXIT[signal]);
  stoppedBy = signal;
  const what = signal === "SIGINT" ? "interrupted" : `stopped by ${signal}`;
  process.stderr.write(`\ngemma-agent: ${what}, stopping (Ctrl-C again to quit now)\n`);
  controller.abort(new Error(what));
}
for (const signal of Object.keys(SIGNAL_EXIT) as Array<keyof typeof SIGNAL_EXIT>)
  process.on(signal, () => interrupt(signal));

/** Resolves once `stream` has handed everything written to it so far to the OS (or failed to). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || !stream.writable) return resolve();
    stream.write("", () => resolve());
  });
}

const io = processIO(controller.signal, {
  command: invocation(process.env, process.argv[1], process.cwd()),
  interrupt: () => interrupt("SIGINT"),
  takeInterrupts: (handler) => {
    commandInterrupt = handler;
    return () => {
      if (commandInterrupt === handler) commandInterrupt = undefined;
    };
  },
});
let code = await runCli(process.argv.slice(2), io);
if (code === SIGNAL_EXIT.SIGINT && stoppedBy) code = SIGNAL_EXIT[stoppedBy];
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
if (outputError !== undefined && code === 0) code = 1;
process.exitCode = code;
// node-llama-cpp keeps native handles alive; once the command is done and its output taken, nothing else should hold
// the process.
process.exit(code);
