import { Command, Option } from "commander";
import {
  isServerUrl,
  openAICompatibleModel,
  parseServerModelUrl,
  type OpenAICompatibleModel,
  type OpenAICompatibleModelOptions,
  type PromptMode,
  type StructuredOutput,
} from "../model/http/index.js";
import { withoutUndefined } from "../without-undefined.js";
import { CliUsageError, type CliIO } from "./cli-io.js";
import { inSection, SECTION } from "./help-sections.js";
import { parseIntegerOption, parseListOption, parseNumberOption } from "./parse-options.js";
import type { Progress } from "./progress.js";

/** Environment variable holding the API key sent to model servers (`Authorization: Bearer ...`); local ones need none. */
export const SERVER_API_KEY_ENV = "GEMMA_AGENT_API_KEY";

/** The flags of a model on a server, as commander parses them. */
export interface ServerCommandOptions {
  server?: string;
  serverModel?: string;
  promptMode?: PromptMode;
  structuredOutput?: StructuredOutput;
  httpTimeout?: number;
  httpTotalTimeout?: number;
  httpRetries?: number;
}

/** Add `--http-timeout` and `--http-total-timeout`: the two clocks of every request to a server. */
export function httpTimeoutOptions(command: Command): Command {
  return command
    .option(
      "--http-timeout <seconds>",
      "server models: give up on a request silent this long (default: 120)",
      parseNumberOption(0.1, 86_400),
    )
    .option(
      "--http-total-timeout <seconds>",
      "server models: give up on a request not finished this long after it began, however it trickles (default: 5 x --http-timeout)",
      parseNumberOption(0.1, 86_400),
    );
}

/** `--server A --server B` and `--server A,B` both give [A, B]. */
function collectServers(value: string, previous: string[] = []): string[] {
  return [...previous, ...parseListOption(value)];
}

/**
 * Add `--server URL --server-model NAME` and the flags that tune how a server is spoken to: the help's Model server
 * section. With `several` (eval), `--server` is repeated or comma-separated: one model spread over several servers.
 */
export function serverOptions(command: Command, { several = false }: { several?: boolean } = {}): Command {
  return inSection(command, SECTION.server, (c) => {
    const server = several
      ? new Option(
          "--server <url>",
          "an OpenAI-compatible model server (repeat, or comma-separate, to spread the runs over several); with --server-model, the same as --model URL#NAME",
        ).argParser(collectServers)
      : new Option(
          "--server <url>",
          "an OpenAI-compatible model server, e.g. http://127.0.0.1:8080/v1 (same as --model URL#NAME)",
        );
    const described = c
      .addOption(server)
      .option("--server-model <name>", "the model on --server (default: the server's only model)")
      .addOption(
        new Option(
          "--prompt-mode <mode>",
          "server models: chat (the server's chat template) or completion (our own Gemma prompt, cache_prompt; llama-server)",
        ).choices(["chat", "completion"]),
      )
      .addOption(
        new Option(
          "--structured-output <how>",
          "server models: auto (the schema in the server's own field), gbnf (our grammar; llama-server), none",
        ).choices(["auto", "json-schema", "gbnf", "none"]),
      );
    return httpTimeoutOptions(described).option(
      "--http-retries <n>",
      "server models: retries after a connection error, 429 or 503 (default: 3)",
      parseIntegerOption(0),
    );
  });
}

/**
 * The model spec `--server`/`--server-model` stand for (`URL#NAME`), or `model` as given. Both `--model` and
 * `--server` is a usage error, as is `--server-model` alone.
 */
export function modelSpecWithServer(model: string | undefined, options: ServerCommandOptions): string | undefined {
  if (options.serverModel !== undefined && options.server === undefined)
    throw new CliUsageError("--server-model goes with --server URL");
  if (options.server === undefined) return model;
  if (model !== undefined) throw new CliUsageError("give --model or --server, not both");
  if (!isServerUrl(options.server))
    throw new CliUsageError(`--server ${options.server}: expected http(s)://host:port/v1`);
  if (options.server.includes("#")) return options.server;
  return `${options.server}#${options.serverModel ?? ""}`;
}

/**
 * The one line said when `--grounding soft` is asked of a model server: soft steers each token as it is sampled, which
 * cannot cross a server's API, so the server gets what can (strict grounding's limits, as the request's schema).
 * Undefined for any other mode (strict crosses as it is; the default says nothing).
 */
export function serverGroundingNote(grounding: unknown): string | undefined {
  return grounding === "soft"
    ? "gemma-agent: note: --grounding soft steers each token, which cannot cross a model server: it gets strict grounding's limits as the request's schema instead\n"
    : undefined;
}

/** The handle options a server spec and the flags give (the API key from {@link SERVER_API_KEY_ENV}). */
export function serverModelOptions(
  spec: string,
  options: ServerCommandOptions & { temperature?: number; seed?: number },
  env: NodeJS.ProcessEnv,
): OpenAICompatibleModelOptions {
  const { baseURL, model } = parseServerModelUrl(spec);
  return { baseURL, model, ...serverHandleFlags(options, env) };
}

/** The handle options the server flags give, whatever the server (the API key from {@link SERVER_API_KEY_ENV}). */
export function serverHandleFlags(
  options: Omit<ServerCommandOptions, "server"> & { temperature?: number; seed?: number },
  env: NodeJS.ProcessEnv,
): Omit<OpenAICompatibleModelOptions, "baseURL" | "model"> {
  return withoutUndefined({
    apiKey: env[SERVER_API_KEY_ENV] || undefined,
    promptMode: options.promptMode,
    structuredOutput: options.structuredOutput,
    timeoutMs: options.httpTimeout === undefined ? undefined : Math.round(options.httpTimeout * 1000),
    totalTimeoutMs: options.httpTotalTimeout === undefined ? undefined : Math.round(options.httpTotalTimeout * 1000),
    retries: options.httpRetries,
    temperature: options.temperature,
    seed: options.seed,
  });
}

/**
 * Connect to the server `spec` names (dialect, models, what the options need) with a line on the progress, and
 * return it as the CLI's model. A server that is not there or lacks the model is an HttpModelError: a setup error
 * (one line, exit 2).
 */
export async function loadServerModel(
  io: Pick<CliIO, "env"> & { signal?: AbortSignal },
  spec: string,
  options: ServerCommandOptions & { temperature?: number; seed?: number },
  progress: Progress,
): Promise<OpenAICompatibleModel & { readonly backend: string; readonly threads: number }> {
  const handle = openAICompatibleModel(serverModelOptions(spec, options, io.env));
  progress.start(`connecting to ${handle.info.baseURL}`);
  try {
    const info = await handle.connect(io.signal);
    progress.succeed(`connected to ${info.dialect} at ${info.baseURL} (model ${info.name}; ${info.detectedBy})`);
  } catch (error) {
    progress.stop(); // the error's own line names the server and what went wrong: one line, not two
    throw error;
  }
  return Object.assign(handle, { backend: `http (${handle.info.dialect})`, threads: 0 });
}
