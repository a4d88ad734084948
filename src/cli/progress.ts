import ora, { type Ora } from "ora";
import type { CliIO } from "./cli-io.js";

/**
 * Progress on stderr: an ora spinner when stderr is a terminal; on a pipe or a file, no spinner and only the lines
 * that matter (start, end, notes), so logs stay readable. `quiet` silences everything but failures.
 */
export class Progress {
  readonly #io: CliIO;
  readonly #quiet: boolean;
  readonly #spinner: Ora | undefined;
  #text = "";

  constructor(io: CliIO, options: { quiet?: boolean } = {}) {
    this.#io = io;
    this.#quiet = options.quiet ?? false;
    // A terminal that reports no width (a bare pty) would make the spinner's redraw arithmetic run away: no spinner.
    const columns = (io.stderr as { columns?: number }).columns ?? 0;
    const interactive = Boolean(io.stderr.isTTY) && columns > 0 && !this.#quiet && !io.env.CI;
    this.#spinner = interactive ? ora({ stream: io.stderr, discardStdin: false }) : undefined;
  }

  /** Begin a long step. */
  start(text: string): void {
    this.#text = text;
    if (this.#spinner) this.#spinner.start(text);
    else this.#line(`${text}…`);
  }

  /** Change the running step's text (a percentage, tokens/s); a pipe gets nothing, to keep logs short. */
  update(text: string): void {
    this.#text = text;
    if (this.#spinner?.isSpinning) this.#spinner.text = text;
  }

  succeed(text = this.#text): void {
    if (this.#spinner?.isSpinning) this.#spinner.succeed(text);
    else this.#line(text);
  }

  fail(text = this.#text): void {
    if (this.#spinner?.isSpinning) this.#spinner.fail(text);
    else this.#io.stderr.write(`${text}\n`);
  }

  /** A line of its own (an event of the run), printed above the spinner. */
  note(text: string): void {
    if (this.#quiet) return;
    if (this.#spinner?.isSpinning) {
      this.#spinner.clear();
      this.#io.stderr.write(`${text}\n`);
      this.#spinner.render();
    } else this.#io.stderr.write(`${text}\n`);
  }

  stop(): void {
    this.#spinner?.stop();
  }

  #line(text: string): void {
    if (!this.#quiet) this.#io.stderr.write(`${text}\n`);
  }
}
