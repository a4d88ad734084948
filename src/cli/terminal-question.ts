import { createInterface } from "node:readline/promises";
import type { CliIO } from "./cli-io.js";

/** True when a person can answer questions: stdin and stderr are both terminals. */
export function isInteractive(io: CliIO): boolean {
  return Boolean(io.stdin.isTTY && io.stderr.isTTY);
}

/**
 * Ask one question on stderr and read a line from stdin; undefined when input ends or the command is interrupted. On
 * a terminal, Ctrl-C typed at the question arrives as a key (the terminal is in raw mode): it interrupts the command
 * as the signal would (`io.interrupt`), so the command exits 130 instead of taking it for an empty answer.
 */
export async function askQuestion(io: CliIO, question: string): Promise<string | undefined> {
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: Boolean(io.stdin.isTTY) });
  rl.on("SIGINT", () => {
    if (io.interrupt) io.interrupt();
    else rl.close();
  });
  try {
    return (await rl.question(question, { signal: io.signal })).trim();
  } catch {
    return undefined;
  } finally {
    rl.close();
  }
}
