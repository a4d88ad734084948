import { CodedError } from "../coded-error.js";

/** Why an agent definition was refused. */
export type AgentDefinitionErrorCode =
  | "not_found"
  | "unreadable"
  | "yaml_syntax"
  | "invalid"
  | "unknown_tool"
  | "cycle"
  | "too_many"
  | "soul"
  | "output_schema";

/**
 * An agent definition (or a file it names) that cannot be used. The message names the file and the field path
 * (`agents/x.yaml: loop_policy.max_iterations: expected an integer >= 1`); `field` and, for an unknown tool, `tool`
 * carry them apart. A file with several problems is one error listing them all (`agents/x.yaml: 3 problems:` and a
 * line each): `problems` holds each as its own error, and `code`, `field` and `tool` are the first one's.
 */
export class AgentDefinitionError extends CodedError<AgentDefinitionErrorCode> {
  override readonly name = "AgentDefinitionError";
  /** Every problem found in the file, in the order found (this error alone when there is one). */
  problems: readonly AgentDefinitionError[] = [this];
  constructor(
    code: AgentDefinitionErrorCode,
    message: string,
    readonly path: string,
    readonly field?: string,
    readonly tool?: string,
  ) {
    super(code, message);
  }

  /**
   * One error for all the problems found in the file `path` (shown as `display`): the first as it is when it is the
   * only one, else `display: N problems:` and each on its own line (the CLI prints them as one line, `; ` apart).
   */
  static combine(display: string, path: string, errors: readonly AgentDefinitionError[]): AgentDefinitionError {
    const all = errors.flatMap((error) => error.problems);
    if (all.length === 1) return all[0];
    const prefix = `${display}: `;
    const lines = all.map((e) => `  ${e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message}`);
    const first = all[0];
    const combined = new AgentDefinitionError(
      first.code,
      `${display}: ${all.length} problems:\n${lines.join("\n")}`,
      path,
      first.field,
      first.tool,
    );
    combined.problems = all;
    return combined;
  }
}

/**
 * Collects the problems of one definition file so that a load reports them all at once: `attempt` runs a check and
 * keeps an {@link AgentDefinitionError} about this file (a nested file's errors, and cycles, pass through at once:
 * they are that file's to report); `throwIfAny` throws them as one.
 */
export class DefinitionProblems {
  readonly #errors: AgentDefinitionError[] = [];
  constructor(
    readonly path: string,
    readonly display: string,
  ) {}

  /** Record a problem found without throwing. */
  add(error: AgentDefinitionError): void {
    this.#errors.push(error);
  }

  /** Run `check`; a problem of this file is recorded (and `undefined` returned), anything else is thrown. */
  async attempt<T>(check: () => T | Promise<T>): Promise<T | undefined> {
    try {
      return await check();
    } catch (error) {
      if (!(error instanceof AgentDefinitionError) || error.path !== this.path || error.code === "cycle") throw error;
      this.add(error);
      return undefined;
    }
  }

  /** Whether any problem was found. */
  get any(): boolean {
    return this.#errors.length > 0;
  }

  /** Throw every problem found as one error. */
  throwIfAny(): void {
    if (this.#errors.length > 0) throw AgentDefinitionError.combine(this.display, this.path, this.#errors);
  }
}
