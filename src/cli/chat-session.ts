import { resolve } from "node:path";
import { createInterface, type Interface } from "node:readline";
import type { Agent } from "../agent/agent.js";
import type { InvokeOptions } from "../agent/invoke.js";
import { succeedAnswered } from "./answer-summary.js";
import { describeThrown } from "../safe-stringify.js";
import type { Conversation } from "../memory/conversation.js";
import { ConversationError } from "../memory/conversation-file.js";
import { EXIT, type CliIO } from "./cli-io.js";
import { reportEvents } from "./agent-setup.js";
import type { CliModel } from "./model-setup.js";
import type { Progress } from "./progress.js";
import { steps, turnExitCode } from "./run-report.js";

/** What a chat session talks with and keeps. */
export interface ChatSetup {
  agent: Agent;
  model: CliModel;
  conversation: Conversation;
  progress: Progress;
  /** Budgets passed to each turn. */
  budgets: Pick<InvokeOptions, "maxIterations" | "maxRetries">;
}

/** The session's own commands. */
const HELP = "/reset (forget the conversation), /save FILE (write it to a new file), /exit; Ctrl-C stops an answer";

/**
 * An interactive chat on the terminal (readline): each line is a turn of one conversation with the agent, with its
 * memory. `/reset`, `/save FILE`, `/exit` (or end of input) are the session's; Ctrl-C during an answer stops that
 * answer and the session goes on; at an empty prompt a first Ctrl-C says how to quit and a second one quits (130).
 * Progress goes to stderr as in `ask`, answers to stdout.
 */
export class ChatSession {
  readonly #io: CliIO;
  readonly #setup: ChatSetup;
  #conversation: Conversation;
  #turn: AbortController | undefined;
  #armed = false;
  #exitCode: number | undefined;
  #rl: Interface | undefined;

  constructor(io: CliIO, setup: ChatSetup) {
    this.#io = io;
    this.#setup = setup;
    this.#conversation = setup.conversation;
  }

  /** Run the session until /exit, end of input or a second Ctrl-C; the exit code. */
  async run(greeting: string): Promise<number> {
    const io = this.#io;
    const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: Boolean(io.stdin.isTTY), prompt: "> " });
    this.#rl = rl;
    const interrupt = () => this.#interrupt();
    rl.on("SIGINT", interrupt);
    const release = io.takeInterrupts?.(interrupt);
    const stop = () => {
      this.#exitCode ??= EXIT.interrupted;
      this.#turn?.abort(io.signal.reason);
      rl.close();
    };
    io.signal.addEventListener("abort", stop, { once: true });
    io.stderr.write(`${greeting}\n${HELP}\n`);
    try {
      rl.prompt();
      for await (const line of rl) {
        this.#armed = false;
        if ((await this.#line(line.trim())) === "exit") break;
        rl.prompt();
      }
    } finally {
      release?.();
      io.signal.removeEventListener("abort", stop);
      rl.close();
    }
    return this.#exitCode ?? EXIT.ok;
  }

  /** Ctrl-C: stop the answer under way; at the prompt, clear the line, or arm, or (armed) quit. */
  #interrupt(): void {
    const rl = this.#rl!;
    if (this.#turn) {
      this.#turn.abort(new Error("interrupted: Ctrl-C stopped the answer"));
      return;
    }
    if (rl.line !== "") {
      rl.write(null, { ctrl: true, name: "u" });
      return;
    }
    if (this.#armed) {
      this.#exitCode = EXIT.interrupted;
      this.#io.stderr.write("\n");
      rl.close();
      return;
    }
    this.#armed = true;
    this.#io.stderr.write("\n(Ctrl-C again to quit, or /exit)\n");
    rl.prompt();
  }

  /** One line: a command of the session, or a turn. */
  async #line(text: string): Promise<"exit" | undefined> {
    if (text === "") return undefined;
    if (!text.startsWith("/")) {
      await this.#ask(text);
      return undefined;
    }
    const [command, ...rest] = text.split(/\s+/);
    const io = this.#io;
    if (command === "/exit" || command === "/quit") return "exit";
    if (command === "/reset") {
      this.#conversation.reset();
      io.stderr.write("(conversation reset: the agent remembers nothing of it)\n");
    } else if (command === "/save" && rest.length > 0) {
      const file = resolve(io.cwd, rest.join(" "));
      try {
        this.#conversation.saveAs(file);
        io.stderr.write(`(saved ${this.#conversation.turns.length} turn(s) to ${file})\n`);
      } catch (error) {
        io.stderr.write(`gemma-agent: ${describeThrown(error)}\n`);
      }
    } else
      io.stderr.write(`${command === "/save" ? "/save needs a file name. " : `unknown command ${command}. `}${HELP}\n`);
    return undefined;
  }

  /** One turn: the message through the agent with the conversation; the answer on stdout. */
  async #ask(message: string): Promise<void> {
    const { agent, model, progress, budgets } = this.#setup;
    const controller = new AbortController();
    this.#turn = controller;
    const started = performance.now();
    progress.start("thinking");
    try {
      const result = await agent.invoke(message, {
        ...budgets,
        conversation: this.#conversation,
        signal: controller.signal,
        onEvent: reportEvents({ model, progress }),
      });
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      if (result.stopReason === "aborted") progress.fail("stopped (the conversation goes on)");
      else if (turnExitCode(result) === EXIT.ok)
        succeedAnswered(progress, result.state, `answered in ${steps(result.iterations)}, ${seconds} s`);
      else progress.fail(`no answer: ${result.stopReason}`);
      if (result.answer !== undefined) this.#io.stdout.write(`${result.answer}\n`);
    } catch (error) {
      if (error instanceof ConversationError) {
        // the turn's record could not be written (a full disk, the file swapped for a FIFO): it is not kept, and a
        // session whose turns cannot be saved ends here (exit 2) rather than going on as if they were
        progress.fail(`gemma-agent: the turn was not saved, the chat ends: ${describeThrown(error)}`);
        this.#exitCode = EXIT.usage;
        this.#rl?.close();
      } else progress.fail(`gemma-agent: ${describeThrown(error)}`);
    } finally {
      this.#turn = undefined;
      progress.stop();
    }
  }
}
