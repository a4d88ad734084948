import { CodedError } from "../coded-error.js";

/** Where a command reads and writes: injected, so unit tests can capture output without a terminal. */
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborts on Ctrl-C (SIGINT); commands pass it to what they run. */
  signal: AbortSignal;
  /**
   * How the user started the tool (`npx gemma-agent`, `npm start --`, `gemma-agent`): the prefix of every command a
   * hint suggests. Default `gemma-agent`.
   */
  command?: string;
  /**
   * Does what Ctrl-C does (aborts `signal`; a second time, exits). A question on a terminal puts it in raw mode, where
   * Ctrl-C arrives as a key instead of a signal; the question calls this.
   */
  interrupt?: () => void;
  /**
   * Take Ctrl-C (SIGINT, and the Ctrl-C key a question reads) for a command that handles it itself (`chat`: stop the
   * answer, not the session): `handler` is called instead of aborting `signal`, until the returned function gives it
   * back. Absent (tests, embedders): Ctrl-C aborts `signal` as usual.
   */
  takeInterrupts?: (handler: () => void) => () => void;
}

/** The command prefix of hints for this IO (see {@link CliIO.command}). */
export function commandOf(io: CliIO): string {
  return io.command ?? "gemma-agent";
}

/** A command to suggest, written as the user started the tool: `hint(io, "pull gemma-3-270m")`. */
export function hint(io: CliIO, rest: string): string {
  return `${commandOf(io)} ${rest}`;
}

/** Exit codes: a contract with scripts that call the CLI. */
export const EXIT = {
  /** The command did what was asked (ask: the agent answered). */
  ok: 0,
  /** ask: the run ended without an answer (max_iterations, retries_exhausted, model_error). */
  noAnswer: 1,
  /** doctor: a check failed (its line says what to do); warnings alone exit 0. */
  checkFailed: 1,
  /** A usage or setup error: unknown flag, bad value, missing or broken model file. */
  usage: 2,
  /** Interrupted by Ctrl-C; the run was aborted cleanly. */
  interrupted: 130,
} as const;

/**
 * A usage problem the CLI itself finds (a bad flag value, a missing question): like every {@link CodedError}, printed
 * as one line (no stack trace), exit code 2.
 */
export class CliUsageError extends CodedError<"usage"> {
  override readonly name = "CliUsageError";
  constructor(message: string) {
    super("usage", message);
  }
}

/** The process's own streams and environment. */
export function processIO(
  signal: AbortSignal,
  extra: Pick<CliIO, "command" | "interrupt" | "takeInterrupts"> = {},
): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    signal,
    ...extra,
  };
}
