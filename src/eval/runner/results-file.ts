import { closeSync, existsSync, mkdirSync, openSync, readFileSync, truncateSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { EvalSetupError } from "../errors.js";
import { recordKey } from "./run-eval.js";
import type { RunRecord } from "./run-record.js";

/** What a sweep is: a resumed sweep must be the same one (its records would not belong otherwise). */
export interface ResultsHeader {
  source: string;
  models: readonly string[];
  budgets: readonly number[];
  seeds: readonly number[];
  tasks: number;
  grammar: boolean;
}

/** The first line of a results file. */
const KIND = "gemma-agent-eval-results";

/** An open results file: the records it already held, and how to add one. */
export interface ResultsFile {
  path: string;
  /** Finished runs of the earlier sweep (resumed), in file order. */
  earlier: RunRecord[];
  /** Append one finished run, as one line in one write (a sweep killed mid-way loses at most the line being written). */
  append(record: RunRecord): void;
  close(): void;
}

function sameHeader(a: ResultsHeader, b: ResultsHeader): string | undefined {
  for (const key of ["source", "models", "budgets", "seeds", "tasks", "grammar"] as const)
    if (JSON.stringify(a[key]) !== JSON.stringify(b[key]))
      return `${key} was ${JSON.stringify(a[key])}, now ${JSON.stringify(b[key])}`;
  return undefined;
}

/**
 * The lines of an earlier results file: its header and its records. A last line without its newline (the process was
 * killed while writing it) is cut off the file, so that appending goes on from a whole line.
 */
function readEarlier(path: string): { header: ResultsHeader; records: RunRecord[] } {
  const text = readFileSync(path, "utf8");
  const end = text.lastIndexOf("\n") + 1;
  if (end < text.length) truncateSync(path, Buffer.byteLength(text.slice(0, end)));
  const lines = text
    .slice(0, end)
    .split("\n")
    .filter((line) => line !== "");
  const bad = () =>
    new EvalSetupError("unsupported", `${path} is not a results file of gemma-agent eval (start without --resume)`);
  let first: { kind?: unknown; header?: ResultsHeader };
  try {
    first = JSON.parse(lines[0] ?? "") as typeof first;
  } catch {
    throw bad();
  }
  if (first.kind !== KIND || !first.header) throw bad();
  const records = lines.slice(1).map((line, i) => {
    try {
      return (JSON.parse(line) as { run: RunRecord }).run;
    } catch {
      throw new EvalSetupError("unsupported", `${path}: line ${i + 2} is not a record (the file was edited?)`);
    }
  });
  return { header: first.header, records };
}

/** Runs a whole sweep of `header` makes. */
function expectedRuns(header: ResultsHeader): number {
  return header.models.length * header.budgets.length * header.seeds.length * header.tasks;
}

/**
 * A fresh sweep must not wipe out an unfinished one: a results file that holds part of a sweep is refused (resume it,
 * or delete it). A finished sweep's file, or one that is not a results file, is replaced.
 */
function refuseUnfinished(path: string, header: ResultsHeader): void {
  if (!existsSync(path)) return;
  let read: ReturnType<typeof readEarlier>;
  try {
    read = readEarlier(path);
  } catch {
    return;
  }
  const expected = expectedRuns(read.header);
  if (read.records.length >= expected) return;
  const same = sameHeader(read.header, header) === undefined;
  throw new EvalSetupError(
    "unsupported",
    `${path} holds an unfinished sweep (${read.records.length} of ${expected} runs): ${same ? "add --resume to finish it" : "it is another sweep"}, or delete the file to start over`,
  );
}

/**
 * Open the results file of a sweep: a new one (its header written now), or with `resume` the file of an interrupted
 * sweep of the same suite, models, budgets and seeds, whose records are returned and appended to. Each finished run
 * is one line; a run cut short by an interrupt or a harness error is not written, so a resumed sweep runs it again
 * (and none twice: a record already in the file is never written again).
 */
export function openResultsFile(path: string, header: ResultsHeader, resume: boolean): ResultsFile {
  let earlier: RunRecord[] = [];
  if (!resume) refuseUnfinished(path, header);
  if (resume) {
    if (!existsSync(path))
      throw new EvalSetupError("unsupported", `--resume: there is no ${path} to resume (run once without --resume)`);
    const read = readEarlier(path);
    const differs = sameHeader(read.header, header);
    if (differs) throw new EvalSetupError("unsupported", `--resume: ${path} is another sweep (${differs})`);
    earlier = read.records;
  }
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, resume ? "a" : "w");
  if (!resume) writeSync(fd, `${JSON.stringify({ kind: KIND, version: 1, header })}\n`);
  const written = new Set(earlier.map(recordKey));
  return {
    path,
    earlier,
    append(record) {
      if (record.stopReason === "aborted" || record.stopReason === "harness_error") return;
      const key = recordKey(record);
      if (written.has(key)) return;
      written.add(key);
      writeSync(fd, `${JSON.stringify({ run: record })}\n`);
    },
    close: () => closeSync(fd),
  };
}
