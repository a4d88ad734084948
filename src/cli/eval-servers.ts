import { join } from "node:path";
import type { Command } from "commander";
import type { ServerProviderOptions } from "../eval/models/server-pool.js";
import { withoutUndefined } from "../without-undefined.js";
import { CliUsageError } from "./cli-io.js";
import { inSection, SECTION } from "./help-sections.js";
import { serverHandleFlags, serverOptions, type ServerCommandOptions } from "./server-model.js";

/** The flags of `eval` for model servers and sweeps, as commander parses them. */
export interface EvalServerFlags extends Omit<ServerCommandOptions, "server"> {
  server?: string[];
  concurrency?: number;
  results?: string;
  resume?: boolean;
  out?: string;
  temperature?: number;
  seed?: number;
}

/** `--server A --server B --server-model M` as model specs (`A#M`, `B#M`): one model spread over both servers. */
export function serverSpecs(options: EvalServerFlags): string[] {
  if (options.serverModel !== undefined && !options.server?.length)
    throw new CliUsageError("--server-model goes with --server URL");
  return (options.server ?? []).map((url) => (url.includes("#") ? url : `${url}#${options.serverModel ?? ""}`));
}

/** How the sweep's servers are used: per-server concurrency and every handle's options. */
export function evalServerOptions(options: EvalServerFlags, env: NodeJS.ProcessEnv): ServerProviderOptions {
  return withoutUndefined({
    concurrency: options.concurrency,
    handle: serverHandleFlags(options, env),
  });
}

/** The results file: `--results FILE`, else `OUT/results.jsonl` with `--out`; `--resume` needs one. */
export function resultsOption(options: EvalServerFlags): { path: string; resume: boolean } | undefined {
  const path = options.results ?? (options.out !== undefined ? join(options.out, "results.jsonl") : undefined);
  if (path === undefined) {
    if (options.resume) throw new CliUsageError("--resume needs the sweep's --out DIR (or --results FILE)");
    return undefined;
  }
  return { path, resume: options.resume ?? false };
}

/** The flags of an eval sweep: the model servers (`ask`'s, with `--server` repeatable), the results file and resume. */
export function sweepOptions(command: Command): Command {
  return inSection(serverOptions(command, { several: true }), SECTION.output, (c) =>
    c
      .option(
        "--results <file>",
        "write each finished run to this JSON Lines file (default with --out: DIR/results.jsonl)",
      )
      .option("--resume", "go on with the interrupted sweep in the results file: its finished runs are not run again"),
  );
}
