import type { Command } from "commander";
import type { CliIO } from "./cli-io.js";

/** What each command file exports: a function that makes its command (program.ts adds it to the program). */
export type CommandFactory = (io: CliIO, setExitCode: (code: number) => void) => Command;
