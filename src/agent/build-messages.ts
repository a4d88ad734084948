import { MAX_REPLY_CHARS_IN_PROMPT } from "../defaults.js";
import type { ChatFormat, ChatMessage } from "../prompt/chat-format.js";
import { promptText, renderPrompt } from "../prompt-texts.js";
import type { HistoryView } from "../memory/history.js";
import { isOwnEvent, modelReplyOf, type AgentEvent, type ObservationEvent, type ToolErrorEvent } from "./events.js";

/** A reply shown back to the model, capped so a runaway generation cannot fill the context. */
function replyText(raw: string): string {
  return raw.length <= MAX_REPLY_CHARS_IN_PROMPT ? raw : `${raw.slice(0, MAX_REPLY_CHARS_IN_PROMPT)} …[cut]`;
}

/**
 * A skill's result (or failure message) as it enters the prompt: cut to `maxChars`, with a note for the model saying
 * how much was shown; `truncated` when it was cut.
 */
export function capResult(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  const note = renderPrompt("result-truncated", { shown: maxChars, total: text.length });
  return { text: `${text.slice(0, maxChars)}\n${note}`, truncated: true };
}

/** What the model sees after a skill ran or failed. */
export function observationText(event: ObservationEvent | ToolErrorEvent): string {
  const text =
    event.type === "tool-error"
      ? renderPrompt("tool-error", {
          skill_name: event.skillName,
          message: event.message,
          available_skills: event.availableSkills.join(", ") || "none",
        })
      : renderPrompt("observation", { skill_name: event.skillName, result: event.result });
  return event.warning ? `${text}\n${event.warning}` : text;
}

/**
 * What the model is told when a final round starts (see FinalRoundEvent): no more calls, and then, last, the run's
 * newest skill result (`latest`), which the answer should come from. The prompt ends with the result, not with an
 * instruction: small models copy the last text they read (issue 26 saw SmolLM2 answer with the repeat note and Gemma
 * 3 270M with the format's placeholder). Without a result, the note alone.
 */
export function finalRoundText(latest?: ObservationEvent): string {
  return latest === undefined
    ? promptText("final-round-no-result")
    : renderPrompt("final-round", { skill_name: latest.skillName, result: latest.result });
}

/**
 * The conversation of a run so far: the system prompt, the query, then for each step the model's reply as it wrote
 * it and, as the next user turn, what came of it (results, errors, feedback, a final-round note). Built only from the
 * events, in order, so the rendered prompt of step k+1 begins with the prompt of step k, except after a
 * `context-trimmed` event: from then on its `droppedSteps` oldest steps are left out (a note after the question says
 * how many; `options.droppedSteps` renders another count, to measure it), and after one with `promptStyle: "compact"`
 * the system prompt is `options.compactSystem`. Events forwarded from nested agents (a depth other than `depth`, the
 * depth of the agent whose conversation this is) are not part of it.
 */
export function buildMessages(
  system: string,
  query: string,
  events: readonly AgentEvent[],
  depth = 0,
  options: { droppedSteps?: number; compactSystem?: string } = {},
): ChatMessage[] {
  return new RunTranscript(system, query, depth, undefined, options.compactSystem)
    .add(events)
    .messages(options.droppedSteps);
}

/** A message of the conversation, tagged with the step it belongs to (0: before the first reply, always shown). */
interface TaggedMessage {
  step: number;
  message: ChatMessage;
}

/**
 * {@link buildMessages}, kept up to date one event at a time: a run's agent adds each step's new events and renders
 * from what it already built, so a long run costs time and memory linear in its text, not in its steps squared
 * (issue 18: 2,000 scripted steps took 11 s, most of it rebuilding every message every step). With a conversation's
 * `history` (memory/history.ts), its messages go between the system prompt and the query, and a trim level counts the
 * history's levels first, then the run's steps: level L shows the history at min(L, history.levels) and leaves out
 * the L - history.levels oldest steps.
 */
export class RunTranscript {
  readonly #turns: TaggedMessage[] = [];
  #feedback: string[] = [];
  /** The newest skill result of the run: what a final round ends with. */
  #latest: ObservationEvent | undefined;
  #steps = 0;
  #dropped = 0;
  /** The run condensed its system prompt to `compactSystem` (a `context-trimmed` event with `promptStyle: "compact"`). */
  #compact = false;
  #consumed = 0;
  /** The rendered text of the head (system, history, question) and the settled turns, for one trim level and style. */
  #rendered: { drop: number; compact: boolean; text: string; turns: number } | undefined;

  /**
   * `compactSystem`: the system prompt in the compact style, which the run switches to for good once a
   * `context-trimmed` event says `promptStyle: "compact"` (default: `system`, nothing to switch to).
   */
  constructor(
    private readonly system: string,
    private readonly query: string,
    private readonly depth = 0,
    private readonly history?: HistoryView,
    private readonly compactSystem = system,
  ) {}

  /** The system prompt the run's prompts now begin with: the compact one once the run condensed it. */
  get systemPrompt(): string {
    return this.#compact ? this.compactSystem : this.system;
  }

  /** Takes in the events of `events` past those already taken in: pass the run's whole list, in order, each time. */
  add(events: readonly AgentEvent[]): this {
    for (; this.#consumed < events.length; this.#consumed++) this.#take(events[this.#consumed]);
    return this;
  }

  /** Trim levels of the history (0 without one): the first levels a trim goes through. */
  get historyLevels(): number {
    return this.history?.levels ?? 0;
  }

  /**
   * The conversation rendered by `format` at trim level `droppedSteps` (default: as the newest `context-trimmed`
   * event says), with the compact system prompt when `compact` (default: once the run condensed it). With a format
   * that renders continuations, the text of the settled turns is kept and only new turns are rendered each step;
   * another format renders all messages.
   */
  render(format: ChatFormat, droppedSteps = this.#dropped, compact = this.#compact): string {
    if (!format.renderContinuation) return format.render(this.messages(droppedSteps, compact));
    const kept = this.#rendered;
    let rendered = kept?.drop === droppedSteps && kept.compact === compact ? kept : undefined;
    if (!rendered) {
      rendered = {
        drop: droppedSteps,
        compact,
        text: format.render(this.#head(droppedSteps, compact), { addGenerationPrompt: false }),
        turns: 0,
      };
      // keep the run's own rendering; one with another count or style (fitting the context measures some) is apart
      if (droppedSteps === this.#dropped && compact === this.#compact) this.#rendered = rendered;
    }
    const stepsDropped = this.#stepsDropped(droppedSteps);
    const shown = (step: number) => step === 0 || step > stepsDropped;
    const fresh: ChatMessage[] = [];
    for (; rendered.turns < this.#turns.length; rendered.turns++) {
      const turn = this.#turns[rendered.turns];
      if (shown(turn.step)) fresh.push(turn.message);
    }
    if (fresh.length) rendered.text += format.renderContinuation(fresh, { addGenerationPrompt: false });
    const pending: ChatMessage[] =
      this.#feedback.length && shown(this.#steps) ? [{ role: "user", content: this.#feedback.join("\n\n") }] : [];
    return rendered.text + format.renderContinuation(pending);
  }

  /**
   * The model's replies and what came back to it in this run, every step shown (no trim), as the prompt shows them:
   * what a conversation keeps of the turn, so that the next turn's prompt begins with this run's last one.
   */
  stepMessages(): ChatMessage[] {
    const steps = this.#turns.map((t) => t.message);
    if (this.#feedback.length) steps.push({ role: "user", content: this.#feedback.join("\n\n") });
    return steps;
  }

  #stepsDropped(drop: number): number {
    return Math.max(0, drop - this.historyLevels);
  }

  /** System prompt, the history at the level's history trim, and the question (with a note when steps are dropped). */
  #head(drop: number, compact: boolean): ChatMessage[] {
    const stepsDropped = this.#stepsDropped(drop);
    const question =
      stepsDropped > 0 ? `${this.query}\n\n${renderPrompt("context-trimmed", { count: stepsDropped })}` : this.query;
    return [
      { role: "system", content: compact ? this.compactSystem : this.system },
      ...(this.history?.messages(Math.min(drop, this.historyLevels)) ?? []),
      { role: "user", content: question },
    ];
  }

  /** Events taken in so far. */
  get consumed(): number {
    return this.#consumed;
  }

  /**
   * The messages at trim level `droppedSteps` (default: as the newest `context-trimmed` event says), with the compact
   * system prompt when `compact` (default: once the run condensed it).
   */
  messages(droppedSteps = this.#dropped, compact = this.#compact): ChatMessage[] {
    const stepsDropped = this.#stepsDropped(droppedSteps);
    const shown = (step: number) => step === 0 || step > stepsDropped;
    const messages = this.#head(droppedSteps, compact);
    for (const turn of this.#turns) if (shown(turn.step)) messages.push(turn.message);
    if (this.#feedback.length && shown(this.#steps))
      messages.push({ role: "user", content: this.#feedback.join("\n\n") });
    return messages;
  }

  #flush(): void {
    if (this.#feedback.length)
      this.#turns.push({ step: this.#steps, message: { role: "user", content: this.#feedback.join("\n\n") } });
    this.#feedback = [];
  }

  #reply(raw: string): void {
    this.#flush();
    this.#steps++;
    this.#turns.push({ step: this.#steps, message: { role: "model", content: replyText(raw) } });
  }

  #take(event: AgentEvent): void {
    if (!isOwnEvent(event, this.depth)) return;
    const reply = modelReplyOf(event);
    if (reply) {
      this.#reply(reply.raw);
      if (reply.type === "validation-error") this.#feedback.push(reply.feedback);
      return;
    }
    switch (event.type) {
      case "observation":
      case "tool-error":
        if (event.type === "observation") this.#latest = event;
        this.#feedback.push(observationText(event));
        break;
      case "final-round":
        this.#feedback.push(finalRoundText(this.#latest));
        break;
      case "context-trimmed":
        this.#dropped = (event.historyLevel ?? 0) + event.droppedSteps;
        if (event.promptStyle === "compact") this.#compact = true;
        break;
      default:
        break;
    }
  }
}

/** Model replies (steps) of this conversation so far: what `droppedSteps` counts. */
export function countSteps(events: readonly AgentEvent[], depth = 0): number {
  return events.filter((e) => isOwnEvent(e, depth) && modelReplyOf(e) !== undefined).length;
}
