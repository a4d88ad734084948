import type { ChatMessage } from "../prompt/chat-format.js";
import { renderPrompt } from "../prompt-texts.js";
import type { Conversation, ConversationTurn, HistoryTrim } from "./conversation.js";

/**
 * A conversation's earlier turns as the prompt shows them, at increasing trim levels: level 0 is the trim the
 * conversation is at; each next level takes the skill steps out of one more old turn (oldest first: the turn keeps
 * its message and answer), and once none has steps left, leaves out one more old turn. The agent's context fitting
 * walks these levels before it drops any step of the current turn (memory/fit-context.ts).
 */
export interface HistoryView {
  /** The highest level (0 when there is nothing to trim). */
  readonly levels: number;
  /** The messages at `level`, to go between the system prompt and the current message. */
  messages(level: number): ChatMessage[];
  /** The trim `level` stands for (what the conversation keeps for the next turn), over the turns no summary covers. */
  trimAt(level: number): HistoryTrim;
  /** The turns left out at `level` that no summary stands for yet (what a summary would stand for). */
  droppedAt(level: number): readonly ConversationTurn[];
}

/** Turns the prompt can show: not aborted, and not covered by the summary. */
export function historyTurns(conversation: Conversation): ConversationTurn[] {
  const covered = conversation.summary?.covers ?? 0;
  return conversation.turns.filter((t) => t.index > covered && t.stopReason !== "aborted");
}

/** A turn without its skill steps: the user's message and the model's last reply (its answer). */
function strippedTurn(turn: ConversationTurn): ChatMessage[] {
  const answer = turn.messages.findLast((m) => m.role === "model");
  return [{ role: "user", content: turn.user }, ...(answer ? [answer] : [])];
}

/** Does the turn have skill steps to take out (more than its answer)? */
function hasSteps(turn: ConversationTurn): boolean {
  return turn.messages.length > 1;
}

/** The trim levels from `from`: strip the old turns that have steps, then drop turns, oldest first. */
function trimLevels(turns: readonly ConversationTurn[], from: HistoryTrim): HistoryTrim[] {
  const dropped = Math.min(from.droppedTurns, turns.length);
  let stripped = Math.max(Math.min(from.strippedTurns, turns.length), dropped);
  const levels: HistoryTrim[] = [{ strippedTurns: stripped, droppedTurns: dropped }];
  for (let p = stripped; p < turns.length; p++) {
    if (!hasSteps(turns[p])) continue;
    stripped = p + 1;
    levels.push({ strippedTurns: stripped, droppedTurns: dropped });
  }
  for (let d = dropped + 1; d <= turns.length; d++)
    levels.push({ strippedTurns: Math.max(stripped, d), droppedTurns: d });
  return levels;
}

/**
 * The history of `conversation` for the next turn's prompt, starting at the trim the conversation is at. The levels
 * are fixed when the view is made; the summary is read as the conversation has it now: a summary written during the
 * turn (`summarize_oldest`, when a trim inside the turn leaves turns out) stands, from then on, for the turns it
 * covers, in place of the note that says turns are left out, and those turns are never shown again.
 */
export function historyView(conversation: Conversation): HistoryView {
  const turns = historyTurns(conversation);
  const levels = trimLevels(turns, conversation.trim);
  const at = (level: number) => levels[Math.max(0, Math.min(level, levels.length - 1))];
  /** Turns of this view the conversation's summary now stands for (the oldest ones). */
  const summarized = () => {
    const covers = conversation.summary?.covers ?? 0;
    let k = 0;
    while (k < turns.length && turns[k].index <= covers) k++;
    return k;
  };
  return {
    levels: levels.length - 1,
    trimAt(level) {
      const k = summarized();
      const { strippedTurns, droppedTurns } = at(level);
      return { strippedTurns: Math.max(0, strippedTurns - k), droppedTurns: Math.max(0, droppedTurns - k) };
    },
    droppedAt: (level) => turns.slice(summarized(), at(level).droppedTurns),
    messages(level) {
      const { strippedTurns } = at(level);
      const k = summarized();
      const droppedTurns = Math.max(at(level).droppedTurns, k);
      const summary = conversation.summary;
      const out: ChatMessage[] = [];
      if (summary) out.push({ role: "user", content: renderPrompt("memory-summary", { summary: summary.text }) });
      if (droppedTurns > k)
        out.push({ role: "user", content: renderPrompt("memory-dropped", { count: droppedTurns - k }) });
      for (let p = droppedTurns; p < turns.length; p++)
        out.push(
          ...(p < strippedTurns
            ? strippedTurn(turns[p])
            : [{ role: "user" as const, content: turns[p].user }, ...turns[p].messages]),
        );
      return out;
    },
  };
}
