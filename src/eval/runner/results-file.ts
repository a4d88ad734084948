import { closeSync, constants, existsSync, ftruncateSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { isPlainObject } from "../../is-plain-object.js";
import { takeLock } from "../../lock-file.js";
import {
  appendWhole,
  openRegularFile,
  readRegularFile,
  RegularFileError,
  wholeLinesLength,
} from "../../regular-file.js";
import { MAX_RESULTS_FILE_BYTES } from "../defaults.js";
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

/** A file error of the results file as an EvalSetupError naming it (a FIFO, a device, too large, unreadable). */
function fileError(path: string, error: unknown, verb = "read"): EvalSetupError {
  if (error instanceof EvalSetupError) return error;
  const reason = error instanceof RegularFileError ? error.message.replace(`${path}: `, "") : (error as Error).message;
  return new EvalSetupError("unsupported", `cannot ${verb} the results file ${path}: ${reason}`, { cause: error });
}

/** A line's value as a run record, when it is one (the fields the report and the resume key read). */
function asRecord(value: unknown): RunRecord | undefined {
  const run = isPlainObject(value) ? value.run : undefined;
  if (!isPlainObject(run)) return undefined;
  const ok =
    typeof run.model === "string" &&
    typeof run.taskId === "string" &&
    Number.isInteger(run.budget) &&
    Number.isInteger(run.seed) &&
    typeof run.success === "boolean" &&
    typeof run.stopReason === "string" &&
    Array.isArray(run.failures);
  return ok ? (run as unknown as RunRecord) : undefined;
}

/** The header line's sweep, or an error saying the file is not a results file. */
function readHeader(line: string, path: string): ResultsHeader {
  const bad = () =>
    new EvalSetupError("unsupported", `${path} is not a results file of gemma-agent eval (start without --resume)`);
  let first: unknown;
  try {
    first = JSON.parse(line);
  } catch {
    throw bad();
  }
  if (!isPlainObject(first) || first.kind !== KIND || !isPlainObject(first.header)) throw bad();
  const h = first.header;
  const list = (value: unknown, item: (v: unknown) => boolean) => Array.isArray(value) && value.every(item);
  const whole = (v: unknown) => Number.isInteger(v);
  const ok =
    typeof h.source === "string" &&
    list(h.models, (v) => typeof v === "string") &&
    list(h.budgets, whole) &&
    list(h.seeds, whole) &&
    whole(h.tasks) &&
    typeof h.grammar === "boolean";
  if (!ok) throw bad();
  return h as unknown as ResultsHeader;
}

/**
 * The lines of an earlier results file: its header and its records, each run once (a line repeated by an earlier
 * unlocked writer counts once). Read as bytes through the bounded reader (a FIFO or device refused, at most
 * MAX_RESULTS_FILE_BYTES). A last line without its newline (the process was killed while writing it) is cut off the
 * file at the byte where it starts, invalid UTF-8 before it or not, so that appending goes on from a whole line (with
 * `cut` only: a fresh sweep's check reads without changing the file). A whole line that is not a record is an error.
 * Undefined when no line is whole (an empty file, or one whose header was torn: the sweep wrote no run).
 */
function readEarlier(path: string, cut: boolean): { header: ResultsHeader; records: RunRecord[] } | undefined {
  let bytes: Buffer;
  try {
    bytes = readRegularFile(path, MAX_RESULTS_FILE_BYTES, "a results file");
    const end = wholeLinesLength(bytes);
    if (cut && end < bytes.length) {
      const fd = openRegularFile(path, constants.O_WRONLY);
      try {
        ftruncateSync(fd, end);
      } finally {
        closeSync(fd);
      }
    }
    bytes = bytes.subarray(0, end);
  } catch (error) {
    throw fileError(path, error);
  }
  // no whole line: the sweep was stopped before its header was written whole, so it holds no run
  if (bytes.length === 0) return undefined;
  const lines = bytes.toString("utf8").split("\n");
  lines.pop(); // after the last newline: nothing
  const header = readHeader(lines[0] ?? "", path);
  const records = new Map<string, RunRecord>();
  for (const [i, line] of lines.slice(1).entries()) {
    if (line.trim() === "") continue;
    let record: RunRecord | undefined;
    try {
      record = asRecord(JSON.parse(line));
    } catch {
      record = undefined;
    }
    if (!record)
      throw new EvalSetupError(
        "unsupported",
        `${path}: line ${i + 2} is not a run record (the file was edited?): fix or delete that line, or start without --resume`,
      );
    const key = recordKey(record);
    if (!records.has(key)) records.set(key, record);
  }
  return { header, records: [...records.values()] };
}

/** Runs a whole sweep of `header` makes. */
function expectedRuns(header: ResultsHeader): number {
  return header.models.length * header.budgets.length * header.seeds.length * header.tasks;
}

/**
 * A fresh sweep must not wipe out an unfinished one: a results file that holds part of a sweep is refused (resume it,
 * or delete it). A finished sweep's file, or one that is not a results file, is replaced; a FIFO, device or huge file
 * is refused.
 */
function refuseUnfinished(path: string, header: ResultsHeader): void {
  if (!existsSync(path)) return;
  let read: ReturnType<typeof readEarlier>;
  try {
    read = readEarlier(path, false);
  } catch (error) {
    if ((error as { cause?: unknown }).cause instanceof RegularFileError) throw error;
    return;
  }
  if (!read) return;
  const expected = expectedRuns(read.header);
  if (read.records.length >= expected) return;
  const same = sameHeader(read.header, header) === undefined;
  throw new EvalSetupError(
    "unsupported",
    `${path} holds an unfinished sweep (${read.records.length} of ${expected} runs): ${same ? "add --resume to finish it" : "it is another sweep"}, or delete the file to start over`,
  );
}

/** The lock beside the results file: a second sweep writing it (two `--resume` at once) is refused. */
function lockResults(path: string): () => void {
  return takeLock(`${path}.lock`, (why) =>
    "pid" in why
      ? new EvalSetupError(
          "unsupported",
          `${path} is being written by another eval sweep (process ${why.pid}); wait for it to end, or give another --out or --results`,
        )
      : fileError(path, why.error, "write"),
  );
}

/**
 * Open the results file of a sweep: a new one (its header written now), or with `resume` the file of an interrupted
 * sweep of the same suite, models, budgets and seeds, whose records are returned and appended to (a file that holds no
 * whole line, its sweep killed before the header was written, is started over). Each finished run
 * is one line, written whole or not at all (a full disk stops the sweep with an error; the lines before stay); a run
 * cut short by an interrupt or a harness error is not written, so a resumed sweep runs it again (and none twice: a
 * record already in the file is never written again). The file is locked while open: a second sweep on it refuses.
 */
export function openResultsFile(path: string, header: ResultsHeader, resume: boolean): ResultsFile {
  mkdirSync(dirname(path), { recursive: true });
  const release = lockResults(path);
  try {
    return openLocked(path, header, resume, release);
  } catch (error) {
    release();
    throw error;
  }
}

function openLocked(path: string, header: ResultsHeader, resume: boolean, release: () => void): ResultsFile {
  let earlier: RunRecord[] = [];
  if (!resume) refuseUnfinished(path, header);
  if (resume) {
    if (!existsSync(path))
      throw new EvalSetupError("unsupported", `--resume: there is no ${path} to resume (run once without --resume)`);
    const read = readEarlier(path, true);
    if (!read) return openLocked(path, header, false, release); // killed before its header was whole: start over
    const differs = sameHeader(read.header, header);
    if (differs) throw new EvalSetupError("unsupported", `--resume: ${path} is another sweep (${differs})`);
    if (read.records.length > expectedRuns(read.header))
      throw new EvalSetupError(
        "unsupported",
        `--resume: ${path} holds ${read.records.length} different runs, more than its sweep's ${expectedRuns(read.header)} (the file was edited?)`,
      );
    earlier = read.records;
  }
  let fd: number;
  try {
    fd = openRegularFile(
      path,
      constants.O_WRONLY | constants.O_CREAT | (resume ? constants.O_APPEND : constants.O_TRUNC),
    );
    if (!resume) appendWhole(fd, `${JSON.stringify({ kind: KIND, version: 1, header })}\n`);
  } catch (error) {
    throw fileError(path, error, "write");
  }
  const written = new Set(earlier.map(recordKey));
  return {
    path,
    earlier,
    append(record) {
      if (record.stopReason === "aborted" || record.stopReason === "harness_error") return;
      const key = recordKey(record);
      if (written.has(key)) return;
      try {
        // no fsync per run: a sweep writes thousands; a killed process loses none of the lines written
        appendWhole(fd, `${JSON.stringify({ run: record })}\n`, { sync: false });
      } catch (error) {
        throw fileError(path, error, "write");
      }
      written.add(key);
    },
    close: () => {
      closeSync(fd);
      release();
    },
  };
}
