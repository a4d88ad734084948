import { closeSync, constants, ftruncateSync, rmSync } from "node:fs";
import { z } from "zod";
import { CodedError } from "../coded-error.js";
import { MAX_CONVERSATION_FILE_BYTES } from "../defaults.js";
import { formatIssuePath } from "../issue-path.js";
import { takeLock } from "../lock-file.js";
import { appendWhole, openRegularFile, readRegularFile, RegularFileError } from "../regular-file.js";

/** Why a conversation file cannot be used. */
export type ConversationErrorCode =
  "corrupt" | "unreadable" | "unwritable" | "exists" | "not_a_file" | "too_large" | "locked";

/** A conversation file that cannot be read or written; the message names the file (and the line). */
export class ConversationError extends CodedError<ConversationErrorCode> {
  override readonly name = "ConversationError";
  constructor(
    code: ConversationErrorCode,
    message: string,
    readonly path?: string,
  ) {
    super(code, message);
  }
}

const message = z.object({ role: z.enum(["user", "model"]), content: z.string() });

const call = z.object({
  skill: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  result: z.string().optional(),
  error: z.string().optional(),
});

/** One turn as stored: the user's message, what the agent did, its answer, and the exact messages the model saw. */
export const turnRecordSchema = z.object({
  type: z.literal("turn"),
  /** 1-based over the whole file (resets included). */
  index: z.number().int().min(1),
  /** ISO time the turn ended. */
  at: z.string(),
  user: z.string(),
  answer: z.string().optional(),
  /** The typed reply (an output schema's JSON value). */
  reply: z.unknown().optional(),
  stopReason: z.string(),
  calls: z.array(call),
  /** The model's replies and what came back, as the prompt showed them (rendered again, they keep the KV cache valid). */
  messages: z.array(message),
});

/** A summary the model wrote of the oldest turns (`summarize_oldest`): it stands for the turns up to `covers`. */
export const summaryRecordSchema = z.object({
  type: z.literal("summary"),
  at: z.string(),
  /** The `index` of the newest turn it covers. */
  covers: z.number().int().min(0),
  text: z.string(),
  /** Tokens of the summary's text as generated. */
  tokens: z.number().int().min(0).optional(),
});

/** The conversation was reset (`/reset`): the turns before it stay in the file but leave the memory. */
export const resetRecordSchema = z.object({ type: z.literal("reset"), at: z.string() });

/** The first line of a file: what it is. */
export const headerRecordSchema = z.object({
  type: z.literal("conversation"),
  version: z.literal(1),
  at: z.string(),
  agent: z.string().optional(),
});

const recordSchema = z.discriminatedUnion("type", [
  turnRecordSchema,
  summaryRecordSchema,
  resetRecordSchema,
  headerRecordSchema,
]);

/** One line of a conversation file. */
export type ConversationRecord = z.infer<typeof recordSchema>;

/** What reading a file found: its records and, when its last line was torn (a crash mid-write), what was cut off. */
export interface ReadConversation {
  records: ConversationRecord[];
  /** Set when the last line was not a whole record: it was removed from the file, and this says so. */
  tornLine?: string;
}

function parseRecord(line: string, lineNumber: number, path: string): ConversationRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = recordSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ConversationError(
    "corrupt",
    `${path}:${lineNumber}: not a conversation record (${formatIssuePath(issue.path)}: ${issue.message})`,
    path,
  );
}

/** A file error as a ConversationError: the file's kind of problem kept (not a file, too large), else `fallback`. */
function fileError(
  path: string,
  error: unknown,
  fallback: "unreadable" | "unwritable",
  verb: string,
): ConversationError {
  if (error instanceof ConversationError) return error;
  if (error instanceof RegularFileError && (error.code === "not_a_file" || error.code === "too_large"))
    return new ConversationError(error.code, error.message, path);
  const reason = error instanceof RegularFileError ? error.message.replace(`${path}: `, "") : (error as Error).message;
  return new ConversationError(fallback, `cannot ${verb} ${path}: ${reason}`, path);
}

/** Run `use` on `path` opened for appending (a regular file only, never blocking on a FIFO), then close it. */
function withAppend(path: string, create: boolean, use: (fd: number) => void): void {
  let fd: number;
  try {
    fd = openRegularFile(path, constants.O_WRONLY | constants.O_APPEND | (create ? constants.O_CREAT : 0));
  } catch (error) {
    throw fileError(path, error, "unwritable", "write");
  }
  try {
    use(fd);
  } catch (error) {
    throw fileError(path, error, "unwritable", "write");
  } finally {
    closeSync(fd);
  }
}

/**
 * Read a conversation file (a regular file of at most MAX_CONVERSATION_FILE_BYTES). A last line without its newline
 * that is not a whole record (the process stopped while writing it) is cut off the file at the byte where it starts,
 * so the next turn is appended after the last whole one, and reported in `tornLine`; the earlier turns are kept. The
 * file is read as bytes, so invalid UTF-8 anywhere moves no cut. A bad line anywhere else, a newline-ended last one
 * included (it was written whole), is a `corrupt` error naming it: that is not a crash, and guessing would lose turns.
 */
export function readConversationFile(path: string): ReadConversation {
  let bytes: Buffer;
  try {
    bytes = readRegularFile(path, MAX_CONVERSATION_FILE_BYTES, "a conversation file");
  } catch (error) {
    throw fileError(path, error, "unreadable", "read");
  }
  const records: ConversationRecord[] = [];
  let start = 0;
  for (let lineNumber = 1; start < bytes.length; lineNumber++) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    const line = bytes.toString("utf8", start, end);
    const record = line.trim() === "" ? null : parseRecord(line, lineNumber, path);
    if (record === undefined) {
      if (newline !== -1) throw new ConversationError("corrupt", `${path}:${lineNumber}: not JSON`, path);
      withAppend(path, false, (fd) => ftruncateSync(fd, start));
      const turns = records.filter((r) => r.type === "turn").length;
      return {
        records,
        tornLine: `${path}:${lineNumber}: the last line was not a whole record (${end - start} bytes, written when the process stopped?); it was removed and the ${turns} turn(s) before it kept`,
      };
    }
    if (record) records.push(record);
    start = end + 1;
  }
  // a whole last record without its newline: end the line, so the next record starts on its own
  if (bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a) withAppend(path, false, (fd) => appendWhole(fd, "\n"));
  return { records };
}

/**
 * Make sure `path` can take this process's turns before any turn runs: the lock `path.lock` taken (a second process
 * writing the same conversation is refused: its turns would interleave and repeat indexes; a lock left by a process
 * that died is taken over), which also proves the folder writable, and an existing file opened for appending (a
 * read-only file is refused now, not after the model answered). Returns the lock's release.
 */
export function claimConversationFile(path: string, exists: boolean): () => void {
  const release = takeLock(`${path}.lock`, (why) =>
    "pid" in why
      ? new ConversationError(
          "locked",
          `${path} is in use by another gemma-agent (process ${why.pid}); wait for it to end, or give another --conversation file`,
          path,
        )
      : new ConversationError("unwritable", `cannot write ${path}: ${why.error.message}`, path),
  );
  if (exists) {
    try {
      withAppend(path, false, () => {});
    } catch (error) {
      release();
      throw error;
    }
  }
  return release;
}

/**
 * Append records as lines and flush them to the disk before returning (a crash after it loses none of them), whole or
 * not at all: a short or failed write (a full disk) leaves the file as it was and throws `unwritable`.
 */
export function appendConversationRecords(path: string, records: readonly ConversationRecord[]): void {
  withAppend(path, true, (fd) => appendWhole(fd, records.map((r) => `${JSON.stringify(r)}\n`).join("")));
}

/** Write records to a new file (O_EXCL: an existing file is never replaced), whole or not at all. */
export function writeNewConversationFile(path: string, records: readonly ConversationRecord[]): void {
  let fd: number;
  try {
    fd = openRegularFile(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
  } catch (error) {
    if (error instanceof RegularFileError && error.code === "unreadable" && /EEXIST/.test(error.message))
      throw new ConversationError("exists", `${path} already exists; give a new file name`, path);
    throw fileError(path, error, "unwritable", "write");
  }
  try {
    appendWhole(fd, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
  } catch (error) {
    rmSync(path, { force: true }); // the file this call created, empty again: not left as if saved
    throw fileError(path, error, "unwritable", "write");
  } finally {
    closeSync(fd);
  }
}
