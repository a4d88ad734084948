import { Command, CommanderError } from "commander";
import { CodedError } from "../coded-error.js";
import { commandOf, EXIT, type CliIO } from "./cli-io.js";
import { withInvocation } from "./invocation.js";
import { packageVersion } from "./package-version.js";
import askCommand from "./commands/ask.js";
import modelsCommand from "./commands/models.js";
import pullCommand from "./commands/pull.js";
import inspectCommand from "./commands/inspect.js";
import doctorCommand from "./commands/doctor.js";
import evalCommand from "./commands/eval.js";
import runCommand from "./commands/run.js";
import chatCommand from "./commands/chat.js";
import agentCommand from "./commands/agent-inspect.js";
import type { CommandFactory } from "./command.js";

export type { CommandFactory } from "./command.js";

/** The commands, in help order. Each lives in its own file under src/cli/. */
const COMMANDS: CommandFactory[] = [
  askCommand,
  runCommand,
  chatCommand,
  agentCommand,
  modelsCommand,
  pullCommand,
  inspectCommand,
  doctorCommand,
  evalCommand,
];

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

/**
 * The one line a setup error prints: a message of several lines (a suite's list of bad fields) joined, "title:\n  a\n
 * b" as "title: a; b", its suggested commands written as the user started the tool.
 */
function setupErrorLine(error: CodedError<string>, io: CliIO): string {
  const oneLine = error.message.replace(/:?\n\s*/g, (m) => (m.startsWith(":") ? ": " : "; "));
  return `gemma-agent: ${withInvocation(oneLine, commandOf(io))}`;
}

/**
 * Run the CLI with `argv` (without node and the script) and return the exit code. Usage and setup errors print one
 * line to stderr and return 2 (any {@link CodedError} is one); an unexpected error prints its message (and stack with GEMMA_AGENT_DEBUG=1).
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
    if (error instanceof CodedError) {
      // Every coded error is a setup error: the flags, a file, the model, a download, the allowed folder.
      io.stderr.write(`${setupErrorLine(error, io)}\n`);
      return EXIT.usage;
    }
    io.stderr.write(`gemma-agent: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
    if (io.env.GEMMA_AGENT_DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
    return 1;
  }
}
