/**
 * The crash harness's writers and its run over several of them (see harness.ts): what `scripts/crash-kills.ts` and
 * the crash-consistency tests call.
 */
import { conversationWriter } from "./conversation-writer.js";
import { downloadWriter } from "./download-writer.js";
import { evalWriter } from "./eval-writer.js";
import { promptCacheWriter } from "./prompt-cache-writer.js";
import { traceWriter } from "./trace-writer.js";
import {
  runKills,
  tallyFailures,
  tallyLine,
  WRITER_NAMES,
  type CrashWriter,
  type KillTally,
  type RunKillsOptions,
  type WriterName,
} from "./harness.js";

export { runKills, tallyFailures, tallyLine, WRITER_NAMES, type KillTally, type WriterName };
export { killAtWritePreload, slowWritesPreload } from "./write-faults.js";

/** Each writer of the CLI the harness kills, by name. */
export const WRITERS: Record<WriterName, CrashWriter> = {
  eval: evalWriter,
  conversation: conversationWriter,
  trace: traceWriter,
  "prompt-cache": promptCacheWriter,
  download: downloadWriter,
};

/**
 * Kill each of `writers` in turn, one after the other (never two CLIs at once: the prompt cache's runs are real
 * llama.cpp processes), `kills` times each; their tallies, in order.
 */
export async function runCrashKills(
  writers: readonly WriterName[],
  options: Omit<RunKillsOptions, "kills"> & { killsPerWriter: number },
): Promise<KillTally[]> {
  const tallies: KillTally[] = [];
  for (const name of writers)
    tallies.push(await runKills(WRITERS[name], { ...options, kills: options.killsPerWriter }));
  return tallies;
}
