import { CodedError } from "../coded-error.js";

/** Why an agent definition was refused. */
export type AgentDefinitionErrorCode =
  "not_found" | "unreadable" | "yaml_syntax" | "invalid" | "unknown_tool" | "cycle" | "soul" | "output_schema";

/**
 * An agent definition (or a file it names) that cannot be used. The message names the file and the field path
 * (`agents/x.yaml: loop_policy.max_iterations: expected an integer >= 1`); `field` and, for an unknown tool, `tool`
 * carry them apart.
 */
export class AgentDefinitionError extends CodedError<AgentDefinitionErrorCode> {
  override readonly name = "AgentDefinitionError";
  constructor(
    code: AgentDefinitionErrorCode,
    message: string,
    readonly path: string,
    readonly field?: string,
    readonly tool?: string,
  ) {
    super(code, message);
  }
}
