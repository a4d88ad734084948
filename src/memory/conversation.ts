import { existsSync } from "node:fs";
import { resolve } from "node:path";
import {
  appendConversationRecords,
  claimConversationFile,
  readConversationFile,
  writeNewConversationFile,
  type ConversationRecord,
} from "./conversation-file.js";

/** One skill call of a turn and how it ended. */
export interface ConversationCall {
  skill: string;
  arguments: Record<string, unknown>;
  /** The result as the model saw it. */
  result?: string;
  /** Why the call failed, as the model saw it. */
  error?: string;
}

/** A message of a turn after the user's: the model's replies and the results, errors and feedback it was shown. */
export interface TurnMessage {
  role: "user" | "model";
  content: string;
}

/** One turn: the user's message, the skill calls the agent made, its answer. */
export interface ConversationTurn {
  /** 1-based over the whole conversation (turns before a reset included). */
  readonly index: number;
  /** ISO time the turn ended. */
  readonly at: string;
  readonly user: string;
  /** The answer, absent when the turn ended without one. */
  readonly answer?: string;
  /** The typed reply: the output schema's JSON value, or the answer text. */
  readonly reply?: unknown;
  /** Why the turn's run stopped (`answer`, `max_iterations`, `aborted`, ...). */
  readonly stopReason: string;
  readonly calls: readonly ConversationCall[];
  /** The model's replies and what came back to it, after the user's message, exactly as the prompt showed them. */
  readonly messages: readonly TurnMessage[];
}

/** A turn as the agent hands it in (the conversation numbers and dates it). */
export type NewTurn = Omit<ConversationTurn, "index" | "at">;

/** The model's summary of the oldest turns (`summarize_oldest`): it stands for every turn up to `covers`. */
export interface ConversationSummary {
  /** `index` of the newest turn it stands for. */
  readonly covers: number;
  readonly text: string;
  readonly tokens?: number;
}

/** How far the history is trimmed in the prompt: the oldest turns without their skill steps, and those left out. */
export interface HistoryTrim {
  strippedTurns: number;
  droppedTurns: number;
}

/**
 * The turns of a conversation with an agent: in memory, and with a `path`, on disk as JSON Lines, one record per
 * turn, appended and flushed to the disk as each turn ends (a crash loses at most the turn under way). The file keeps
 * every turn; what the prompt shows of them is the memory's business (history.ts): trimming never deletes a turn.
 */
export class Conversation {
  /** The JSON Lines file, when the conversation is kept on disk. */
  readonly path: string | undefined;
  /** Problems found while reading the file (a torn last line), for the caller to report. */
  readonly warnings: string[] = [];
  /** How the history was trimmed for the latest turn's prompt (the next turn starts from there, so its prefix holds). */
  trim: HistoryTrim = { strippedTurns: 0, droppedTurns: 0 };
  #turns: ConversationTurn[] = [];
  #summary: ConversationSummary | undefined;
  #lastIndex = 0;
  #started: boolean;
  #release: (() => void) | undefined;
  readonly #agent: string | undefined;

  /** A new conversation; with `path`, kept in that file (created with the first turn; see {@link Conversation.open}). */
  constructor(options: { path?: string; agent?: string } = {}) {
    this.path = options.path === undefined ? undefined : resolve(options.path);
    this.#agent = options.agent;
    this.#started = this.path !== undefined && existsSync(this.path);
  }

  /**
   * The conversation kept in `path`: its turns since the last reset when the file exists (a torn last line is cut off
   * and reported in `warnings`), a new one otherwise (the file is created with the first turn).
   */
  static open(path: string, options: { agent?: string } = {}): Conversation {
    const conversation = new Conversation({ path, ...options });
    conversation.#claim();
    if (conversation.#started) {
      const read = readConversationFile(conversation.path!);
      if (read.tornLine) conversation.warnings.push(read.tornLine);
      for (const record of read.records) conversation.#take(record);
      // a file with no record (its first write was cut short by a crash, and the torn line cut off) starts again with
      // its header, as a new one does
      conversation.#started = read.records.length > 0;
    }
    return conversation;
  }

  /**
   * Let another process write the file (the lock taken at `open` or at the first write is released; it is released at
   * the process's exit anyway). A later write takes it again.
   */
  close(): void {
    this.#release?.();
    this.#release = undefined;
  }

  /** Take the file's lock and check it can be written (see claimConversationFile), once. */
  #claim(): void {
    if (this.path !== undefined && this.#release === undefined)
      this.#release = claimConversationFile(this.path, this.#started);
  }

  /** The turns in memory (since the last reset), oldest first. */
  get turns(): readonly ConversationTurn[] {
    return this.#turns;
  }

  /** The summary standing for the oldest turns, when the model wrote one. */
  get summary(): ConversationSummary | undefined {
    return this.#summary;
  }

  /** Append a turn: in memory and, with a file, on disk (flushed) before this returns. */
  addTurn(turn: NewTurn): ConversationTurn {
    const record = {
      type: "turn" as const,
      index: this.#lastIndex + 1,
      at: new Date().toISOString(),
      ...turn,
      calls: [...turn.calls],
      messages: [...turn.messages],
    };
    this.#write(record);
    this.#take(record);
    return this.#turns.at(-1)!;
  }

  /** Keep the model's summary of the turns up to index `covers` (written to the file too). */
  setSummary(summary: ConversationSummary): void {
    this.#write({ type: "summary", at: new Date().toISOString(), ...summary });
    this.#summary = { ...summary };
    this.trim = { strippedTurns: 0, droppedTurns: 0 };
  }

  /** Forget the turns (`/reset`); in a file they stay, before a reset record, and a later open starts after it. */
  reset(): void {
    if (this.#turns.length || this.#summary) this.#write({ type: "reset", at: new Date().toISOString() });
    this.#turns = [];
    this.#summary = undefined;
    this.trim = { strippedTurns: 0, droppedTurns: 0 };
  }

  /** Write the conversation in memory (turns and summary) to a new file; an existing file is never replaced. */
  saveAs(path: string): void {
    writeNewConversationFile(resolve(path), [this.#header(), ...this.records()]);
  }

  /** The records of the conversation in memory, as the file holds them. */
  records(): ConversationRecord[] {
    const at = new Date().toISOString();
    const summary: ConversationRecord[] = this.#summary ? [{ type: "summary", at, ...this.#summary }] : [];
    const turns: ConversationRecord[] = this.#turns.map((t) => ({
      type: "turn",
      ...t,
      calls: [...t.calls],
      messages: [...t.messages],
    }));
    const covered = this.#summary?.covers ?? 0;
    return [
      ...turns.filter((t) => t.type === "turn" && t.index <= covered),
      ...summary,
      ...turns.filter((t) => t.type === "turn" && t.index > covered),
    ];
  }

  #header(): ConversationRecord {
    return {
      type: "conversation",
      version: 1,
      at: new Date().toISOString(),
      ...(this.#agent && { agent: this.#agent }),
    };
  }

  #write(record: ConversationRecord): void {
    if (this.path === undefined) return;
    this.#claim();
    appendConversationRecords(this.path, this.#started ? [record] : [this.#header(), record]);
    this.#started = true;
  }

  #take(record: ConversationRecord): void {
    switch (record.type) {
      case "turn": {
        const { type: _type, ...turn } = record;
        this.#turns.push(turn);
        this.#lastIndex = Math.max(this.#lastIndex, record.index);
        break;
      }
      case "summary":
        this.#summary = {
          covers: record.covers,
          text: record.text,
          tokens: record.tokens,
        };
        break;
      case "reset":
        this.#turns = [];
        this.#summary = undefined;
        break;
      default:
        break;
    }
  }
}
