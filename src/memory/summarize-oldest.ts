import { MEMORY_SUMMARY_MAX_TOKENS, MEMORY_TRIM_TARGET } from "../defaults.js";
import type { ChatFormat } from "../prompt/chat-format.js";
import { describeThrown } from "../safe-stringify.js";
import type { Conversation, ConversationTurn } from "./conversation.js";
import { historyView } from "./history.js";
import { cleanSummary, summaryPrompt } from "./summarize.js";
import { estimateTokens, type TokenCounter } from "./token-counter.js";

/** The summary's model call as the caller makes it: its reply and, when the model reports them, its tokens. */
export interface SummaryGeneration {
  text: string;
  tokens?: { prompt: number; generated: number };
}

/** How a summary is written: the conversation it goes to, and the model call that writes it. */
export interface SummaryWriter {
  /** The conversation; it gets the summary when one is written. */
  conversation: Conversation;
  /** The model's token counter: it measures the summary. */
  counter: TokenCounter;
  /** The model's chat format, for the summarizing prompt. */
  format: ChatFormat;
  /** One plain (unconstrained) model call; the caller adds its signal and counts the call into the run's stats. */
  generate: (prompt: string, options: { maxTokens: number }) => Promise<SummaryGeneration>;
  /** The turn's signal: a call that fails because it aborted rethrows instead of reporting a failed summary. */
  signal?: AbortSignal;
}

/** What `summarizeOldest` needs from the run that is about to start. */
export interface SummarizeOldestInput extends SummaryWriter {
  /** The tokens the turn's first prompt may take (the agent's prompt budget). */
  limit: number;
  /** Tokens of the turn's first prompt with its history at trim level `level` (see HistoryView). */
  count: (level: number) => Promise<number>;
}

/** A summary the conversation now keeps, and what its model call took. */
export interface SummaryWritten {
  /** Turns of the conversation the summary now stands for. */
  summarizedTurns: number;
  /** The index of the newest turn it covers. */
  covers: number;
  summaryTokens: number;
  /** The summary's token count is an estimate (the model has no tokenizer). */
  estimated: boolean;
  /** The call's prompt and generated tokens (estimated where the model reports none). */
  input: number;
  output: number;
}

/** A summary written, or the reason it could not be. */
export type SummarizeOldestResult = SummaryWritten | { failed: string };

/**
 * `summarize_oldest`: when the turn's first prompt would exceed the budget and fitting it would leave out old turns
 * (down to MEMORY_TRIM_TARGET of the limit), the model summarizes those turns (and the summary before them) instead;
 * the conversation keeps the summary, which stands for them from now on, and the history the trim of that level (the
 * turns it keeps are shown as they were there). Undefined when nothing needs summarizing.
 * A failed call is reported (`failed`), not thrown, unless the signal aborted it.
 */
export async function summarizeOldest(input: SummarizeOldestInput): Promise<SummarizeOldestResult | undefined> {
  const { conversation, limit, count } = input;
  const history = historyView(conversation);
  if (history.levels === 0) return undefined;
  if ((await count(0)) <= limit) return undefined;
  let level = 1;
  while (level < history.levels && (await count(level)) > limit * MEMORY_TRIM_TARGET) level++;
  const dropped = history.droppedAt(level);
  if (dropped.length === 0) return undefined;
  const result = await summarizeTurns(input, dropped);
  // the turns left at `level` keep its trim (the old ones without their skill steps), the summary in the note's place
  if (!("failed" in result)) conversation.trim = history.trimAt(level);
  return result;
}

/**
 * The model summarizes `dropped` (the oldest turns no summary stands for yet, in order) together with the summary
 * before them, in at most MEMORY_SUMMARY_MAX_TOKENS tokens; the conversation keeps it, and it stands for every turn up
 * to the newest of them from now on. Both the turn's first prompt ({@link summarizeOldest}) and a trim inside the
 * turn (the agent's fitStep) write summaries this way. A failed call is reported (`failed`), not thrown, unless the
 * signal aborted it.
 */
export async function summarizeTurns(
  writer: SummaryWriter,
  dropped: readonly ConversationTurn[],
): Promise<SummarizeOldestResult> {
  const { conversation, counter, signal } = writer;
  try {
    const prompt = summaryPrompt(writer.format, dropped, conversation.summary?.text);
    const call = await writer.generate(prompt, { maxTokens: MEMORY_SUMMARY_MAX_TOKENS });
    const text = cleanSummary(call.text);
    const summaryTokens = await counter.count(text);
    const covers = dropped.at(-1)!.index;
    conversation.setSummary({ covers, text, tokens: summaryTokens });
    return {
      summarizedTurns: conversation.turns.filter((t) => t.index <= covers).length,
      covers,
      summaryTokens,
      estimated: counter.estimated,
      input: call.tokens?.prompt ?? estimateTokens(prompt),
      output: call.tokens?.generated ?? estimateTokens(call.text),
    };
  } catch (error) {
    if (signal?.aborted) throw error;
    return { failed: describeThrown(error) };
  }
}
