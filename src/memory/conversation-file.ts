import {
  appendFileSync,
  closeSync,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  statSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { z } from "zod";
import { CodedError } from "../coded-error.js";
import { formatIssuePath } from "../issue-path.js";

/** Why a conversation file cannot be used. */
export type ConversationErrorCode = "corrupt" | "unreadable" | "exists" | "not_a_file";

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

/**
 * Read a conversation file. A last line that is not a whole record (the process stopped while writing it) is cut off
 * the file, so the next turn is appended after the last whole one, and reported in `tornLine`; the earlier turns are
 * kept. A bad line anywhere else is a `corrupt` error naming it: that is not a crash, and guessing would lose turns.
 */
export function readConversationFile(path: string): ReadConversation {
  let text: string;
  try {
    if (!statSync(path).isFile())
      throw new ConversationError("not_a_file", `${path} is not a regular file: give the path of a .jsonl file`, path);
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof ConversationError) throw error;
    throw new ConversationError("unreadable", `cannot read ${path}: ${(error as Error).message}`, path);
  }
  const lines = text.split("\n");
  const records: ConversationRecord[] = [];
  let offset = 0;
  for (const [i, line] of lines.entries()) {
    const last = i === lines.length - 1 || (i === lines.length - 2 && lines[lines.length - 1] === "");
    if (line.trim() !== "") {
      const record = parseRecord(line, i + 1, path);
      if (!record) {
        if (!last) throw new ConversationError("corrupt", `${path}:${i + 1}: not JSON`, path);
        truncateSync(path, Buffer.byteLength(text.slice(0, offset)));
        return {
          records,
          tornLine: `${path}:${i + 1}: the last line was not a whole record (${Buffer.byteLength(line)} bytes, written when the process stopped?); it was removed and the ${records.filter((r) => r.type === "turn").length} turn(s) before it kept`,
        };
      }
      records.push(record);
    }
    offset += line.length + 1;
  }
  // a whole last record without its newline: end the line, so the next record starts on its own
  if (text !== "" && !text.endsWith("\n")) appendFileSync(path, "\n");
  return { records };
}

/** Append records as lines and flush them to the disk before returning (a crash after it loses none of them). */
export function appendConversationRecords(path: string, records: readonly ConversationRecord[]): void {
  let fd: number;
  try {
    fd = openSync(path, "a", 0o644);
  } catch (error) {
    throw new ConversationError("unreadable", `cannot write ${path}: ${(error as Error).message}`, path);
  }
  try {
    if (!fstatSync(fd).isFile())
      throw new ConversationError("not_a_file", `${path} is not a regular file: give the path of a .jsonl file`, path);
    writeSync(fd, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Write records to a new file (`wx`: an existing file is never replaced). */
export function writeNewConversationFile(path: string, records: readonly ConversationRecord[]): void {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new ConversationError("exists", `${path} already exists; give a new file name`, path);
    throw new ConversationError("unreadable", `cannot write ${path}: ${(error as Error).message}`, path);
  }
  try {
    writeSync(fd, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
