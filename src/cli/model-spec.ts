import { isServerUrl } from "../model/http/server-url.js";

/**
 * `--model script:FILE.json`: a JSON array of the model's replies, played in order (a scripted, deterministic run; no
 * GGUF). Each reply is an action object (`{"skill_name": ..., "arguments": {...}}`, `{"final_answer": ...}`), sent as
 * its JSON, or a string sent as it is (raw text, to show how a malformed reply is handled). See examples/replies/.
 */
export const SCRIPT_PREFIX = "script:";

/**
 * What the `--model` of `ask`, `run`, `chat`, `inspect` and `agent inspect` names (eval's wider set, with its oracle,
 * profiles and replays, is `eval/models/model-spec.ts`).
 */
export type CliModelSpec =
  /** `script:FILE.json`: scripted replies; `path` as given (relative to the working folder). */
  | { kind: "script"; path: string }
  /** `http(s)://host:port/v1#name`: a model on a server, as given. */
  | { kind: "server"; url: string }
  /** Anything else: a catalog alias, a GGUF file name found in the models folders, or a path. */
  | { kind: "gguf"; name: string };

/** Read a command's `--model` value: the one place its prefixes are told apart. */
export function parseCliModelSpec(spec: string): CliModelSpec {
  if (isServerUrl(spec)) return { kind: "server", url: spec };
  if (spec.startsWith(SCRIPT_PREFIX)) return { kind: "script", path: spec.slice(SCRIPT_PREFIX.length) };
  return { kind: "gguf", name: spec };
}
