/**
 * Crash trials of a conversation file (`chat --conversation FILE`): a chat of 120 scripted turns (answers of about 1 KB,
 * each a turn record flushed to the disk before it is printed) killed at a random point, up to three times in a row on
 * the same file, half the trials with the file's writes slowed; then a chat of two more turns to the end. After each
 * kill the file must load as the reader loads it (whole lines, each a record; a torn tail cut), every turn whole,
 * every answer printed before the kill in the file, turns numbered 1, 2, 3, ... once each; the next chat must work and
 * add its turns after them, the file keeping its header.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import {
  headerRecordSchema,
  resetRecordSchema,
  summaryRecordSchema,
  turnRecordSchema,
} from "../../../src/memory/conversation-file.js";
import {
  calibrate,
  described,
  drawKill,
  windowText,
  runCli,
  startCli,
  type CrashWriter,
  type KillWindow,
  type PreparedWriter,
  type TrialContext,
} from "./harness.js";

const TURNS = 120;
const FILLER = " and so on".repeat(100);
/** A turn record (about 3 KB: the answer is in it three times) in 24 pieces: about 5 ms a write. */
const SLOW_PIECE = 128;
const record = z.union([turnRecordSchema, headerRecordSchema, summaryRecordSchema, resetRecordSchema]);

/** The answer of turn `turn` of run `run` (unique, so that a turn can be told from every other). */
const answerOf = (run: number, turn: number) => `answer ${run}.${turn}${FILLER}`;

/** The scripted replies and the input lines of a chat of `turns` turns, as run `run`. */
function chatFiles(dir: string, run: number, turns: number): { script: string; input: string } {
  const script = join(dir, `replies-${run}.json`);
  writeFileSync(
    script,
    JSON.stringify(Array.from({ length: turns }, (_, t) => ({ final_answer: answerOf(run, t + 1) }))),
  );
  const input = Array.from({ length: turns }, (_, t) => `question ${run}.${t + 1}\n`).join("");
  return { script, input };
}

/** The answers a chat printed in whole lines (a line cut by the kill is not one). */
function printedAnswers(stdout: string): string[] {
  const lines = stdout.split("\n");
  lines.pop();
  return lines.filter((line) => line.startsWith("answer "));
}

/** The file as its reader takes it: whole lines, and a last line without its newline when it is a whole record. */
function loaded(path: string): { records: z.infer<typeof record>[]; bad: number; tornTail: boolean } {
  const bytes = readFileSync(path);
  const text = bytes.toString("utf8");
  const lines = text.split("\n");
  const tail = lines.pop()!;
  const records: z.infer<typeof record>[] = [];
  let bad = 0;
  const parse = (line: string) => {
    try {
      const parsed = record.safeParse(JSON.parse(line));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  };
  for (const line of lines) {
    if (line.trim() === "") continue;
    const value = parse(line);
    if (value) records.push(value);
    else bad++;
  }
  const last = tail === "" ? undefined : parse(tail);
  if (last) records.push(last);
  return { records, bad, tornTail: tail !== "" && !last };
}

export const conversationWriter: CrashWriter = {
  name: "conversation",
  async prepare(work, cli, log) {
    mkdirSync(work, { recursive: true });
    const windows: KillWindow[] = [];
    for (const slow of [false, true]) {
      const files = chatFiles(work, 0, TURNS);
      const folder = join(work, `calibrate-${slow}`);
      const { run, window } = await calibrate(cli, chat(files.script, join(folder, "c.jsonl")), folder, {
        input: files.input,
        ...(slow && { slowWritesUnder: work, slowPieceBytes: SLOW_PIECE }),
      });
      if (run.status !== 0 || printedAnswers(run.stdout).length !== TURNS)
        throw new Error(`reference chat: ${described(run)}`);
      windows.push(window);
    }
    log(`conversation: a chat writes from ${windowText(windows[0])}, slowed ${windowText(windows[1])}`);
    const trial = (context: TrialContext) => conversationTrial(context, cli, windows);
    return { trial, close: async () => {} } satisfies PreparedWriter;
  },
};

const chat = (script: string, file: string) => ["chat", "--model", `script:${script}`, "--conversation", file];

async function conversationTrial(context: TrialContext, cli: string, [plain, slowed]: KillWindow[]): Promise<void> {
  const { random, dir, tally } = context;
  const path = join(dir, "conversation.jsonl");
  const slow = random() < 0.5;
  const kills = 1 + Math.floor(random() * Math.min(3, context.killsLeft));
  const printed: string[] = [];
  let run = 0;
  for (let k = 0; k < kills; k++) {
    const files = chatFiles(dir, ++run, TURNS);
    const started = startCli(cli, chat(files.script, path), {
      input: files.input,
      watch: dir,
      ...(slow && { slowWritesUnder: dir, slowPieceBytes: SLOW_PIECE }),
    });
    started.killAt(drawKill(random, slow ? slowed : plain));
    const ended = await started.result;
    printed.push(...printedAnswers(ended.stdout));
    if (!ended.killed) {
      if (ended.status !== 0) tally.failures.push(`a chat after a kill: ${described(ended)}`);
      continue;
    }
    tally.kills++;
    if (existsSync(path)) checkFile(context, path, printed, "after a kill");
  }
  const files = chatFiles(dir, ++run, 2);
  const before = existsSync(path) ? turnsOf(loaded(path).records).length : 0;
  const next = await runCli(cli, chat(files.script, path), { input: files.input });
  if (next.status !== 0 || printedAnswers(next.stdout).length !== 2) {
    tally.failures.push(`the chat after ${kills} kill(s): ${described(next)}`);
    return;
  }
  printed.push(...printedAnswers(next.stdout));
  const turns = checkFile(context, path, printed, "after the next chat");
  if (readFileSync(path).at(-1) !== 0x0a) tally.torn++;
  const added = turns.slice(before).map((turn) => turn.answer);
  if (added.length !== 2 || added[0] !== answerOf(run, 1) || added[1] !== answerOf(run, 2))
    tally.failures.push(`the next chat's turns are not the last two (${added.length} after the ${before} kept)`);
  const first = loaded(path).records[0];
  if (first?.type !== "conversation") tally.failures.push("after the next chat, the file has no header line first");
}

function turnsOf(records: z.infer<typeof record>[]) {
  return records.flatMap((r) => (r.type === "turn" ? [r] : []));
}

/** Check the file against the answers printed so far; its turns. */
function checkFile(context: TrialContext, path: string, printed: string[], when: string) {
  const { tally } = context;
  const { records, bad, tornTail } = loaded(path);
  if (tornTail) tally.midWrite++;
  tally.torn += bad;
  const turns = turnsOf(records);
  const indexes = turns.map((turn) => turn.index);
  if (new Set(indexes).size !== indexes.length) tally.doubled += indexes.length - new Set(indexes).size;
  if (indexes.some((index, i) => index !== i + 1))
    tally.failures.push(`${when}: turns numbered ${indexes.slice(0, 8).join(",")}..., not 1, 2, 3, ...`);
  const answers = turns.map((turn) => turn.answer);
  if (new Set(answers).size !== answers.length) tally.doubled += answers.length - new Set(answers).size;
  const present = new Set(answers);
  for (const answer of printed) if (!present.has(answer)) tally.lost++;
  return turns;
}
