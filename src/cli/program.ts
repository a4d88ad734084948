import { Command, CommanderError } from "commander";
import { ModelLoadError, DownloadError } from "../model/errors.js";
import { CliUsageError, commandOf, EXIT, type CliIO } from "./cli-io.js";
import { withInvocation } from "./invocation.js";
import { packageVersion } from "./package-version.js";
import askCommand from "./ask.js";
import modelsCommand from "./models.js";
import pullCommand from "./pull.js";
import inspectCommand from "./inspect.js";
import doctorCommand from "./doctor.js";
import evalCommand from "./eval.js";
import type { CommandFactory } from "./command.js";

export type { CommandFactory } from "./command.js";

/** The commands, in help order. Each lives in its own file under src/cli/. */
const COMMANDS: CommandFactory[] = [askCommand, modelsCommand, pullCommand, inspectCommand, doctorCommand, evalCommand];

/** The commander program, writing to `io` and never calling process.exit itself. */
export async function createProgram(io: CliIO, setExitCode: (code: number) => void): Promise<Command> {
  // usage lines name the program as it was started (`npx gemma-agent ask ...`, `npm start -- ask ...`)
  const program = new Command(commandOf(io))
    .description("A local Gemma agent: ask questions answered with skills (tools), on your own CPU or GPU.")
    .version(packageVersion())
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    })
    .exitOverride();
  for (const factory of COMMANDS) {
    const command = factory(io, setExitCode);
    command
      .exitOverride()
      .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
    program.addCommand(command);
  }
  return program;
}

/** The one line a setup error prints, its suggested commands written as the user started the tool. */
function setupErrorLine(error: unknown, io: CliIO): string | undefined {
  if (error instanceof CliUsageError || error instanceof ModelLoadError || error instanceof DownloadError)
    return `gemma-agent: ${withInvocation(error.message, commandOf(io))}`;
  return undefined;
}

/**
 * Run the CLI with `argv` (without node and the script) and return the exit code. Usage and setup errors print one
 * line to stderr and return 2; an unexpected error prints its message (and stack with GEMMA_AGENT_DEBUG=1).
 */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = await createProgram(io, (code) => (exitCode = code));
  try {
    await program.parseAsync(argv, { from: "user" });
    return io.signal.aborted && exitCode === EXIT.ok ? EXIT.interrupted : exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version exit 0; commander has already printed its message
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (io.signal.aborted) return EXIT.interrupted;
    const line = setupErrorLine(error, io);
    if (line) {
      io.stderr.write(`${line}\n`);
      return error instanceof CliUsageError ? error.exitCode : EXIT.usage;
    }
    io.stderr.write(`gemma-agent: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
    if (io.env.GEMMA_AGENT_DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
    return 1;
  }
}
