import type { LlamaContextSequence, Token } from "node-llama-cpp";
import { abortError } from "../../abort.js";
import { PROMPT_EVALUATION_SLICE } from "./defaults.js";
import { commonPrefixLength, type HeldContent } from "./prompt-tokens.js";

/**
 * One context sequence of a loaded model and what it holds: the text and tokens of its last prompt and reply, so
 * that the next prompt that extends them evaluates only its new tokens (KV-cache reuse).
 */
export class SequenceSlot {
  readonly sequence: LlamaContextSequence;
  /** What the sequence logically holds (the last prompt and the reply generated after it). */
  held: HeldContent = { text: "", tokens: [] };
  /** The model's sliding-window size (Gemma's local attention), or 0. */
  readonly #window: number;

  constructor(sequence: LlamaContextSequence, slidingWindow: number | undefined) {
    this.sequence = sequence;
    this.#window = slidingWindow ?? 0;
  }

  /** How many characters of `prompt` this slot's held text already covers (to pick the slot that reuses most). */
  sharedChars(prompt: string): number {
    const text = this.held.text;
    const n = Math.min(text.length, prompt.length);
    let i = 0;
    while (i < n && text.charCodeAt(i) === prompt.charCodeAt(i)) i++;
    return i;
  }

  /**
   * Make the sequence hold a prefix of `tokens` and return its length. Tokens the sequence holds beyond the common
   * prefix are erased, unless that would leave a sliding window with holes (SWA caches drop old cells): then the
   * sequence starts over. At least one token is always left to evaluate, since generation needs fresh logits.
   */
  async align(tokens: readonly Token[]): Promise<number> {
    const sequence = this.sequence;
    const held = sequence.contextTokens;
    let keep = Math.min(commonPrefixLength(held, tokens), tokens.length - 1);
    if (keep < held.length) {
      const firstCell = sequence.stateCellsStartIndex;
      const windowIntact = !this.#window || firstCell <= Math.max(0, keep - this.#window);
      if (keep === 0 || !windowIntact) {
        await sequence.clearHistory();
        keep = 0;
      } else {
        await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
      }
    }
    return Math.min(keep, sequence.nextTokenIndex);
  }

  /** Evaluate `tokens[from, to)` in slices (an abort lands between two); returns `to`. */
  async evaluateRange(tokens: Token[], from: number, to: number, signal: AbortSignal | undefined): Promise<number> {
    let next = from;
    while (to - next > 0) {
      if (signal?.aborted) throw abortError(signal.reason);
      const end = Math.min(to, next + PROMPT_EVALUATION_SLICE);
      await this.sequence.evaluateWithoutGeneratingNewTokens(tokens.slice(next, end));
      next = end;
    }
    return next;
  }
}

/** How a {@link SequencePool}'s sequences are used now. */
export interface SequenceUse {
  /** The pool's sequences (fixed when the model loads). */
  total: number;
  /** Lent to a `generate` call and not given back yet. */
  busy: number;
  /** Calls waiting for a free sequence. */
  waiting: number;
}

/**
 * The sequences of one context, lent to one `generate` call each: a call takes the free slot whose held text shares
 * the most with its prompt (its KV cache is reused), or waits for one, in the order calls came. With several
 * sequences, calls run at once and llama.cpp decodes their tokens in shared batches.
 */
export class SequencePool {
  readonly slots: readonly SequenceSlot[];
  readonly #free: SequenceSlot[];
  readonly #waiting: { prompt: string; take: (slot: SequenceSlot) => void }[] = [];

  constructor(slots: readonly SequenceSlot[]) {
    this.slots = slots;
    this.#free = [...slots];
  }

  /** How many sequences are lent and how many calls wait, now. */
  get use(): SequenceUse {
    return { total: this.slots.length, busy: this.slots.length - this.#free.length, waiting: this.#waiting.length };
  }

  /** A free slot for `prompt`, now or when one is released. */
  acquire(prompt: string): Promise<SequenceSlot> {
    if (this.#free.length > 0) return Promise.resolve(this.#take(prompt));
    return new Promise((take) => this.#waiting.push({ prompt, take }));
  }

  /** Give a slot back: the longest-waiting call gets a slot (the best one for its prompt). */
  release(slot: SequenceSlot): void {
    this.#free.push(slot);
    const waiter = this.#waiting.shift();
    if (waiter) waiter.take(this.#take(waiter.prompt));
  }

  #take(prompt: string): SequenceSlot {
    let best = 0;
    for (let i = 1; i < this.#free.length; i++) {
      if (this.#free[i].sharedChars(prompt) > this.#free[best].sharedChars(prompt)) best = i;
    }
    return this.#free.splice(best, 1)[0];
  }
}
