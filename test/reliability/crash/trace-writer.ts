/**
 * Crash trials of a trace (`ask --trace FILE`): a scripted run of 150 skill calls (each reply with a 5 KB thought, so
 * an event is a few pages) killed at a random point, half the trials with the file's writes slowed. After each kill
 * the trace is absent, or the replay reader (`readTrace`, what `eval --model replay:FILE` reads) gives exactly its
 * whole records: a torn tail is neither read as an event nor a reason to refuse the records before it (a trace with
 * no whole model reply yet is refused as holding none). Then `--overwrite-trace` on the same path runs to the end.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { readTrace, recordedSteps } from "../../../src/eval/models/replay-model.js";
import type { AgentEvent } from "../../../src/agent/events.js";
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

const CALLS = 150;
/** An event of 10 KB in 10 pieces: about 2 ms a write. */
const SLOW_PIECE = 1024;

function script(dir: string): string {
  const path = join(dir, "replies.json");
  const thought = "Let me add these up carefully. ".repeat(170);
  const calls = Array.from({ length: CALLS }, (_, i) => ({
    thought: `${i}: ${thought}`,
    skill_name: "calculator",
    arguments: { expression: `${i} + 1` },
  }));
  writeFileSync(path, JSON.stringify([...calls, { final_answer: "The sums are done." }]));
  return path;
}

const ask = (replies: string, trace: string, ...flags: string[]) => [
  "ask",
  "Add up the numbers.",
  "--model",
  `script:${replies}`,
  "--trace",
  trace,
  "--max-iterations",
  String(CALLS + 5),
  "--quiet",
  ...flags,
];

/** A line's event, or undefined when it is not a whole one. */
function eventOf(line: string): AgentEvent | undefined {
  try {
    const value = JSON.parse(line) as AgentEvent;
    return typeof value?.type === "string" && typeof value.step === "number" ? value : undefined;
  } catch {
    return undefined;
  }
}

export const traceWriter: CrashWriter = {
  name: "trace",
  async prepare(work, cli, log) {
    mkdirSync(work, { recursive: true });
    const replies = script(work);
    const windows: KillWindow[] = [];
    let events = 0;
    for (const slow of [false, true]) {
      const folder = join(work, `calibrate-${slow}`);
      const trace = join(folder, "trace.jsonl");
      const { run, window } = await calibrate(
        cli,
        ask(replies, trace),
        folder,
        slow ? { slowWritesUnder: work, slowPieceBytes: SLOW_PIECE } : {},
      );
      if (run.status !== 0) throw new Error(`reference run: ${described(run)}`);
      events = readTrace(trace).length;
      windows.push(window);
    }
    log(`trace: a run writes from ${windowText(windows[0])}, slowed ${windowText(windows[1])}`);
    const trial = (context: TrialContext) => traceTrial(context, cli, replies, windows, events);
    return { trial, close: async () => {} } satisfies PreparedWriter;
  },
};

async function traceTrial(
  context: TrialContext,
  cli: string,
  replies: string,
  [plain, slowed]: KillWindow[],
  events: number,
): Promise<void> {
  const { random, dir, tally } = context;
  const trace = join(dir, "trace.jsonl");
  const slow = random() < 0.5;
  const run = startCli(cli, ask(replies, trace), {
    watch: dir,
    ...(slow && { slowWritesUnder: dir, slowPieceBytes: SLOW_PIECE }),
  });
  run.killAt(drawKill(random, slow ? slowed : plain));
  const ended = await run.result;
  if (!ended.killed) {
    if (ended.status !== 0) tally.failures.push(`a run not killed: ${described(ended)}`);
    return;
  }
  tally.kills++;
  if (existsSync(trace)) checkTrace(context, trace);
  const next = await runCli(cli, ask(replies, trace, "--overwrite-trace"));
  if (next.status !== 0) tally.failures.push(`the next run: ${described(next)}`);
  else if (readTrace(trace).length !== events)
    tally.failures.push(`the next run's trace holds ${readTrace(trace).length} events, not ${events}`);
}

/** A killed run's trace: the replay reader gives exactly its whole records, or refuses it for holding no reply. */
function checkTrace(context: TrialContext, trace: string): void {
  const { tally } = context;
  const bytes = readFileSync(trace);
  const end = bytes.lastIndexOf(0x0a) + 1;
  const lines = bytes.subarray(0, end).toString("utf8").split("\n");
  lines.pop();
  const whole = lines.filter((line) => line.trim() !== "").map(eventOf);
  if (whole.some((event) => event === undefined)) tally.torn++;
  const expected = whole.filter((event): event is AgentEvent => event !== undefined);
  const tail = bytes.subarray(end).toString("utf8");
  // a last record whole but for its newline is a record (the conversation reader keeps one the same way)
  const tailEvent = tail.trim() === "" ? undefined : eventOf(tail);
  if (tail.trim() !== "" && !tailEvent) tally.midWrite++;
  const acceptable = [expected, ...(tailEvent ? [[...expected, tailEvent]] : [])];
  let read: AgentEvent[];
  try {
    read = readTrace(trace);
  } catch (error) {
    const message = (error as Error).message;
    if (/records no model reply/.test(message) && recordedSteps(expected).length === 0) return;
    if (/not JSON|not an event/.test(message)) tally.torn++;
    else tally.failures.push(`the replay reader refused the trace: ${message.slice(0, 200)}`);
    return;
  }
  if (!acceptable.some((events) => isDeepStrictEqual(read, events))) {
    if (read.length > expected.length + (tailEvent ? 1 : 0)) tally.torn++;
    else tally.lost += Math.max(1, expected.length - read.length);
  }
}
