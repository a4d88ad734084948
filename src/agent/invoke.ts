import { DEFAULT_USE_GRAMMAR } from "../defaults.js";
import { Conversation, type ConversationCall, type NewTurn, type TurnMessage } from "../memory/conversation.js";
import { historyView, type HistoryView } from "../memory/history.js";
import {
  summarizeOldest,
  summarizeTurns,
  type SummarizeOldestResult,
  type SummaryWritten,
} from "../memory/summarize-oldest.js";
import type { ModelHandle } from "../model/model-handle.js";
import type { ChatFormat } from "../prompt/chat-format.js";
import { withoutUndefined } from "../without-undefined.js";
import { AgentState, emptyRunStats } from "./agent-state.js";
import type { MemoryOptions } from "../memory/memory-options.js";
import { isOwnEvent, type AgentEvent, type RunStats, type StopReason } from "./events.js";
import { generateCounted } from "./generate-counted.js";
import { checkFirstPrompt, promptBudget, type PromptBudget } from "./prompt-budget.js";

/** One turn of a conversation (see `Agent.invoke`): the run's budgets and signal (RunOptions), and the conversation. */
export interface InvokeOptions {
  /** Model calls at most. Default: the agent's `maxIterations`, else 8. */
  maxIterations?: number;
  /** Validation errors tolerated over the turn. Default: the agent's `maxRetries`, else 3. */
  maxRetries?: number;
  /** Aborting stops the turn promptly; the turn is still recorded (stop reason `aborted`). */
  signal?: AbortSignal;
  /** The conversation this message continues; it gets the turn appended (and saved, when it has a file). Default: a new one. */
  conversation?: Conversation;
  /** Each event of the turn as it happens (progress, a trace). */
  onEvent?: (event: AgentEvent) => void;
}

/** The tokens of a turn: its largest prompt against the budget and context, and its spend. */
export interface TurnTokens {
  /** The largest prompt of the turn's model calls. */
  prompt: number;
  /** Prompt and generated tokens over the turn's model calls (a summary's included). */
  input: number;
  output: number;
  total: number;
  /** The memory's token budget, when the agent has one. */
  budget?: number;
  /** The model's context size, when it says. */
  contextSize?: number;
  /** Some counts are estimates (the model reports no tokens, or has no tokenizer). */
  estimated: boolean;
}

/** What a turn came to. */
export interface InvokeResult {
  /** The typed reply: the output schema's JSON value, else the answer text; undefined without an answer. */
  reply: unknown;
  answer: string | undefined;
  /** The conversation, with this turn appended. */
  conversation: Conversation;
  iterations: number;
  tokens: TurnTokens;
  stopReason: StopReason;
  /** The turn's run: its events and stats. */
  state: AgentState;
}

/** The agent options `invoke` reads (AgentOptions' fields). */
export interface InvokeSettings {
  fitContext?: boolean;
  maxTokens?: number;
  memory?: MemoryOptions;
  grammar?: boolean;
  temperature?: number;
}

/** What `invoke` needs of the agent. */
export interface InvokeHost {
  readonly name: string;
  readonly model: ModelHandle;
  readonly systemPrompt: string;
  /** The compact system prompt a run falls back on when its context is short (see fitStep); none: undefined. */
  readonly compactSystemPrompt?: string;
  readonly chatFormat: ChatFormat;
  readonly options: Readonly<InvokeSettings>;
  renderPrompt(state: AgentState, options?: { droppedSteps?: number }): string;
  turnMessages(state: AgentState): TurnMessage[];
}

/** The agent's prompt budget (see prompt-budget.ts). */
export function agentBudget(host: Pick<InvokeHost, "model" | "options">): PromptBudget | undefined {
  const { fitContext, maxTokens, memory, grammar } = host.options;
  return promptBudget(host.model, { fitContext, maxTokens, memory, grammar: grammar ?? DEFAULT_USE_GRAMMAR });
}

/** A summary written for this turn (with its model call's stats), or the reason it could not be. */
type Summarized = (SummaryWritten & { stats: RunStats }) | { failed: string };

/**
 * The `summarize_oldest` policy (memory/summarize-oldest.ts) for this turn, when the agent's memory asks for it:
 * the summary's model call counted into stats of its own, for the turn's state. Undefined when nothing needs
 * summarizing.
 */
async function summarizeForTurn(
  host: InvokeHost,
  conversation: Conversation,
  message: string,
  signal: AbortSignal | undefined,
): Promise<Summarized | undefined> {
  const budget = agentBudget(host);
  if (host.options.memory?.trimPolicy !== "summarize_oldest" || !budget) return undefined;
  const probe = new AgentState(message, { history: historyView(conversation) });
  const stats = emptyRunStats();
  const temperature = host.options.temperature;
  const result = await summarizeOldest({
    conversation,
    limit: budget.limit,
    count: (level) => budget.counter.count(host.renderPrompt(probe, { droppedSteps: level })),
    counter: budget.counter,
    format: host.chatFormat,
    generate: (prompt, { maxTokens }) =>
      generateCounted(host.model, prompt, { maxTokens, ...withoutUndefined({ signal, temperature }) }, stats),
    signal,
  });
  if (!result || "failed" in result) return result;
  return { ...result, stats };
}

/** Count a summary's model call into the turn's state, and say what came of it. */
function recordSummary(state: AgentState, summarized: Summarized | undefined): void {
  if (!summarized) return;
  if (!("failed" in summarized)) {
    const { stats } = summarized;
    state.stats.modelCalls += stats.modelCalls;
    state.stats.modelMs += stats.modelMs;
    state.stats.promptTokens += stats.promptTokens;
    state.stats.evaluatedPromptTokens += stats.evaluatedPromptTokens;
    state.stats.generatedTokens += stats.generatedTokens;
  }
  emitSummary(state, summarized);
}

/**
 * What came of a summary, in the turn's state: its tokens and `memory-summarized` event, or the warning it failed;
 * `step`: the step the events are stamped with (default: the run's current one).
 */
function emitSummary(state: AgentState, result: SummarizeOldestResult, step?: number): void {
  if ("failed" in result) {
    state.emit({
      type: "warning",
      code: "summary_failed",
      message: `old turns left out instead: ${result.failed}`,
      ...(step !== undefined && { step }),
    });
    return;
  }
  const { summarizedTurns, covers, summaryTokens, estimated } = result;
  state.usage.inputTokens += result.input;
  state.usage.outputTokens += result.output;
  state.emit({
    type: "memory-summarized",
    summarizedTurns,
    covers,
    summaryTokens,
    ...(estimated && { estimated: true as const }),
    ...(step !== undefined && { step }),
  });
}

/**
 * Under `summarize_oldest`, the run's `summarizeHistory` (see AgentState): a trim inside the turn (fitStep, when the
 * prompt outgrows the budget after a skill result) that leaves turns of `history` out has the model summarize them
 * first, as the turn's first prompt does: the call counted into the turn's stats, its `memory-summarized` event (or
 * `summary_failed` warning) in the turn's events, the summary kept by the conversation. After a failed summary
 * (`firstFailed`: the turn's first one) the turn asks for none again: the turns are left out without one.
 */
function turnSummarizer(
  host: InvokeHost,
  conversation: Conversation,
  history: HistoryView,
  signal: AbortSignal | undefined,
  firstFailed: boolean,
): ((state: AgentState, level: number) => Promise<boolean>) | undefined {
  const budget = agentBudget(host);
  if (host.options.memory?.trimPolicy !== "summarize_oldest" || !budget) return undefined;
  const temperature = host.options.temperature;
  let failed = firstFailed;
  return async (state, level) => {
    const dropped = history.droppedAt(level);
    if (failed || dropped.length === 0) return false;
    const writer = {
      conversation,
      counter: budget.counter,
      format: host.chatFormat,
      generate: (prompt: string, { maxTokens }: { maxTokens: number }) =>
        generateCounted(host.model, prompt, { maxTokens, ...withoutUndefined({ signal, temperature }) }, state.stats),
      signal,
    };
    const result = await summarizeTurns(writer, dropped);
    // stamped, as the trim's `context-trimmed` event is, with the step whose prompt it fits
    emitSummary(state, result, state.iterations + 1);
    failed = "failed" in result;
    return !failed;
  };
}

/** The turn's run: its message, the conversation's `history` and, under `summarize_oldest`, its summarizer. */
function turnState(
  host: InvokeHost,
  conversation: Conversation,
  message: string,
  history: HistoryView,
  signal: AbortSignal | undefined,
  summarized: Summarized | undefined,
): AgentState {
  const firstFailed = summarized !== undefined && "failed" in summarized;
  const summarizer = turnSummarizer(host, conversation, history, signal, firstFailed);
  const state: AgentState = new AgentState(message, {
    history,
    ...(summarizer && { summarizeHistory: (level: number) => summarizer(state, level) }),
  });
  return state;
}

/** The turn's skill calls, each with its result or error, from the run's own events. */
function turnCalls(state: AgentState): ConversationCall[] {
  const calls: ConversationCall[] = [];
  const pending: ConversationCall[] = [];
  for (const event of state.stream.toArray()) {
    if (!isOwnEvent(event, state.depth)) continue;
    if (event.type === "call-skill") {
      const call: ConversationCall = { skill: event.skillName, arguments: event.arguments };
      calls.push(call);
      pending.push(call);
    } else if (event.type === "observation" || event.type === "tool-error") {
      const i = pending.findIndex((c) => c.skill === event.skillName);
      if (i < 0) continue;
      const [call] = pending.splice(i, 1);
      if (event.type === "observation") call.result = event.result;
      else call.error = event.message;
    }
  }
  return calls;
}

/** The newest history trim level the run's fitting reached (0 when it trimmed none). */
function finalHistoryLevel(state: AgentState): number {
  const trimmed = state.stream.toArray().findLast((e) => e.type === "context-trimmed" && isOwnEvent(e, state.depth));
  return trimmed?.type === "context-trimmed" ? (trimmed.historyLevel ?? 0) : 0;
}

/**
 * One turn of a conversation: the message, with the conversation's earlier turns in the prompt (trimmed to the
 * budget: old skill results first, then old turns, dropped or summarized), run as `run` runs; the turn is appended to
 * the conversation (and its file) whatever the outcome. Throws MemoryBudgetError, before any generation, when the
 * system prompt and the message alone cannot fit.
 */
export async function invokeTurn(
  host: InvokeHost,
  message: string,
  options: InvokeOptions,
  loop: (state: AgentState) => Promise<void>,
): Promise<InvokeResult> {
  const conversation = options.conversation ?? new Conversation({ agent: host.name });
  const budget = agentBudget(host);
  if (budget) {
    const first = (system: string) =>
      host.chatFormat.render([
        { role: "system", content: system },
        { role: "user", content: message },
      ]);
    const compact = host.compactSystemPrompt;
    await checkFirstPrompt(budget, first(host.systemPrompt), compact === undefined ? undefined : first(compact));
  }
  const summarized = await summarizeForTurn(host, conversation, message, options.signal);
  const history = historyView(conversation);
  const state = turnState(host, conversation, message, history, options.signal, summarized);
  const unsubscribe = options.onEvent ? state.stream.subscribe(options.onEvent) : undefined;
  try {
    recordSummary(state, summarized);
    await loop(state);
  } finally {
    unsubscribe?.();
  }
  conversation.trim = history.trimAt(finalHistoryLevel(state));
  const turn: NewTurn = {
    user: message,
    ...(state.answer !== undefined && { answer: state.answer, reply: state.reply }),
    stopReason: state.stopReason ?? "aborted",
    calls: turnCalls(state),
    messages: host.turnMessages(state),
  };
  conversation.addTurn(turn);
  const { inputTokens, outputTokens, largestPrompt, estimated } = state.usage;
  return {
    reply: state.answer !== undefined ? state.reply : undefined,
    answer: state.answer,
    conversation,
    iterations: state.iterations,
    stopReason: state.stopReason ?? "aborted",
    tokens: {
      prompt: largestPrompt,
      input: inputTokens,
      output: outputTokens,
      total: inputTokens + outputTokens,
      budget: budget?.tokenBudget,
      contextSize: host.model.contextSize,
      estimated,
    },
    state,
  };
}
